package cli_test

import (
	"cmp"
	"context"
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
		"--rate", "auto", "--start", "200", "--factor", "4", "--max", "100000", "--duration", "2s", "--warmup", "1s",
		"--results-file", file, "--report-dir", filepath.Join(dir, "reports"))
	wantCode(t, o, cli.ExitOK)
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
	t.Logf("%s", o.stdout)
}

// TestSweepRepeat runs two listed rates twice each: the spread table
// prints and the four runs are stored side by side.
func TestSweepRepeat(t *testing.T) {
	uri := testenv.URI(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "results.jsonl")
	db := testenv.DBName(t)
	dropAfter(t, connect(t, uri), db)
	o := mb(t, "sweep", "--uri", uri, "--database", db, "--workload", "kv", "-p", "records=500",
		"--rate", "100,200", "--repeat", "2", "--sla", "500ms", "--duration", "1s", "--warmup", "1s",
		"--results-file", file, "--report-dir", filepath.Join(dir, "reports"))
	wantCode(t, o, cli.ExitOK)
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
	if err != nil || len(docs) != 4 {
		t.Fatalf("stored runs: got %d (%v), want 2 rates × 2 runs = 4", len(docs), err)
	}
}

func TestSweepBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"sweep", "--rate", "100"},                                      // no --workload
		{"sweep", "--workload", "kv"},                                   // no --rate
		{"sweep", "--workload", "kv", "--rate", "-5"},                   // bad rate
		{"sweep", "--workload", "kv", "--rate", "100", "--sla", "fast"}, // bad SLA
		{"sweep", "--workload", "kv", "--rate", "100", "--repeat", "0"},
		{"sweep", "--workload", "kv", "--rate", "auto", "--factor", "1"},
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
