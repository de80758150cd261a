package cli_test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
	"github.com/mongobench/mongobench/internal/ycsb"
)

// workloadFiles holds YCSB 0.17's six core workload property files,
// written in YCSB's format.
var workloadFiles = filepath.Join("..", "ycsbprops", "testdata", "workloads")

// ycsbDoc is the part of a stored YCSB result these tests read.
type ycsbDoc struct {
	ID struct {
		Testname string `json:"testname"`
	} `json:"_id"`
	Variant map[string]any `json:"variant"`
	Ops     []struct {
		Name   string `json:"name"`
		Count  int64  `json:"count"`
		Errors struct {
			Total int64 `json:"total"`
		} `json:"errors"`
	} `json:"ops"`
	Notes []string `json:"notes"`
}

func parseYCSBDoc(t *testing.T, stdout string) ycsbDoc {
	t.Helper()
	var d ycsbDoc
	if err := json.Unmarshal([]byte(stdout), &d); err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%s", err, stdout)
	}
	return d
}

// TestYCSBWorkloadFiles runs each of YCSB's six core workload files
// with -P, as YCSB's users do, and checks that the stored result is the
// preset's: the same test name, every YCSB property (operation mix, key
// distribution, record shape) at the preset's value, operationcount's
// 1000 operations, and counts per operation type that fit the mix.
func TestYCSBWorkloadFiles(t *testing.T) {
	uri := testenv.URI(t)
	db := testenv.DBName(t)
	dropAfter(t, connect(t, uri), db)
	results := filepath.Join(t.TempDir(), "results.jsonl")
	for _, letter := range ycsb.PresetNames() {
		t.Run("workload"+letter, func(t *testing.T) {
			o := mb(t, "run", "-P", filepath.Join(workloadFiles, "workload"+letter), "-p", "threadcount=2",
				"--uri", uri, "--database", db, "--results-file", results, "--no-report", "--json")
			wantCode(t, o, cli.ExitOK)
			d := parseYCSBDoc(t, o.stdout)
			preset, _ := ycsb.Preset(letter)
			if want := "ycsb-" + letter; d.ID.Testname != want {
				t.Errorf("test name: got %q, want %q", d.ID.Testname, want)
			}
			for _, name := range ycsb.Names() {
				want, _ := preset.Get(name)
				if got := variantText(d.Variant[name]); got != want {
					t.Errorf("variant.%s: got %s, want the preset's %s", name, got, want)
				}
			}
			if got := variantText(d.Variant["numberOfThreads"]); got != "2" {
				t.Errorf("variant.numberOfThreads: got %s, want 2 (threadcount)", got)
			}
			checkMix(t, d, preset)
		})
	}
}

// variantText renders a stored variant value as ycsb.Properties.Get does.
func variantText(v any) string {
	switch v := v.(type) {
	case float64:
		return strconv.FormatFloat(v, 'g', -1, 64)
	case bool:
		return strconv.FormatBool(v)
	case string:
		return v
	}
	return "missing"
}

// checkMix checks that the run made operationcount operations without
// errors, none of a type the mix leaves out, and each type's count within
// five standard deviations of its share.
func checkMix(t *testing.T, d ycsbDoc, p ycsb.Properties) {
	t.Helper()
	share := map[string]float64{
		ycsb.Read.String(): p.ReadProportion, ycsb.Update.String(): p.UpdateProportion,
		ycsb.Insert.String(): p.InsertProportion, ycsb.Scan.String(): p.ScanProportion,
		ycsb.ReadModifyWrite.String(): p.ReadModifyWriteProportion,
	}
	var total int64
	for _, op := range d.Ops {
		total += op.Count
		if op.Errors.Total != 0 {
			t.Errorf("%s: %d errors, want none", op.Name, op.Errors.Total)
		}
	}
	if total != p.OperationCount {
		t.Fatalf("operations: got %d, want operationcount %d", total, p.OperationCount)
	}
	n := float64(total)
	for _, op := range d.Ops {
		s, ok := share[op.Name]
		if !ok {
			t.Errorf("unexpected operation type %s", op.Name)
			continue
		}
		mean, sd := n*s, math.Sqrt(n*s*(1-s))
		if math.Abs(float64(op.Count)-mean) > 5*sd+0.5 {
			t.Errorf("%s: %d of %d operations, want about %.0f (share %g)", op.Name, op.Count, total, mean, s)
		}
	}
}

