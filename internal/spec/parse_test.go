package spec

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// plain returns a copy of s without its origin, for comparisons.
func plain(s *Scenario) Scenario {
	c := *s
	c.src = nil
	return c
}

func TestParseFile(t *testing.T) {
	got, where, err := ParseFile("testdata/kv-mixed.yaml", testReg)
	if err != nil {
		t.Fatalf("ParseFile: %v", err)
	}
	params := kvDefaults()
	params["records"], params["docSize"], params["readPercent"] = int64(100000), KB, 95.0
	want := Scenario{
		Name: "kv-mixed", Workload: "kv", Database: "mongobench_data",
		Rate: 2000, Threads: 64, Duration: Duration(time.Minute), Ops: 1000000,
		Warmup: Duration(10 * time.Second), Interval: Duration(time.Second), MaxLag: Duration(5 * time.Second),
		Seed: 42, Label: "r6g", Tags: []string{"baseline", "nightly"}, Repetition: 2, Params: params,
	}
	if !reflect.DeepEqual(plain(got), want) {
		t.Errorf("ParseFile got\n%+v\nwant\n%+v", plain(got), want)
	}
	wantWhere := Where{Target: Target{URI: "mongodb://localhost:27017/"}, Results: Results{URI: "mongodb://localhost:27017/", File: "results.jsonl"}}
	if !reflect.DeepEqual(where, wantWhere) {
		t.Errorf("ParseFile's Where: got %+v, want %+v", where, wantWhere)
	}
	if err := got.Validate(testReg); err != nil {
		t.Errorf("Validate after Parse: %v", err)
	}
}

func TestParseFileMissing(t *testing.T) {
	_, _, err := ParseFile(filepath.Join(t.TempDir(), "nope.yaml"), testReg)
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ParseFile(missing) = %v; want an error wrapping os.ErrNotExist", err)
	}
}

func TestParseDefaults(t *testing.T) {
	tests := []struct {
		in   string
		want Scenario
	}{
		{"workload: kv\n", Scenario{
			Name: "kv", Workload: "kv", Database: DefaultDatabase, Threads: 8, Duration: DefaultDuration,
			Interval: DefaultInterval, MaxLag: DefaultMaxLag, Seed: 1, Params: kvDefaults(),
		}},
		{"workload: ycsb\nrate: 1k\nops: 500\nseed: 0\n", Scenario{
			Name: "ycsb", Workload: "ycsb", Database: DefaultDatabase, Rate: 1000, Threads: 64, Ops: 500,
			Interval: DefaultInterval, MaxLag: DefaultMaxLag, Seed: 0, Params: Params{},
		}},
		{"workload: ycsb\nduration: 5\nops: 5\nname: x\ntags: []\nparams:\nresults:\n", Scenario{
			Name: "x", Workload: "ycsb", Database: DefaultDatabase, Threads: 8, Duration: Duration(5 * time.Second), Ops: 5,
			Interval: DefaultInterval, MaxLag: DefaultMaxLag, Seed: 1, Params: Params{},
		}},
		{"workload: kv\nparams: {mode: Upsert, ordered: off}\n", func() Scenario {
			ps := kvDefaults()
			ps["mode"], ps["ordered"] = "upsert", false
			return Scenario{Name: "kv", Workload: "kv", Database: DefaultDatabase, Threads: 8, Duration: DefaultDuration,
				Interval: DefaultInterval, MaxLag: DefaultMaxLag, Seed: 1, Params: ps}
		}()},
		{"base: &b {workload: kv}\n", Scenario{}}, // placeholder replaced below
	}
	tests = tests[:len(tests)-1]
	for _, tc := range tests {
		got, err := Parse("s.yaml", []byte(tc.in), testReg)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.in, err)
			continue
		}
		if !reflect.DeepEqual(plain(got), tc.want) {
			t.Errorf("Parse(%q) got\n%+v\nwant\n%+v", tc.in, plain(got), tc.want)
		}
	}
}

