package ycsbprops

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/workload/builtin"
	"github.com/mongobench/mongobench/internal/ycsb"
)

// props parses a property file given as text.
func props(t *testing.T, file, text string) []Property {
	t.Helper()
	ps, err := Parse(file, []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// workloadFile reads one of the six core workload files, written in
// YCSB's format (testdata/workloads).
func workloadFile(t *testing.T, letter string) []Property {
	t.Helper()
	path := filepath.Join("testdata", "workloads", "workload"+letter)
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := Parse(path, data)
	if err != nil {
		t.Fatal(err)
	}
	return ps
}

// scenario builds and validates the scenario of a workload and its -p
// assignments, as run does.
func scenario(t *testing.T, workload string, params []string) *spec.Scenario {
	t.Helper()
	reg := builtin.Registry()
	sc := &spec.Scenario{Workload: workload}
	for _, a := range params {
		if err := sc.SetParam(reg, a); err != nil {
			t.Fatal(err)
		}
	}
	if err := sc.Validate(reg); err != nil {
		t.Fatal(err)
	}
	return sc
}

// TestCoreWorkloadFiles checks that YCSB's six core workload files
// describe exactly the presets: the same workload, no parameter changed,
// the same scenario parameters and the same YCSB properties (operation
// mix, key distribution, scan lengths, record shape), and that
// operationcount bounds the run as in YCSB.
func TestCoreWorkloadFiles(t *testing.T) {
	reg := builtin.Registry()
	for _, letter := range ycsb.PresetNames() {
		t.Run("workload"+letter, func(t *testing.T) {
			s, err := Resolve(Run, workloadFile(t, letter), "", reg)
			if err != nil {
				t.Fatal(err)
			}
			if want := "ycsb-" + letter; s.Workload != want || len(s.Params) != 0 {
				t.Fatalf("got workload %s with parameters %q, want %s with none", s.Workload, s.Params, want)
			}
			if s.Ops != 1000 || s.Threads != 0 || s.Rate != 0 || s.Duration != 0 || s.URI != "" || len(s.Options) != 0 {
				t.Errorf("client settings: got %+v, want only 1000 operations", s)
			}
			fromFile := scenario(t, s.Workload, s.Params)
			preset := scenario(t, "ycsb-"+letter, nil)
			if !maps.Equal(fromFile.Params, preset.Params) {
				t.Errorf("parameters: got %v, want the preset's %v", fromFile.Params, preset.Params)
			}
			got, err := ycsb.FromParams(s.Workload, fromFile.Params)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := ycsb.Preset(letter)
			if got != want {
				t.Errorf("properties: got %+v, want the preset's %+v", got, want)
			}
			// With the workload flag the file changes nothing either.
			if s2, err := Resolve(Run, workloadFile(t, letter), "ycsb-"+letter, reg); err != nil || s2.Workload != s.Workload || len(s2.Params) != 0 {
				t.Errorf("with --workload ycsb-%s: got %+v, %v", letter, s2, err)
			}
		})
	}
}

// TestCoreWorkloadDefaults checks that properties a file leaves out take
// CoreWorkload's defaults, as in YCSB, not a preset's.
func TestCoreWorkloadDefaults(t *testing.T) {
	reg := builtin.Registry()
	s, err := Resolve(Run, props(t, "mine", "workload=site.ycsb.workloads.CoreWorkload\nrecordcount=500\n"), "", reg)
	if err != nil {
		t.Fatal(err)
	}
	sc := scenario(t, s.Workload, s.Params)
	got, err := ycsb.FromParams(s.Workload, sc.Params)
	if err != nil {
		t.Fatal(err)
	}
	want := ycsb.Defaults()
	want.RecordCount = 500
	if got != want {
		t.Errorf("got %+v (%s %q), want CoreWorkload's defaults with recordcount 500 %+v", got, s.Workload, s.Params, want)
	}
	if s.Workload != "ycsb-b" {
		t.Errorf("workload: got %s, want ycsb-b, the preset closest to CoreWorkload's defaults", s.Workload)
	}
}

// TestOrder checks YCSB's order: later files override earlier ones, and
// -p overrides any file; an error names the property that counts.
func TestOrder(t *testing.T) {
	reg := builtin.Registry()
	ps := slices.Concat(workloadFile(t, "a"),
		props(t, "more", "readproportion=0.8\nupdateproportion=0.2\nthreadcount=4\n"),
		[]Property{{Name: "updateproportion", Value: "0.1"}, {Name: "scanproportion", Value: "0.1"}})
	s, err := Resolve(Run, ps, "", reg)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"readproportion=0.8", "updateproportion=0.1", "scanproportion=0.1"}
	if s.Workload != "ycsb-a" || !sameSet(s.Params, want) || s.Threads != 4 {
		t.Errorf("got %s %q threads %d, want ycsb-a %q threads 4", s.Workload, s.Params, s.Threads, want)
	}
	ps = append(ps, Property{Name: "threadcount", Value: "x", File: "last", Line: 7})
	if _, err := Resolve(Run, ps, "", reg); err == nil || !strings.Contains(err.Error(), `last:7: threadcount: "x" is not valid`) {
		t.Errorf("got %v, want the error at last:7", err)
	}
}

func sameSet(a, b []string) bool {
	return reflect.DeepEqual(slices.Sorted(slices.Values(a)), slices.Sorted(slices.Values(b)))
}

// TestClientProperties checks the mapping of YCSB's client properties to
// mongobench's settings.
func TestClientProperties(t *testing.T) {
	reg := builtin.Registry()
	file := `threadcount=16
target=2000
operationcount=0
maxexecutiontime=90
mongodb.url=mongodb://db1:27017,db2:27017/ycsb?replicaSet=rs0
mongodb.writeConcern=majority
mongodb.readPreference=secondary_preferred
mongodb.maxconnections=50
measurementtype=hdrhistogram
measurement.interval=both
db=site.ycsb.db.MongoDbClient
dotransactions=true
status=true
label=m6i.large
mongodb.upsert=false
loaders=8
batchsize=500
`
	s, err := Resolve(Run, slices.Concat(workloadFile(t, "b"), props(t, "client", file)), "", reg)
	if err != nil {
		t.Fatal(err)
	}
	want := Settings{
		Workload: "ycsb-b", Params: []string{"operationcount=0", "loaders=8", "batchSize=500"},
		Threads: 16, Rate: 2000, Duration: spec.Duration(90 * time.Second),
		URI: "mongodb://db1:27017,db2:27017/ycsb?replicaSet=rs0", Label: "m6i.large",
		Options: []Option{{"w", "majority"}, {"readPreference", "secondaryPreferred"}, {"maxPoolSize", "50"}},
	}
	if !reflect.DeepEqual(s, want) {
		t.Errorf("got  %+v\nwant %+v", s, want)
	}
}

// TestCommands checks what a client property means per command.
func TestCommands(t *testing.T) {
	reg, loads := builtin.Registry(), builtin.YCSBLoads()
	s, err := Resolve(Load, slices.Concat(workloadFile(t, "a"), props(t, "p", "threadcount=8\ndotransactions=false\nbatchsize=100")), "", loads)
	if err != nil {
		t.Fatal(err)
	}
	if s.Workload != "ycsb-a" || s.Threads != 0 || s.Ops != 0 || !sameSet(s.Params, []string{"loaders=8", "batchSize=100"}) {
		t.Errorf("load: got %+v, want ycsb-a with loaders=8 batchSize=100", s)
	}
	s, err = Resolve(Load, props(t, "p", "threadcount=8\nloaders=2"), "ycsb-a", loads)
	if err != nil || !reflect.DeepEqual(s.Params, []string{"loaders=2"}) {
		t.Errorf("load with loaders: got %q, %v, want loaders=2 (mongobench's own parameter wins over threadcount)", s.Params, err)
	}
	s, err = Resolve(Sweep, slices.Concat(workloadFile(t, "b"), props(t, "p", "threadcount=32\nmaxexecutiontime=20\ntarget=0")), "", reg)
	if err != nil {
		t.Fatal(err)
	}
	if s.Threads != 32 || s.Duration != spec.Duration(20*time.Second) || s.Ops != 0 || s.Rate != 0 {
		t.Errorf("sweep: got %+v, want 32 threads, 20s steps, no operation count", s)
	}
	refusedBy := []struct {
		cmd  Command
		prop string
		want string
	}{
		{Load, "target=100", "target: not supported: 'mongobench load' inserts as fast as its loaders go"},
		{Load, "maxexecutiontime=60", "maxexecutiontime: not supported by 'mongobench load'"},
		{Load, "dotransactions=true", "dotransactions: the transaction phase is 'mongobench run'"},
		{Load, "threadcount=300", `threadcount: "300" is not valid: want an integer between 1 and 256`},
		{Run, "dotransactions=false", "dotransactions: the load phase is 'mongobench load'"},
		{Sweep, "target=100", "target: not supported: sweep sets the rate of each step (--rate)"},
		{Calibrate, "threadcount=4", "threadcount: not supported by calibrate"},
		{Calibrate, "target=100", "target: not supported: calibrate runs closed loop"},
	}
	for _, c := range refusedBy {
		r := reg
		if c.cmd == Load {
			r = loads
		}
		_, err := Resolve(c.cmd, props(t, "w", c.prop), "ycsb-a", r)
		if err == nil || !strings.HasPrefix(err.Error(), "w:1: "+c.want) {
			t.Errorf("%s %s: got %v, want w:1: %s", c.cmd, c.prop, err, c.want)
		}
	}
}

// TestRefused checks that properties that cannot apply, unknown ones and
// bad values are refused by name, located, with a reason or what would
// be valid.
func TestRefused(t *testing.T) {
	reg := builtin.Registry()
	cases := []struct{ prop, want string }{
		{"db=site.ycsb.BasicDB", `w:1: db: "site.ycsb.BasicDB" is not supported: mongobench benchmarks MongoDB: want YCSB's MongoDB binding`},
		{"workload=site.ycsb.workloads.RestWorkload", `w:1: workload: "site.ycsb.workloads.RestWorkload" is not supported: mongobench implements YCSB's CoreWorkload`},
		{"exporter=site.ycsb.measurements.exporter.JSONMeasurementsExporter", "w:1: exporter: not supported: results are stored as documents"},
		{"measurementtype=timeseries", `w:1: measurementtype: "timeseries" is not supported: mongobench records HDR histograms`},
		{"hdrhistogram.percentiles=50,99", "w:1: hdrhistogram.percentiles: not supported: the summary shows fixed percentiles"},
		{"mongodb.upsert=true", `w:1: mongodb.upsert: "true" is not supported: inserts are inserts`},
		{"htrace.sampler.classes=x", "w:1: htrace.sampler.classes: not supported"},
		{"status.interval=5", "w:1: status.interval: not supported: the interval of the status line is mongobench's --status-interval"},
		{"readproportoin=0.5", `w:1: unknown YCSB property "readproportoin" (did you mean "readproportion"?)`},
		{"ReadProportion=0.5", `w:1: unknown YCSB property "ReadProportion" (did you mean "readproportion"?)`},
		{"threadcount=0", `w:1: threadcount: "0" is not valid: want an integer between 1 and 10000`},
		{"readproportion=1.5", `w:1: readproportion: "1.5" is not a number in [0, 1]`},
		{"requestdistribution=exponential", `w:1: requestdistribution: "exponential" is not one of uniform, zipfian, latest, hotspot, sequential`},
		{"fieldcount=20000", `w:1: fieldcount: "20000" is not valid: want an integer between 1 and 10000`},
		{"maxexecutiontime=-1", `w:1: maxexecutiontime: "-1" is not valid: want seconds`},
		{"mongodb.url=http://user:secret@db1/", `w:1: mongodb.url: "…@db1/" is not valid: want a MongoDB URI`},
		{"mongodb.writeConcern=fsync_safe", `w:1: mongodb.writeConcern: "fsync_safe" is not valid: want unacknowledged, acknowledged`},
		{"measurement.interval=never", `w:1: measurement.interval: "never" is not valid: want op, intended or both`},
		{"insertstart=900\ninsertcount=200", "YCSB properties: recordcount (1000) must be at least insertstart + insertcount (900 + 200)"},
	}
	for _, c := range cases {
		_, err := Resolve(Run, props(t, "w", c.prop), "ycsb-a", reg)
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: got %v, want one line with %s", c.prop, err, c.want)
		}
		if err != nil && strings.Contains(err.Error(), "secret") {
			t.Errorf("%s: the error repeats the password: %v", c.prop, err)
		}
	}
	// Accepted at the value that changes nothing.
	for _, ok := range []string{"mongodb.upsert=false", "dataintegrity=false", "core_workload_insertion_retry_limit=0", "measurement.trackjvm=false", "target=0"} {
		if _, err := Resolve(Run, props(t, "w", ok), "ycsb-a", reg); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	// Every problem is reported, each on its line.
	_, err := Resolve(Run, props(t, "w", "threadcount=x\ndb=redis\nfoo=1"), "", reg)
	if err == nil || strings.Count(err.Error(), "\n") != 2 {
		t.Errorf("got %v, want three problems", err)
	}
	for _, w := range []string{"kv", "ycsb-z", "ycsb-ab"} {
		if _, err := Resolve(Run, nil, w, reg); err == nil || !strings.HasPrefix(err.Error(), "--workload: ") {
			t.Errorf("--workload %s: got %v, want an error naming --workload", w, err)
		}
	}
}

// TestNamesAreKnown checks that every name Names lists is handled.
func TestNamesAreKnown(t *testing.T) {
	for _, n := range append(Names(), "htrace.x") {
		_, err := Resolve(Run, []Property{{Name: n, Value: "x"}}, "ycsb-a", builtin.Registry())
		if err != nil && strings.Contains(err.Error(), "unknown YCSB property") {
			t.Errorf("%s: %v", n, err)
		}
	}
}

func TestWithOptions(t *testing.T) {
	opts := []Option{{"w", "majority"}, {"readPreference", "nearest"}}
	cases := []struct{ in, want string }{
		{"mongodb://h:1", "mongodb://h:1/?w=majority&readPreference=nearest"},
		{"mongodb://h:1/", "mongodb://h:1/?w=majority&readPreference=nearest"},
		{"mongodb://h:1/db", "mongodb://h:1/db?w=majority&readPreference=nearest"},
		{"mongodb://h:1/?directConnection=true", "mongodb://h:1/?directConnection=true&w=majority&readPreference=nearest"},
		{"mongodb://h:1/?W=1", "mongodb://h:1/?W=1&readPreference=nearest"},
		{"mongodb://h/?w=1&readpreference=primary", "mongodb://h/?w=1&readpreference=primary"},
		{"mongodb://h/?", "mongodb://h/?w=majority&readPreference=nearest"},
		{"mongodb+srv://c.example.net", "mongodb+srv://c.example.net/?w=majority&readPreference=nearest"},
	}
	for _, c := range cases {
		if got := WithOptions(c.in, opts); got != c.want {
			t.Errorf("WithOptions(%q): got %q, want %q", c.in, got, c.want)
		}
	}
	if got := WithOptions("mongodb://h", nil); got != "mongodb://h" {
		t.Errorf("no options: got %q", got)
	}
}

func ExampleResolve() {
	file := "workload=site.ycsb.workloads.CoreWorkload\nrecordcount=100000\noperationcount=50000\n" +
		"readproportion=0.5\nupdateproportion=0.5\nrequestdistribution=zipfian\n"
	ps, _ := Parse("workloads/mine", []byte(file))
	ps = append(ps, Property{Name: "threadcount", Value: "32"})
	s, err := Resolve(Run, ps, "", builtin.Registry())
	fmt.Println(s.Workload, s.Params, s.Threads, s.Ops, err)
	// Output: ycsb-a [operationcount=50000 recordcount=100000] 32 50000 <nil>
}

// A property file of 200,000 unknown keys reports twenty and counts
// the rest; a 2MB key or value is echoed cut.
func TestManyProblemsAreCounted(t *testing.T) {
	var b strings.Builder
	for i := range 200_000 {
		fmt.Fprintf(&b, "nosuchkey%d=1\n", i)
	}
	reg := builtin.Registry()
	_, err := Resolve(Run, props(t, "big.properties", b.String()), "ycsb-a", reg)
	if err == nil {
		t.Fatal("no error")
	}
	lines := strings.Split(err.Error(), "\n")
	if len(lines) != 21 || lines[20] != "and 199980 more problems" ||
		!strings.HasPrefix(lines[0], `big.properties:1: unknown YCSB property "nosuchkey0"`) {
		t.Errorf("got %d lines, the first %q and the last %q; want 21 lines ending with the count of the rest", len(lines), lines[0], lines[len(lines)-1])
	}

	huge := strings.Repeat("k", 2<<20)
	for _, text := range []string{huge + "=1\n", "mongodb.url=" + huge + "\n", "measurementtype=" + huge + "\n"} {
		_, err := Resolve(Run, props(t, "huge.properties", text), "ycsb-a", reg)
		if err == nil || len(err.Error()) > 1000 {
			t.Errorf("got an error of %d bytes, want a short one", len(err.Error()))
		}
	}
}
