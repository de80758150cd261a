package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// interleaveScenario writes a short read-only kv scenario file against
// uri with label (none when ""), and returns its path.
func interleaveScenario(t *testing.T, dir, name, uri, db, label string) string {
	t.Helper()
	y := fmt.Sprintf("workload: kv\nuri: %q\ndatabase: %s\nrate: 200/s\nthreads: 8\nduration: 1s\nwarmup: 200ms\nparams: {records: 200, readPercent: 100}\n", uri, db)
	if label != "" {
		y += "label: " + label + "\n"
	}
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(y), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// storedLabels counts the runs of a results file by label.
func storedLabels(t *testing.T, path string) map[string]int {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]int{}
	for _, l := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var d struct {
			ID struct{ Label string } `json:"_id"`
		}
		if err := json.Unmarshal([]byte(l), &d); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		out[d.ID.Label]++
	}
	return out
}

// TestInterleaveFindsARealChange runs compare --interleave on two sides
// that differ only by a loopback proxy adding 2 ms each way to B's
// operations (A goes through a proxy of its own that adds nothing): it
// calls B's read latency worse, stops at a look before --max-runs (looks
// at 5, 7, 10, 14 and 20 runs a side) with
// every metric decided, stores every run labelled by its side, and exits
// 99 with --fail-on-regression.
func TestInterleaveFindsARealChange(t *testing.T) {
	uri := testenv.URI(t)
	c := connect(t, uri)
	db := testenv.DBName(t)
	dropAfter(t, c, db)
	pa, pb := startProxy(t, hostOf(t, uri)), startProxy(t, hostOf(t, uri))
	pb.Latency(2 * time.Millisecond)
	dir := t.TempDir()
	a := interleaveScenario(t, dir, "a.yaml", proxied(t, uri, pa.Addr()), db, "")
	b := interleaveScenario(t, dir, "b.yaml", proxied(t, uri, pb.Addr()), db, "slow")
	results := filepath.Join(dir, "results.jsonl")
	// Every run counts (--include-invalid): a busy host may judge some
	// invalid, and this test is about the sequential statistics.
	o := mb(t, "compare", "--interleave", "--scenario", a, "--scenario", b, "--min-runs", "5", "--max-runs", "20",
		"--include-invalid", "--results-file", results, "--report-dir", "", "--fail-on-regression")
	for _, l := range strings.Split(o.stderr, "\n") {
		if strings.HasPrefix(l, "look ") {
			t.Log(l)
		}
	}
	t.Logf("interleaved:\n%s", o.stdout)
	wantCode(t, o, cli.ExitVerdict)
	first, _, _ := strings.Cut(strings.TrimSpace(o.stdout), "\n")
	if !strings.HasPrefix(first, "slow is significantly worse than a: ") || !strings.Contains(first, " read (+") {
		t.Errorf("the verdict does not come first naming slow's read latency worse: %q", first)
	}
	if !strings.Contains(o.stdout, "Every metric decided at look ") {
		t.Errorf("the comparison did not decide every metric:\n%s", o.stdout)
	}
	got := storedLabels(t, results)
	if got["a"] != got["slow"] || got["a"] < 5 || got["a"] >= 20 || len(got) != 2 {
		t.Errorf("runs stored by label %v: want as many a as slow, from 5 to fewer than --max-runs 20", got)
	}
	if !strings.Contains(o.stderr, "look 1 of 5 at 5 runs a side") {
		t.Errorf("no progress line of the first look:\n%s", o.stderr)
	}
}

// TestInterleaveAA runs compare --interleave on one scenario file twice
// (the same label, told apart as -a and -b): no metric is called worse or
// better, --fail-on-regression passes, and --json prints the comparison
// with every run of both sides.
func TestInterleaveAA(t *testing.T) {
	uri := testenv.URI(t)
	c := connect(t, uri)
	db := testenv.DBName(t)
	dropAfter(t, c, db)
	dir := t.TempDir()
	same := interleaveScenario(t, dir, "same.yaml", uri, db, "same")
	results := filepath.Join(dir, "results.jsonl")
	o := mb(t, "compare", "--interleave", "--scenario", same, "--scenario", same, "--min-runs", "5", "--max-runs", "7",
		"--results-file", results, "--report-dir", "", "--fail-on-regression", "--json")
	wantCode(t, o, cli.ExitOK)
	var got struct {
		Sides []struct {
			Name    string
			Runs    []string
			Counted []string
		}
		Look, Looks int
		Metrics     []struct{ Metric, Verdict string }
	}
	if err := json.Unmarshal([]byte(o.stdout), &got); err != nil || len(got.Sides) != 2 || len(got.Metrics) == 0 {
		t.Fatalf("compare --interleave --json: %v\n%s", err, o.stdout)
	}
	if got.Sides[0].Name != "same-a" || got.Sides[1].Name != "same-b" || len(got.Sides[0].Runs) != len(got.Sides[1].Runs) || len(got.Sides[0].Runs) < 5 {
		t.Errorf("sides %+v: want same-a and same-b with as many runs, at least 5", got.Sides)
	}
	if got.Look < 1 || got.Look > got.Looks || got.Looks != 2 {
		t.Errorf("stopped at look %d of %d, want one of 2", got.Look, got.Looks)
	}
	for _, m := range got.Metrics {
		if m.Verdict == "worse" || m.Verdict == "better" {
			t.Errorf("A/A: %s judged %s", m.Metric, m.Verdict)
		}
	}
	if n := storedLabels(t, results); n["same-a"] != len(got.Sides[0].Runs) || n["same-b"] != len(got.Sides[1].Runs) {
		t.Errorf("runs stored by label %v, want the sides' runs", n)
	}
}
