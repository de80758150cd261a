package cli_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/store"
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
		"--max", "4", "--duration", "1s", "--warmup", "1s", "--results-file", file, "--report-dir", filepath.Join(dir, "reports"))
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
		{"calibrate", "--workload", "kv", "--factor", "1"},
		{"calibrate", "--workload", "kv", "--start", "8", "--max", "4"},
		{"calibrate", "--workload", "kv", "--min-gain", "0"},
		{"calibrate", "--workload", "nope"},
	} {
		o := mb(t, args...)
		wantCode(t, o, cli.ExitUsage)
		wantQuick(t, o, usageFast)
	}
}
