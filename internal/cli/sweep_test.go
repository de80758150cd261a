package cli_test

import (
	"cmp"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
	"github.com/mongobench/mongobench/internal/texttable"
)

// TestSweepAuto grows the rate by 4 from 200/s until a step no longer
// holds on the shared test server, then bisects: some step fails, the
// saturation line prints, and every step is its own stored run of one
// sweep.
func TestSweepAuto(t *testing.T) {
	uri := testenv.URI(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "results.jsonl")
	db := testenv.DBName(t)
	dropAfter(t, connect(t, uri), db)
	start := time.Now()
	o := mb(t, "sweep", "--uri", uri, "--database", db, "--workload", "kv", "-p", "records=500",
		"--rate", "auto", "--start-rate", "200", "--rate-factor", "4", "--max-rate", "100000", "--duration", "2s", "--warmup", "1s",
		"--results-file", file, "--report-dir", filepath.Join(dir, "reports"))
	wantEnded(t, o)
	if took := time.Since(start); took > time.Minute {
		t.Errorf("sweep took %s, want well under a minute", took)
	}
	for _, want := range []string{"target/s", "achieved/s", "p99 ms", "Saturation throughput: ", "❌", "report: "} {
		if !strings.Contains(o.stdout+o.stderr, want) {
			t.Errorf("output lacks %q:\n%s", want, o)
		}
	}
	docs, err := store.NewFile(file).List(context.Background(), 0)
	if err != nil || len(docs) < 2 {
		t.Fatalf("stored runs: got %d (%v), want one per step, at least 2", len(docs), err)
	}
	var steps []study.Step
	for i := range docs {
		s, err := study.StepOf(&docs[i])
		if err != nil {
			t.Fatal(err)
		}
		if docs[i].TestName != "kv" || s.Sweep == "" || s.Sweep != steps0(t, docs).Sweep {
			t.Errorf("run %s: test %q, sweep %q; want kv and one sweep id", s.RunID, docs[i].TestName, s.Sweep)
		}
		steps = append(steps, s)
	}
	slices.SortFunc(steps, func(a, b study.Step) int { return cmp.Compare(a.Index, b.Index) })
	for i, s := range steps {
		if s.Index != i+1 {
			t.Errorf("steps: got numbers %v, want 1..%d", steps, len(steps))
			break
		}
	}
	if steps[0].Rate != 200 || steps[1].Rate != 800 {
		t.Errorf("rates: got %v then %v, want 200 then 800", steps[0].Rate, steps[1].Rate)
	}
	held := 0
	for _, l := range study.Levels(steps, study.Criteria{MaxErrors: 0.01}) {
		if l.Holds() {
			held++
		}
	}
	if held == len(steps) {
		t.Errorf("every step held: the sweep found no saturation point\n%s", o)
	}
	wantVerdict(t, o, held > 0)
	t.Logf("%s", o.stdout)
}

