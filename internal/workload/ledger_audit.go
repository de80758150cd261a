package workload

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// Audit is what AuditLedger found.
type Audit struct {
	Accounts     int64
	Entries      int64
	BalanceSum   int64 // must equal Accounts × InitialBalance
	SummaryCount int64 // must equal Entries
	SummaryTotal int64 // must equal the sum of entry amounts
	EntryTotal   int64
	// Mismatched counts accounts whose balance is not the initial balance
	// less their debits plus their credits, as the ledger records them.
	Mismatched int64
	// Initial is every account's initial balance (0: InitialBalance).
	Initial int64
}

func (a Audit) initial() int64 {
	if a.Initial == 0 {
		return InitialBalance
	}
	return a.Initial
}

// LedgerCollections names a ledger's collections: its accounts ({_id,
// balance}), its entries ({from, to, amount}) and its summary buckets
// ({count, total}), and the accounts' initial balance.
type LedgerCollections struct {
	Accounts, Entries, Summary string
	Initial                    int64
}

// A LedgerAudited workload's data is audited as a ledger after its
// measured phase: AuditedLedger names the collections (ok false: no
// audit).
type LedgerAudited interface {
	AuditedLedger() (lc LedgerCollections, ok bool)
}

// BuiltinLedger is the built-in ledger's collections.
var BuiltinLedger = LedgerCollections{AccountsCollection, EntriesCollection, SummaryCollection, InitialBalance}

// Problems lists every broken invariant; none means no acknowledged
// transfer was lost or applied twice.
func (a Audit) Problems() []string {
	var out []string
	if want := a.Accounts * a.initial(); a.BalanceSum != want {
		out = append(out, fmt.Sprintf("balances sum to %d, want %d", a.BalanceSum, want))
	}
	if a.SummaryCount != a.Entries {
		out = append(out, fmt.Sprintf("summary counts %d transfers, the ledger holds %d", a.SummaryCount, a.Entries))
	}
	if a.SummaryTotal != a.EntryTotal {
		out = append(out, fmt.Sprintf("summary totals %d, ledger entries total %d", a.SummaryTotal, a.EntryTotal))
	}
	if a.Mismatched > 0 {
		out = append(out, fmt.Sprintf("%d accounts do not match their ledger entries", a.Mismatched))
	}
	return out
}

// AuditLedger reconciles the built-in ledger's collections: every entry
// must account for exactly one debit and one credit.
func AuditLedger(ctx context.Context, db *mongo.Database) (Audit, error) {
	return AuditLedgerOf(ctx, db, BuiltinLedger)
}

// AuditLedgerOf reconciles the ledger of collections lc in db (a
// workload file's, say), as AuditLedger does the built-in's.
func AuditLedgerOf(ctx context.Context, db *mongo.Database, lc LedgerCollections) (Audit, error) {
	a := Audit{Initial: lc.Initial}
	net, err := entryFlows(ctx, db.Collection(lc.Entries), &a)
	if err != nil {
		return a, err
	}
	if err := reconcile(ctx, db.Collection(lc.Accounts), net, &a); err != nil {
		return a, err
	}
	return a, sumSummary(ctx, db.Collection(lc.Summary), &a)
}

// entryFlows returns each account's net flow per the ledger.
func entryFlows(ctx context.Context, c *mongo.Collection, a *Audit) (map[int64]int64, error) {
	cur, err := c.Find(ctx, bson.D{}, options.Find().SetProjection(bson.D{{Key: "from", Value: 1}, {Key: "to", Value: 1}, {Key: "amount", Value: 1}}))
	if err != nil {
		return nil, fmt.Errorf("read ledger: %w", err)
	}
	defer cur.Close(ctx)
	net := map[int64]int64{}
	for cur.Next(ctx) {
		var e struct{ From, To, Amount int64 }
		if err := cur.Decode(&e); err != nil {
			return nil, fmt.Errorf("read ledger entry: %w", err)
		}
		net[e.From] -= e.Amount
		net[e.To] += e.Amount
		a.Entries++
		a.EntryTotal += e.Amount
	}
	return net, cur.Err()
}

func reconcile(ctx context.Context, c *mongo.Collection, net map[int64]int64, a *Audit) error {
	cur, err := c.Find(ctx, bson.D{}, options.Find().SetProjection(bson.D{{Key: "balance", Value: 1}}))
	if err != nil {
		return fmt.Errorf("read accounts: %w", err)
	}
	defer cur.Close(ctx)
	for cur.Next(ctx) {
		var acc struct {
			ID      int64 `bson:"_id"`
			Balance int64 `bson:"balance"`
		}
		if err := cur.Decode(&acc); err != nil {
			return fmt.Errorf("read account: %w", err)
		}
		a.Accounts++
		a.BalanceSum += acc.Balance
		if acc.Balance != a.initial()+net[acc.ID] {
			a.Mismatched++
		}
	}
	return cur.Err()
}

func sumSummary(ctx context.Context, c *mongo.Collection, a *Audit) error {
	cur, err := c.Find(ctx, bson.D{})
	if err != nil {
		return fmt.Errorf("read summary: %w", err)
	}
	defer cur.Close(ctx)
	for cur.Next(ctx) {
		var s struct{ Count, Total int64 }
		if err := cur.Decode(&s); err != nil {
			return fmt.Errorf("read summary bucket: %w", err)
		}
		a.SummaryCount += s.Count
		a.SummaryTotal += s.Total
	}
	return cur.Err()
}
