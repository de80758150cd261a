package cli_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/server"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// TestCalibrate doubles the threads of a closed-loop kv run from 1 to at
// most 4: every step is a stored closed-loop run of one calibration, and
// the table and the knee (or its absence) print.
func TestCalibrate(t *testing.T) {
	uri := testenv.URI(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "results.jsonl")
	db := testenv.DBName(t)
	dropAfter(t, connect(t, uri), db)
	o := mb(t, "calibrate", "--uri", uri, "--database", db, "--workload", "kv", "-p", "records=500",
		"--max-threads", "4", "--duration", "1s", "--warmup", "1s", "--results-file", file, "--report-dir", filepath.Join(dir, "reports"))
	wantCode(t, o, cli.ExitOK)
	for _, want := range []string{"threads", "achieved/s", "gain", "p99 ms", "report: "} {
		if !strings.Contains(o.stdout+o.stderr, want) {
			t.Errorf("output lacks %q:\n%s", want, o)
		}
	}
	if !strings.Contains(o.stdout, "Knee: ") && !strings.Contains(o.stdout, "No knee up to 4 threads") {
		t.Errorf("output states no knee nor its absence:\n%s", o)
	}
	docs, err := store.NewFile(file).List(context.Background(), 0)
	if err != nil || len(docs) < 2 || len(docs) > 3 {
		t.Fatalf("stored runs: got %d (%v), want 2 or 3 (1, 2, then 4 threads unless the knee came first)", len(docs), err)
	}
	for _, d := range docs {
		id, _ := d.Variant["calibration"].(string)
		if d.Schedule.Mode != "closed" || id == "" || d.Schedule.Workers != 1<<(len(docs)-1-indexOf(docs, d.RunID)) {
			t.Errorf("run %s: mode %s, calibration %q, %d workers; want closed loop, one calibration, threads doubling",
				d.RunID, d.Schedule.Mode, id, d.Schedule.Workers)
		}
	}
}

// TestCalibrateKnee calibrates closed-loop kv on a server of its own
// pinned to one CPU, doubling the threads up to 64: a server that has
// only one CPU saturates within a few doublings, so a knee is found. The
// knee printed is the one the rule gives on the stored steps, recomputed
// here: the step before the first that gained less than --min-gain over
// its predecessor while its p99 rose. Each run describes the server as
// the one CPU it may use.
func TestCalibrateKnee(t *testing.T) {
	h := testenv.Own(t, server.Options{CPUs: "0"})
	dir := t.TempDir()
	file := filepath.Join(dir, "results.jsonl")
	const minGain = study.DefaultMinGain
	o := mb(t, "calibrate", "--uri", h.URI, "--workload", "kv", "-p", "records=500",
		"--max-threads", "64", "--duration", "1s", "--warmup", "1s",
		"--results-file", file, "--report-dir", filepath.Join(dir, "reports"))
	wantCode(t, o, cli.ExitOK)
	docs, err := store.NewFile(file).List(context.Background(), 0)
	if err != nil || len(docs) < 2 {
		t.Fatalf("stored runs: got %d (%v), want at least 2", len(docs), err)
	}
	slices.Reverse(docs) // oldest first: the order run
	var steps []study.ThreadStep
	for _, d := range docs {
		steps = append(steps, study.ThreadStepOf(&d))
		if vcpu, _ := result.Number(d.BenchConfig["vCPU"]); vcpu != 1 {
			t.Errorf("run %s: bench_config.vCPU %v, want 1 (the server's CPU set)", d.RunID, d.BenchConfig["vCPU"])
		}
	}
	knee := -1
	for i := 1; i < len(steps); i++ {
		gain := steps[i].Achieved/steps[i-1].Achieved - 1
		rose := steps[i].P99 == nil || steps[i-1].P99 == nil || *steps[i].P99 > *steps[i-1].P99
		if gain < minGain && rose {
			knee = i - 1
			break
		}
	}
	for _, s := range steps {
		t.Logf("%3d threads: %8.0f ops/s", s.Threads, s.Achieved)
	}
	if knee < 0 {
		t.Fatalf("no step past a knee up to %d threads on one CPU:\n%s", steps[len(steps)-1].Threads, o)
	}
	if len(steps) != knee+2 {
		t.Errorf("the calibration ran %d steps, want it to stop at the first past the knee (%d)", len(steps), knee+2)
	}
	want := fmt.Sprintf("Knee: %d thread", steps[knee].Threads)
	if !strings.Contains(o.stdout, want) {
		t.Errorf("output lacks %q:\n%s", want, o)
	}
}

// indexOf is the position of run id in docs (newest first).
func indexOf(docs []result.Doc, id string) int {
	for i := range docs {
		if docs[i].RunID == id {
			return i
		}
	}
	return -1
}

func TestCalibrateBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"calibrate"},
		{"calibrate", "--workload", "kv", "--threads-factor", "1"},
		{"calibrate", "--workload", "kv", "--start", "8", "--max-threads", "4"},
		{"calibrate", "--workload", "kv", "--min-gain", "0"},
		{"calibrate", "--workload", "nope"},
	} {
		o := mb(t, args...)
		wantCode(t, o, cli.ExitUsage)
		wantQuick(t, o, usageFast)
	}
}
