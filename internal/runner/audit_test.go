package runner

import (
	"errors"
	"testing"

	"github.com/mongobench/mongobench/internal/workload"
)

func TestAuditLine(t *testing.T) {
	good := workload.Audit{Accounts: 10, Entries: 5, BalanceSum: 10 * workload.InitialBalance, SummaryCount: 5, SummaryTotal: 70, EntryTotal: 70}
	bad := good
	bad.Mismatched = 2
	tests := []struct {
		name string
		a    workload.Audit
		err  error
		want string
	}{
		{"conserved", good, nil, "5 transfers, 10 accounts: balances conserved, every entry one debit and one credit"},
		{"broken", bad, nil, "FAILED: 2 accounts do not match their ledger entries"},
		{"not done", good, errors.New("connection refused"), "not done: connection refused"},
	}
	for _, tt := range tests {
		if got := AuditLine(tt.a, tt.err); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}