func TestParseAliases(t *testing.T) {
	in := "workload: &w kv\nname: *w\nparams: &p {records: 7}\n"
	got, err := Parse("s.yaml", []byte(in), testReg)
	if err != nil {
		t.Fatalf("Parse(%q): %v", in, err)
	}
	if got.Name != "kv" || got.Params.Int("records") != 7 {
		t.Errorf("Parse(%q) gave name %q records %d; want kv and 7", in, got.Name, got.Params.Int("records"))
	}
}

// TestParseErrors checks that each class of bad input is rejected with the
// file, line, field, bad value and what would be valid.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		name, in string
		want     []string // each must appear in the error
	}{
		{"empty file", "", []string{`s.yaml:1: the file is empty: want a mapping of settings`}},
		{"only comments", "# nothing\n", []string{`s.yaml:1: the file is empty`}},
		{"null document", "---\n~\n", []string{`s.yaml:2: the document is empty: want a mapping`}},
		{"list at top", "- workload: kv\n", []string{`s.yaml:1: the document is a list: want a mapping of settings`}},
		{"scalar at top", "kv\n", []string{`s.yaml:1: the document is a value`}},
		{"syntax", "workload: kv\nrate: [1\n", []string{`s.yaml:2: invalid yaml: did not find expected ',' or ']'`}},
		{"two documents", "workload: kv\n---\nworkload: kv\n", []string{`s.yaml:3: a second document is not valid: want one scenario per file`}},
		{"unknown key", "workload: kv\ndurration: 5s\n",
			[]string{`s.yaml:2: unknown key "durration" (did you mean "duration"? valid keys: name, workload, uri, database, rate, stages, threads, duration, ops, warmup, interval, maxLag, arrival, hostMetrics, hostDevice, seed, label, tags, repetition, params, results, thresholds)`}},
		{"unknown key, no suggestion", "workload: kv\nzzzzzz: 1\n", []string{`s.yaml:2: unknown key "zzzzzz" (valid keys: name,`}},
		{"duplicate key", "workload: kv\nrate: 5\nrate: 6\n", []string{`s.yaml:3: duplicate key "rate" (first at line 2)`}},
		{"list key", "workload: kv\n? [a]\n: 1\n", []string{`s.yaml:2: a list is not valid as a key`}},
		{"missing workload", "rate: 5\n", []string{`s.yaml:1: missing key "workload": want one of kv, ycsb`}},
		{"unknown workload", "workload: kvv\n", []string{`s.yaml:1: workload: "kvv" is not valid: want one of kv, ycsb (did you mean "kv"?)`}},
		{"workload list", "workload: [kv]\n", []string{`s.yaml:1: workload: a list is not valid`}},
		{"rate negative", "workload: kv\nrate: -5/s\n", []string{`s.yaml:2: rate: "-5/s" is not valid: want a positive rate up to 10M/s, such as 2000/s or 500`}},
		{"rate zero", "workload: kv\nrate: 0\n", []string{`s.yaml:2: rate: "0" is not valid: want a positive rate`}},
		{"rate list", "workload: kv\nrate: [1, 2]\n", []string{`s.yaml:2: rate: a list is not valid: want a positive rate`}},
		{"rate mapping", "workload: kv\nrate:\n  per: s\n", []string{`s.yaml:3: rate: a mapping is not valid: want a positive rate`}},
		{"rate empty", "workload: kv\nrate:\n", []string{`s.yaml:2: rate: "" is not valid: want a positive rate`}},
		{"rate with threads 0", "workload: kv\nrate: 100\nthreads: 0\n", []string{`s.yaml:3: threads: "0" is not valid: want an integer between 1 and 10000, such as 8 or 64`}},
		{"threads negative", "workload: kv\nthreads: -3\n", []string{`s.yaml:2: threads: "-3" is not valid: want an integer between 1 and 10000, such as 8 or 64`}},
		{"threads text", "workload: kv\nthreads: many\n", []string{`s.yaml:2: threads: "many" is not valid: want an integer between 1 and 10000, such as 8 or 64`}},
		{"threads fraction", "workload: kv\nthreads: 1.5\n", []string{`s.yaml:2: threads: "1.5" is not valid`}},
		{"duration zero", "workload: kv\nduration: 0s\n", []string{`s.yaml:2: duration: "0s" is not valid: want a positive duration up to 168h, such as 60s`}},
		{"duration negative", "workload: kv\nduration: -5s\n", []string{`s.yaml:2: duration: "-5s" is not valid: want a positive duration`}},
		{"duration text", "workload: kv\nduration: soon\n", []string{`s.yaml:2: duration: "soon" is not valid: want a positive duration`}},
		{"ops negative", "workload: kv\nops: -1\n", []string{`s.yaml:2: ops: "-1" is not valid: want a positive integer up to 1e12, such as 1000000`}},
		{"ops zero", "workload: kv\nops: 0\n", []string{`s.yaml:2: ops: "0" is not valid: want a positive integer`}},
		{"ops overflow", "workload: kv\nops: 99999999999999999999\n", []string{`s.yaml:2: ops: "99999999999999999999" is not valid`}},
		{"warmup negative", "workload: kv\nwarmup: -1s\n", []string{`s.yaml:2: warmup: "-1s" is not valid: want a duration between 0 and 24h, such as 10s`}},
		{"interval short", "workload: kv\ninterval: 10ms\n", []string{`s.yaml:2: interval: "10ms" is not valid: want a duration between 100ms and 1h`}},
		{"interval long", "workload: kv\ninterval: 2h\n", []string{`s.yaml:2: interval: "2h0m0s" is not valid: want a duration between 100ms and 1h`}},
		{"maxLag zero", "workload: kv\nrate: 5\nmaxLag: 0\n", []string{`s.yaml:3: maxLag: "0s" is not valid: want a positive duration`}},
		{"seed text", "workload: kv\nseed: abc\n", []string{`s.yaml:2: seed: "abc" is not valid: want an integer`}},
		{"repetition negative", "workload: kv\nrepetition: -1\n", []string{`s.yaml:2: repetition: "-1" is not valid: want an integer between 0 and 1000000`}},
		{"name empty", "workload: kv\nname: \"\"\n", []string{`s.yaml:2: name: "" is not valid: want a non-empty name`}},
		{"database admin", "workload: kv\ndatabase: admin\n", []string{`s.yaml:2: database: "admin" is reserved (it is MongoDB's own): want a database name other than mongobench, admin, local, config`}},
		{"database results", "workload: kv\ndatabase: MongoBench\n", []string{`s.yaml:2: database: "MongoBench" is reserved (mongobench keeps its results there)`}},
		{"database dot", "workload: kv\ndatabase: a.b\n", []string{`s.yaml:2: database: "a.b" is not valid`}},
		{"database long", "workload: kv\ndatabase: " + strings.Repeat("d", 64) + "\n", []string{`s.yaml:2: database: "dddd`, `at most 63 bytes`}},
		{"uri scheme", "workload: kv\nuri: http://x\n", []string{`s.yaml:2: uri: "http://x" is not valid: want a MongoDB URI`}},
		{"tags scalar", "workload: kv\ntags: nightly\n", []string{`s.yaml:2: tags: a value is not valid: want a list of non-empty tags`}},
		{"tags nested", "workload: kv\ntags:\n  - a\n  - [b]\n", []string{`s.yaml:4: tags: a list is not valid`}},
		{"tags empty", "workload: kv\ntags: [a, '']\n", []string{`s.yaml:2: tags: "" is not valid: want a list of non-empty tags`}},
		{"params list", "workload: kv\nparams: [records]\n", []string{`s.yaml:2: params: a list is not valid: want a mapping of parameter names`}},
		{"unknown param", "workload: kv\nparams:\n  recrods: 5\n",
			[]string{`s.yaml:3: params: unknown kv parameter "recrods" (did you mean "records"? valid kv parameters: records, docSize, readPercent, mode, think, ordered, skew, collection)`}},
		{"param out of range", "workload: kv\nparams:\n  records: 0\n", []string{`s.yaml:3: params.records: "0" is not valid: want an integer between 1 and 100000000`}},
		{"param percent", "params:\n  readPercent: 120\nworkload: kv\n", []string{`s.yaml:2: params.readPercent: "120" is not valid: want a percentage between 0 and 100`}},
		{"param size", "workload: kv\nparams: {docSize: 32MB}\n", []string{`s.yaml:2: params.docSize: "32MB" is not valid: want a size between 16B and 16MB`}},
		{"param enum", "workload: kv\nparams: {mode: delete}\n", []string{`s.yaml:2: params.mode: "delete" is not valid: want one of insert, upsert`}},
		{"param list", "workload: kv\nparams: {records: [1]}\n", []string{`s.yaml:2: params.records: a list is not valid`}},
		{"param duplicate", "workload: kv\nparams:\n  records: 1\n  records: 2\n", []string{`s.yaml:4: params: duplicate key "records" (first at line 3)`}},
		{"results unknown", "workload: kv\nresults:\n  url: x\n", []string{`s.yaml:3: results: unknown key "url" (did you mean "uri"? valid keys: uri, file)`}},
		{"results uri", "workload: kv\nresults: {uri: localhost}\n", []string{`s.yaml:2: results.uri: "localhost" is not valid: want a MongoDB URI`}},
		{"results scalar", "workload: kv\nresults: out.jsonl\n", []string{`s.yaml:2: results: a value is not valid: want a mapping with keys uri and file`}},
		{"several problems", "workload: kv\nrate: fast\nthreads: 0\ndurration: 5s\n", []string{
			"s.yaml:2: rate: \"fast\" is not valid", "\ns.yaml:3: threads: \"0\" is not valid", "\ns.yaml:4: unknown key \"durration\""}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Parse("s.yaml", []byte(tc.in), testReg)
			if err == nil {
				t.Fatalf("Parse(%q) = %+v; want an error", tc.in, plain(s))
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("Parse(%q) error\n%v\nwant it to contain\n%s", tc.in, err, w)
				}
			}
			var e *Error
			if !errors.As(err, &e) || e.File != "s.yaml" || e.Line == 0 {
				t.Errorf("Parse(%q) error %#v; want an *Error with file and line", tc.in, e)
			}
		})
	}
}

