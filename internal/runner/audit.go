package runner

import (
	"context"
	"fmt"
	"strings"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/workload"
)

// AuditLedger reconciles the ledger workload's data in database db of the
// target and returns every broken invariant (none: every acknowledged
// transfer was applied exactly once).
func AuditLedger(ctx context.Context, target, db string) (workload.Audit, error) {
	c, err := Connect(ctx, target, 2)
	if err != nil {
		return workload.Audit{}, err
	}
	defer disconnect(ctx, c)
	return workload.AuditLedger(ctx, c.Database(db))
}

// LedgerAudit audits the ledger in database db of the target (default
// spec.DefaultDatabase) and sums the audit up in one line for people
// (AuditLine).
func LedgerAudit(ctx context.Context, target, db string) string {
	if db == "" {
		db = spec.DefaultDatabase
	}
	a, err := AuditLedger(ctx, target, db)
	return AuditLine(a, err)
}

// AuditLine sums up a ledger audit in one line: what failed, what is
// broken, or what was checked.
func AuditLine(a workload.Audit, err error) string {
	if err != nil {
		return "not done: " + err.Error()
	}
	if p := a.Problems(); len(p) > 0 {
		return "FAILED: " + strings.Join(p, "; ")
	}
	return fmt.Sprintf("%d transfers, %d accounts: balances conserved, every entry one debit and one credit", a.Entries, a.Accounts)
}

// auditLedger audits the ledger the workload names, after the measured
// phase, and notes what it found (a run cut short by Ctrl-C is not
// audited: its last transfers may not have ended).
func (r *run) auditLedger(ctx context.Context, d *result.Doc) {
	if r.ledger == nil {
		return
	}
	if ctx.Err() != nil {
		d.Notes = append(d.Notes, "ledger audit: not done: the run was interrupted")
		return
	}
	a, err := workload.AuditLedgerOf(ctx, r.client.Database(r.opts.Scenario.Database), *r.ledger)
	d.Notes = append(d.Notes, "ledger audit: "+AuditLine(a, err))
}