// TestYCSBPropertiesClient checks the client properties end to end: the
// load phase's threadcount is its loaders, a run over that load
// (load=false) takes its connection string options from the properties,
// -p overrides a file, and the workload is the preset closest to the
// properties.
func TestYCSBPropertiesClient(t *testing.T) {
	uri := testenv.URI(t)
	db := testenv.DBName(t)
	dropAfter(t, connect(t, uri), db)
	dir := t.TempDir()
	results := filepath.Join(dir, "results.jsonl")
	mine := filepath.Join(dir, "mine.properties")
	props := "# a YCSB user's own settings\nmongodb.url=" + uri + "\nrecordcount=300\n" +
		"mongodb.readPreference=primary_preferred\nmongodb.writeConcern=majority\n" +
		"operationcount=200\nreadproportion=0.9\nupdateproportion=0.1\nlabel=from-properties\n"
	if err := os.WriteFile(mine, []byte(props), 0o600); err != nil {
		t.Fatal(err)
	}
	workloadb := filepath.Join(workloadFiles, "workloadb")

	o := mb(t, "load", "-P", workloadb, "-P", mine, "-p", "threadcount=3", "-p", "batchsize=50",
		"--database", db, "--results-file", results, "--report-dir", "")
	wantCode(t, o, cli.ExitOK)
	if !strings.Contains(o.stderr, "3 loaders, 6 batches of up to 50 records") {
		t.Errorf("load: want 3 loaders and 6 batches of 50 of the 300 records\n%s", o)
	}

	o = mb(t, "run", "-P", workloadb, "-P", mine, "-p", "readproportion=1", "-p", "updateproportion=0", "-p", "load=false",
		"--database", db, "--results-file", results, "--no-report", "--json")
	wantCode(t, o, cli.ExitOK)
	d := parseYCSBDoc(t, o.stdout)
	// -p overrides the files; a read-only mix is workload C's, the
	// preset closest to the properties.
	if d.ID.Testname != "ycsb-c" || variantText(d.Variant["readproportion"]) != "1" || variantText(d.Variant["recordcount"]) != "300" {
		t.Errorf("got test %s with variant %v, want ycsb-c with readproportion 1 and recordcount 300", d.ID.Testname, d.Variant)
	}
	if !strings.Contains(o.stderr, "readPreference=primaryPreferred&w=majority") {
		t.Errorf("the target's URI does not carry the properties' options\n%s", o.stderr)
	}
	if !strings.Contains(strings.Join(d.Notes, "\n"), "readPreference=primaryPreferred") {
		t.Errorf("notes: got %q, want the note that the driver runs the operations for the read preference", d.Notes)
	}
	p, _ := ycsb.Preset("c")
	p.OperationCount = 200
	checkMix(t, d, p)
}

// TestYCSBPropertyFileErrors checks that a bad property file is refused
// before anything connects, naming the file and line, with exit code 2.
func TestYCSBPropertyFileErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad")
	text := "# YCSB settings\nthreadcount=4\n\ndb=site.ycsb.BasicDB\nreadproportoin=0.5\nmeasurementtype=timeseries\n"
	if err := os.WriteFile(bad, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	workloada := filepath.Join(workloadFiles, "workloada")
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"run", "-P", workloada, "-P", bad}, []string{
			bad + `:4: db: "site.ycsb.BasicDB" is not supported`,
			bad + `:5: unknown YCSB property "readproportoin" (did you mean "readproportion"?)`,
			bad + `:6: measurementtype: "timeseries" is not supported`}},
		{[]string{"run", "-P", filepath.Join(dir, "nosuch")}, []string{"-P " + filepath.Join(dir, "nosuch") + ": cannot read the property file"}},
		{[]string{"run", "-P", workloada, "scenario.yaml"}, []string{"-P: YCSB property files take the place of a scenario file"}},
		{[]string{"run", "-P", workloada, "--workload", "kv"}, []string{`--workload: "kv" is not valid`}},
		{[]string{"run", "-P", workloada, "-p", "threadcount"}, []string{`-p: "threadcount" is not valid: want name=value`}},
		{[]string{"sweep", "-P", workloada, "-p", "target=1000", "--rate", "100"}, []string{"-p target: not supported: sweep sets the rate of each step (--rate)"}},
		{[]string{"calibrate", "-P", workloada, "-p", "threadcount=8"}, []string{"-p threadcount: not supported by calibrate"}},
		{[]string{"load", "-P", workloada, "-p", "target=1000"}, []string{"-p target: not supported: 'mongobench load' inserts as fast as its loaders go"}},
	}
	for _, c := range cases {
		o := mb(t, c.args...)
		wantCode(t, o, cli.ExitUsage)
		for _, w := range c.want {
			if !strings.Contains(o.stderr, w) {
				t.Errorf("%q: stderr lacks %q\n%s", c.args, w, o.stderr)
			}
		}
	}
}