func TestParseErrorNoDuplicates(t *testing.T) {
	// A value that fails to parse is reported once, not again by Validate.
	for _, in := range []string{"workload: [kv]\n", "workload: kv\nthreads: x\n", "workload: kv\nparams: {records: 0}\n", "workload: kv\ntags: [a, [b]]\n"} {
		_, err := Parse("s.yaml", []byte(in), testReg)
		if n := strings.Count(err.Error(), "\n") + 1; n != 1 {
			t.Errorf("Parse(%q) gave %d problems:\n%v\nwant 1", in, n, err)
		}
	}
}

func TestParseUnknownWorkloadSkipsParams(t *testing.T) {
	_, err := Parse("s.yaml", []byte("workload: nope\nparams: {records: 5}\n"), testReg)
	if err == nil || strings.Contains(err.Error(), "records") {
		t.Errorf("got %v; want only the workload error", err)
	}
}

func TestParseNilRegistry(t *testing.T) {
	_, err := Parse("", []byte("workload: kv\n"), nil)
	want := `<input>:1: workload: "kv" is not valid: want a registered name, but there are none`
	if err == nil || err.Error() != want {
		t.Errorf("Parse with a nil registry: got %v; want %s", err, want)
	}
}

func TestErrorClipsLongValues(t *testing.T) {
	e := &Error{Field: "rate", Value: strings.Repeat("x", 500), Want: "a rate"}
	if got := e.Error(); len(got) > 120 || !strings.Contains(got, `xxx..."`) {
		t.Errorf("Error() = %q; want the value clipped", got)
	}
}

func TestParseManyProblems(t *testing.T) {
	_, err := Parse("s.yaml", []byte(strings.Repeat("durration: 1\n", 100)), testReg)
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != maxProblems+1 || lines[maxProblems] != "s.yaml: and 81 more problems" {
		t.Errorf("got %d lines ending %q; want %d ending with the count of the rest", len(lines), lines[len(lines)-1], maxProblems+1)
	}
}
