package spec

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestSetFlagValidate(t *testing.T) {
	var s Scenario
	for _, f := range [][2]string{{"workload", "kv"}, {"--rate", "2k/s"}, {"max-lag", "2s"}, {"tags", "a, b,,c"}, {"seed", "0"}} {
		if err := s.SetFlag(f[0], f[1]); err != nil {
			t.Fatalf("SetFlag(%q, %q): %v", f[0], f[1], err)
		}
	}
	if err := s.SetParam(testReg, "records=50"); err != nil {
		t.Fatalf("SetParam: %v", err)
	}
	if err := s.Validate(testReg); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	params := kvDefaults()
	params["records"] = int64(50)
	want := Scenario{
		Name: "kv", Workload: "kv", Database: DefaultDatabase, Rate: 2000, Threads: 64, Duration: DefaultDuration,
		Interval: DefaultInterval, MaxLag: Duration(2 * time.Second), Seed: 0, Tags: []string{"a", "b", "c"},
		Params: params,
	}
	if !reflect.DeepEqual(plain(&s), want) {
		t.Errorf("got\n%+v\nwant\n%+v", plain(&s), want)
	}
}

func TestSetFlagErrors(t *testing.T) {
	tests := []struct{ flag, value, want string }{
		{"rate", "0", `--rate: "0" is not valid: want a positive rate up to 10M/s, such as 2000/s or 500`},
		{"--threads", "x", `--threads: "x" is not valid: want an integer between 1 and 10000, such as 8 or 64`},
		{"maxLag", "-1s", `--max-lag: "-1s" is not valid: want a positive duration`},
		{"duraton", "5s", `--duraton: unknown flag "duraton" (did you mean "duration"? valid flags: name, workload, database, rate, stages, threads, duration, ops, warmup, interval, max-lag, arrival, seed, label, tags, repetition)`},
		{"params", "x", `--params: unknown flag "params"`},
	}
	for _, tc := range tests {
		var s Scenario
		err := s.SetFlag(tc.flag, tc.value)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("SetFlag(%q, %q) = %v\nwant %s", tc.flag, tc.value, err, tc.want)
		}
	}
}

func TestValidateFlagErrors(t *testing.T) {
	tests := []struct {
		flags [][2]string
		param string
		want  string
	}{
		{[][2]string{{"workload", "kv"}, {"rate", "5"}, {"threads", "0"}}, "", `--threads: "0" is not valid: want an integer between 1 and 10000, such as 8 or 64`},
		{[][2]string{{"workload", "kv"}, {"duration", "0"}}, "", `--duration: "0s" is not valid: want a positive duration`},
		{[][2]string{{"workload", "kv"}, {"ops", "-5"}}, "", `--ops: "-5" is not valid: want a positive integer`},
		{[][2]string{{"workload", "kv"}, {"interval", "1ms"}}, "", `--interval: "1ms" is not valid: want a duration between 100ms and 1h`},
		{[][2]string{{"workload", "kv"}, {"database", "local"}}, "", `--database: "local" is reserved`},
		{[][2]string{{"workload", "kv"}, {"database", "mongobench"}}, "", `--database: "mongobench" is reserved (mongobench keeps its results there)`},
		{[][2]string{{"workload", "kv"}, {"name", ""}}, "", `--name: "" is not valid: want a non-empty name`},
		{[][2]string{{"rate", "5"}}, "", `--workload: no workload is given: want one of kv, ycsb`},
		{[][2]string{{"workload", "kvs"}}, "", `--workload: "kvs" is not valid: want one of kv, ycsb (did you mean "kv"?)`},
		{[][2]string{{"workload", "/tmp/noext"}}, "", `--workload: "/tmp/noext" is not valid: want a workload file whose name ends in .yaml or .yml, or a built-in workload: one of kv, ycsb`},
		{[][2]string{{"workload", "/dev/zero"}}, "", `--workload: "/dev/zero" is not valid: want a workload file whose name ends in .yaml or .yml`},
		{[][2]string{{"workload", "kv"}}, "records=0", `-p records: "0" is not valid: want an integer between 1 and 100000000`},
	}
	for _, tc := range tests {
		var s Scenario
		for _, f := range tc.flags {
			if err := s.SetFlag(f[0], f[1]); err != nil {
				t.Fatalf("SetFlag(%q, %q): %v", f[0], f[1], err)
			}
		}
		var err error
		if tc.param != "" {
			err = s.SetParam(testReg, tc.param)
		} else {
			err = s.Validate(testReg)
		}
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("flags %v -p %q: got %v\nwant %s", tc.flags, tc.param, err, tc.want)
		}
	}
}