// TestSweepRepeat runs two listed rates three times each: the spread
// table prints a row per rate over its three runs, and each row's p99
// minimum, maximum and stability flag (❌ and how far apart when the p99s
// vary by more than 10%, else ✅) agree with the stored runs, recomputed
// here from each run's highest p99 over its operation types. The six runs
// are stored side by side, and the report carries the table.
func TestSweepRepeat(t *testing.T) {
	uri := testenv.URI(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "results.jsonl")
	db := testenv.DBName(t)
	dropAfter(t, connect(t, uri), db)
	o := mb(t, "sweep", "--uri", uri, "--database", db, "--workload", "kv", "-p", "records=500",
		"--rate", "100,200", "--repeat", "3", "--p99", "500ms", "--duration", "1s", "--warmup", "1s",
		"--results-file", file, "--report-dir", filepath.Join(dir, "reports"))
	wantEnded(t, o)
	for _, want := range []string{"achieved mean/s", "CV", "p99 mean ms", "p99 stable", "Saturation throughput: ", "Maximum throughput that held"} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, o)
		}
	}
	reports, _ := filepath.Glob(filepath.Join(dir, "reports", "charts", "sweep-*-sweep-*.svg"))
	if len(reports) != 2 {
		t.Errorf("sweep charts: got %v, want sweep-throughput and sweep-p99", reports)
	}
	docs, err := store.NewFile(file).List(context.Background(), 0)
	if err != nil || len(docs) != 6 {
		t.Fatalf("stored runs: got %d (%v), want 2 rates × 3 runs = 6", len(docs), err)
	}
	p99s := map[string][]float64{}
	for _, d := range docs {
		if d.Schedule.TargetRate == nil {
			t.Fatalf("run %s has no target rate", d.RunID)
		}
		worst := -1.0
		for _, op := range d.Ops {
			if op.Latency.P99 != nil {
				worst = max(worst, *op.Latency.P99)
			}
		}
		if worst < 0 {
			t.Fatalf("run %s recorded no p99", d.RunID)
		}
		rate := texttable.Thousands(*d.Schedule.TargetRate)
		p99s[rate] = append(p99s[rate], worst)
	}
	for _, rate := range []string{"100", "200"} {
		row := spreadRow(t, o.stdout, rate)
		if len(p99s[rate]) != 3 || row[1] != "3" {
			t.Errorf("rate %s: %d stored runs, %s in the table; want 3", rate, len(p99s[rate]), row[1])
			continue
		}
		lo, hi := slices.Min(p99s[rate]), slices.Max(p99s[rate])
		if row[9] != texttable.Sig3(lo) || row[10] != texttable.Sig3(hi) {
			t.Errorf("rate %s: p99 min/max %s/%s in the table, %s/%s from the stored runs", rate, row[9], row[10], texttable.Sig3(lo), texttable.Sig3(hi))
		}
		flag := strings.Join(row[12:], " ")
		want := "✅"
		if v := hi/lo - 1; v > study.P99Variation {
			want = "❌ " + texttable.Sig3(v*100) + "% apart"
		}
		if flag != want {
			t.Errorf("rate %s: p99 stable %q, want %q (p99s %v)", rate, flag, want, p99s[rate])
		}
		t.Logf("rate %s: p99s %v → %s", rate, p99s[rate], flag)
	}
	var steps []study.Step
	for i := range docs {
		s, err := study.StepOf(&docs[i])
		if err != nil {
			t.Fatal(err)
		}
		steps = append(steps, s)
	}
	_, held := study.MaxAtSLA(steps, study.Criteria{SLA: 500 * time.Millisecond, MaxErrors: 0.01})
	wantVerdict(t, o, held)
	md, err := filepath.Glob(filepath.Join(dir, "reports", "sweep-*.md"))
	if err != nil || len(md) != 1 {
		t.Fatalf("sweep report: got %v (%v), want one", md, err)
	}
	if b, _ := os.ReadFile(md[0]); !strings.Contains(string(b), "| p99 stable |") {
		t.Errorf("the sweep report lacks the spread table:\n%s", b)
	}
}

// spreadRow returns the fields of the spread table's row for rate (its
// first column), failing the test when there is none.
func spreadRow(t *testing.T, out, rate string) []string {
	t.Helper()
	inTable := false
	for _, line := range strings.Split(out, "\n") {
		f := strings.Fields(line)
		switch {
		case strings.Contains(line, "p99 stable"):
			inTable = true
		case inTable && len(f) == 0:
			inTable = false
		case inTable && f[0] == rate && len(f) >= 13:
			return f
		}
	}
	t.Fatalf("no spread row for rate %s in:\n%s", rate, out)
	return nil
}

func TestSweepBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"sweep", "--rate", "100"},                                      // no --workload
		{"sweep", "--workload", "kv"},                                   // no --rate
		{"sweep", "--workload", "kv", "--rate", "-5"},                   // bad rate
		{"sweep", "--workload", "kv", "--rate", "100", "--p99", "fast"}, // bad SLA
		{"sweep", "--workload", "kv", "--rate", "100", "--repeat", "0"},
		{"sweep", "--workload", "kv", "--rate", "auto", "--rate-factor", "1"},
		{"sweep", "--workload", "nope", "--rate", "100"},
		{"sweep", "--workload", "kv", "--rate", "100", "-p", "nope=1"},
	} {
		o := mb(t, args...)
		wantCode(t, o, cli.ExitUsage)
		wantQuick(t, o, usageFast)
	}
}

func steps0(t *testing.T, docs []result.Doc) study.Step {
	t.Helper()
	s, err := study.StepOf(&docs[0])
	if err != nil {
		t.Fatal(err)
	}
	return s
}
