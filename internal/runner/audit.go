package runner

import (
	"context"

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
	defer disconnect(c)
	return workload.AuditLedger(ctx, c.Database(db))
}
