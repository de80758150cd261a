package runner

import (
	"context"
	"fmt"
	"strings"

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
