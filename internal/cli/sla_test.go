package cli_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// TestSLAStudy runs both modes at two rates on the real server: every
// table prints, every run is stored and judged, the ledger audits clean,
// (warm-up transfers are real transactions too) and the stored telemetry
// shows client-bulk's fewer server operations per transaction. Then the journey table reads the stage back.
func TestSLAStudy(t *testing.T) {
	uri := testenv.URI(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "results.jsonl")
	db := testenv.DBName(t)
	dropAfter(t, connect(t, uri), db)
	o := mb(t, "sla", "--uri", uri, "--database", db, "--rate", "50,100", "--p99", "500ms", "--repeat", "2",
		"--duration", "2s", "--warmup", "1s", "--stage", "baseline", "-p", "accounts=500",
		"--results-file", file, "--report-dir", filepath.Join(dir, "reports"))
	wantEnded(t, o)
	// Whether runs pass depends on the machine (a stall can set off a
	// retry storm); the tables, verdicts, storage and audit must not.
	for _, want := range []string{"server ops/txn", "runs passed", "p99 median ms", "target TPS", "500 accounts: balances conserved, every entry one debit and one credit"} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, o)
		}
	}
	docs, err := store.NewFile(file).List(context.Background(), 0)
	if err != nil || len(docs) != 8 {
		t.Fatalf("stored runs: got %d (%v), want 2 rates × 2 modes × 2 runs = 8", len(docs), err)
	}
	wantVerdict(t, o, slaHeld(t, docs))
	perTxn := map[string]float64{"per-op": 1e9, "client-bulk": 1e9} // fewest over the runs: retries add operations
	for i := range docs {
		r, err := study.RunOf(&docs[i])
		if err != nil {
			t.Fatal(err)
		}
		if r.OpsPerTxn == nil || r.Stage != "baseline" {
			t.Fatalf("run %s: server ops per txn %v, stage %q", r.RunID, r.OpsPerTxn, r.Stage)
		}
		perTxn[r.Mode] = min(perTxn[r.Mode], *r.OpsPerTxn)
		if docs[i].TestResults.SLA == nil {
			t.Errorf("run %s: no stored verdict", r.RunID)
		}
	}
	if perTxn["per-op"] < 4.5 || perTxn["client-bulk"] > 2.5 {
		t.Errorf("server ops per transaction: got %v, want about 5 (four writes + commit) and 2 (bulkWrite + commit)", perTxn)
	}
	// Every stored run counts here (a busy host may have judged one
	// invalid, which the journey would leave out): the table's shape is
	// what this test checks.
	j := mb(t, "sla", "journey", "--p99", "500ms", "--include-invalid", "--results-file", file)
	wantCode(t, j, cli.ExitOK)
	if rows := strings.Count(j.stdout, "baseline"); rows != 4 || strings.Count(j.stdout, "/2 ") != 4 {
		t.Errorf("journey: want the baseline stage in 4 rows (2 modes × 2 rates) of 2 runs each:\n%s", j)
	}
}

func TestSLABadInput(t *testing.T) {
	for _, args := range [][]string{
		{"sla", "--p99", "20ms"},                                     // no --rate
		{"sla", "--rate", "500"},                                     // no --p99
		{"sla", "--rate", "-5", "--p99", "20ms"},                     // bad rate
		{"sla", "--rate", "500", "--p99", "20ms", "--modes", "bulk"}, // bad mode
		{"sla", "--rate", "500", "--p99", "20ms", "--repeat", "0"},
	} {
		o := mb(t, args...)
		wantCode(t, o, cli.ExitUsage)
		wantQuick(t, o, usageFast)
	}
}
