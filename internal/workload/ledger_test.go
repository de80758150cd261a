package workload_test

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/workload"
)

func ledgerParams(t *testing.T, assignments ...string) spec.Params {
	return paramsOf(t, "ledger", assignments...)
}

// TestLedgerUnderWriteConflicts drives many concurrent transfers over a
// few accounts and one summary bucket, in both modes: conflicts must be
// retried and counted, and the audit must find every acknowledged
// transfer applied exactly once.
func TestLedgerUnderWriteConflicts(t *testing.T) {
	for _, mode := range []string{workload.ModePerOp, workload.ModeClientBulk} {
		t.Run(mode, func(t *testing.T) {
			db := ownedDB(t)
			ctx := context.Background()
			p := ledgerParams(t, "mode="+mode, "accounts=4", "summaryBuckets=1", "accountFields=3", "accountSize=300B")
			env := workload.Env{DB: db, Seed: 3}
			run := prepare(t, workload.Ledger{}, env, p)
			var tasks []engine.Task
			cfg := engine.Config{Ops: []string{"txn"}, Workers: 8, Count: 400, Classify: workload.Classify}
			r, err := engine.Run(ctx, cfg, func(w int) (engine.Task, error) {
				task, err := run.Tasks.NewTask(context.Background(), w)
				tasks = append(tasks, task)
				return task, err
			})
			if err != nil {
				t.Fatal(err)
			}
			counts := map[string]int64{}
			for _, task := range tasks {
				for k, v := range task.(workload.Counter).Counts().Map() {
					counts[k] += v
				}
			}
			t.Logf("%s: %v; errors by class %v; notes %v", r, counts, r.Ops[0].Errors, run.Decided.Warnings)
			if counts["retries"] == 0 {
				t.Errorf("retries: got 0, want the write conflicts of 8 workers on 4 accounts to be retried")
			}
			if counts["failed"] > 20 {
				t.Errorf("failed transfers: got %d of 400 (errors by class %v), want only the rare one that exhausts its 100 retries", counts["failed"], r.Ops[0].Errors)
			}
			if got := counts["txns"] + counts["failed"]; got != 400 {
				t.Errorf("transfers: got %d committed + failed, want 400", got)
			}
			if counts["txns"] != r.Ops[0].Count || counts["failed"] != r.Ops[0].Errors.Total() {
				t.Errorf("engine saw %d ok / %d failed, tasks counted %d / %d", r.Ops[0].Count, r.Ops[0].Errors.Total(), counts["txns"], counts["failed"])
			}
			audit, err := workload.AuditLedger(ctx, db)
			if err != nil {
				t.Fatal(err)
			}
			if problems := audit.Problems(); len(problems) > 0 {
				t.Errorf("audit: %v (%+v)", problems, audit)
			}
			if audit.Entries != counts["txns"] {
				t.Errorf("ledger entries: got %d, want one per committed transfer (%d)", audit.Entries, counts["txns"])
			}
		})
	}
}

// TestLedgerDocumentShape checks the account and entry sizes the
// parameters ask for, and that loaded data is reused when its shape
// matches.
func TestLedgerDocumentShape(t *testing.T) {
	db := ownedDB(t)
	ctx := context.Background()
	p := ledgerParams(t, "accounts=50", "accountFields=110", "accountSize=2500B", "entrySize=300B")
	env := workload.Env{DB: db, Seed: 1}
	run := prepare(t, workload.Ledger{}, env, p)
	raw, err := db.Collection(workload.AccountsCollection).FindOne(ctx, bson.D{{Key: "_id", Value: int64(7)}}).Raw()
	if err != nil {
		t.Fatal(err)
	}
	elems, _ := raw.Elements()
	if got := len(raw); got < 2400 || got > 2500 {
		t.Errorf("account size: got %d bytes, want about 2500", got)
	}
	if got := len(elems); got != 112 {
		t.Errorf("account fields: got %d, want 110 filler + _id + balance", got)
	}
	task, err := run.Tasks.NewTask(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := task.Do(ctx); err != nil {
		t.Fatal(err)
	}
	entry, err := db.Collection(workload.EntriesCollection).FindOne(ctx, bson.D{}).Raw()
	if err != nil {
		t.Fatal(err)
	}
	if got := len(entry); got != 300 {
		t.Errorf("entry size: got %d bytes, want 300", got)
	}
	start := time.Now()
	var stages []string
	env.Progress = func(stage string, _, _ int64) { stages = append(stages, stage) }
	prepare(t, workload.Ledger{}, env, p)
	if len(stages) != 1 || stages[0] != "reuse accounts" {
		t.Errorf("second setup: stages %v in %v, want the loaded accounts reused", stages, time.Since(start))
	}
}