func TestValidateCodeBuilt(t *testing.T) {
	s := Scenario{Workload: "kv", Threads: 4, Params: Params{"records": 10, "docSize": "2KB", "think": time.Second}}
	if err := s.Validate(testReg); err != nil {
		t.Fatalf("Validate: %v", err)
	}
	if s.Threads != 4 || s.Params.Int("records") != 10 || s.Params.Size("docSize") != 2*KB || s.Params.Duration("think") != Duration(time.Second) {
		t.Errorf("Validate gave threads %d params %v; want 4 and converted params", s.Threads, s.Params)
	}
	bad := []struct {
		s    Scenario
		want string
	}{
		{Scenario{Workload: "kv", Threads: -1}, `--threads: "-1" is not valid`},
		{Scenario{Workload: "kv", Rate: -1}, `--rate: "-1/s" is not valid`},
		{Scenario{Workload: "kv", Warmup: -1}, `--warmup: "-1ns" is not valid`},
		{Scenario{Workload: "kv", Repetition: -1}, `--repetition: "-1" is not valid`},
		{Scenario{Workload: "kv", Tags: []string{""}}, `--tags: "" is not valid`},
		{Scenario{Workload: "kv", Params: Params{"nope": 1}}, `-p: unknown kv parameter "nope"`},
		{Scenario{Workload: "kv", Params: Params{"records": "many"}}, `-p records: "many" is not valid: want an integer between 1 and 100000000`},
		{Scenario{Workload: "kv", Params: Params{"records": 1.5}}, `-p records: a value of Go type float64 is not valid: want an integer`},
		{Scenario{Workload: "kv", Params: Params{"mode": "nope"}}, `-p mode: "nope" is not valid: want one of insert, upsert`},
		{Scenario{Workload: "kv", Params: Params{"docSize": Size(-1)}}, `-p docSize: "-1B" is not valid`},
	}
	for _, tc := range bad {
		err := tc.s.Validate(testReg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate(%+v) = %v; want it to contain %q", tc.s, err, tc.want)
		}
	}
}

// TestDefaultsFollow checks that defaults are recomputed when the settings
// they depend on change after parsing, and that explicit values stay.
func TestDefaultsFollow(t *testing.T) {
	s, err := Parse("s.yaml", []byte("workload: kv\nparams: {records: 5}\n"), testReg)
	if err != nil {
		t.Fatal(err)
	}
	if s.Threads != DefaultClosedThreads || s.Duration != DefaultDuration {
		t.Fatalf("got threads %d duration %v; want closed-loop defaults", s.Threads, s.Duration)
	}
	for _, f := range [][2]string{{"rate", "100"}, {"ops", "10"}, {"workload", "ycsb"}} {
		if err := s.SetFlag(f[0], f[1]); err != nil {
			t.Fatal(err)
		}
	}
	err = s.Validate(testReg)
	if err == nil || !strings.Contains(err.Error(), `s.yaml:2: params: unknown ycsb parameter "records"`) {
		t.Errorf("Validate after switching workload = %v; want the file's records reported", err)
	}
	delete(s.Params, "records")
	if err := s.Validate(testReg); err != nil {
		t.Fatal(err)
	}
	if s.Threads != DefaultOpenThreads || s.Duration != 0 || s.Name != "ycsb" || len(s.Params) != 0 {
		t.Errorf("got threads %d duration %v name %q params %v; want 64, 0, ycsb, none", s.Threads, s.Duration, s.Name, s.Params)
	}
	s.Threads = 3 // set in code: kept
	if err := s.Validate(testReg); err != nil || s.Threads != 3 {
		t.Errorf("Validate = %v, threads %d; want nil and 3", err, s.Threads)
	}
}

func TestClone(t *testing.T) {
	s, err := Parse("s.yaml", []byte("workload: kv\ntags: [a]\n"), testReg)
	if err != nil {
		t.Fatal(err)
	}
	c := s.Clone()
	c.Tags[0], c.Params["records"] = "b", int64(7)
	if err := c.SetFlag("rate", "10"); err != nil {
		t.Fatal(err)
	}
	if err := c.Validate(testReg); err != nil {
		t.Fatal(err)
	}
	if s.Tags[0] != "a" || s.Params.Int("records") != 1000 || s.Threads != 8 || c.Threads != 64 {
		t.Errorf("after changing the clone: original tags %v records %d threads %d, clone threads %d; want a, 1000, 8, 64",
			s.Tags, s.Params.Int("records"), s.Threads, c.Threads)
	}
}
