package workload

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/mongobench/mongobench/internal/datagen"
	"github.com/mongobench/mongobench/internal/spec"
)

// Ledger is a strictly durable money-transfer workload. Each operation is
// one multi-document transaction of four writes: debit one account, credit
// another, insert the ledger entry, and update a running summary bucket.
// Mode "per-op" sends four ordinary writes inside the transaction;
// "client-bulk" sends the same four writes as one MongoDB 8.0 client-level
// bulkWrite. Write concern is majority with journal; read concern is
// snapshot unless the server refuses it (see Prepare).
type Ledger struct{}

var _ Workload = Ledger{}

// Ledger collections.
const (
	AccountsCollection = "accounts"
	EntriesCollection  = "ledger"
	SummaryCollection  = "ledger_summary"
	ledgerMeta         = "ledger_meta"
	ledgerProbe        = "ledger_probe"
)

// InitialBalance is every account's balance when loaded.
const InitialBalance = 1_000_000

// Ledger modes.
const (
	ModePerOp      = "per-op"
	ModeClientBulk = "client-bulk"
)

// Name is "ledger".
func (Ledger) Name() string { return "ledger" }

// Summary describes the workload in one line.
func (Ledger) Summary() string {
	return "ACID transfers: debit, credit, ledger entry, summary update in one transaction (per-op or client-bulk)"
}

// Params declares the ledger parameters.
func (Ledger) Params() []spec.ParamSpec {
	return append([]spec.ParamSpec{
		{Name: "mode", Kind: spec.KindEnum, Values: []string{ModePerOp, ModeClientBulk}, Help: "four writes per transaction, or one client-level bulkWrite"},
		{Name: "accounts", Kind: spec.KindInt, Default: "10000", Min: "2", Help: "accounts preloaded (the write-up used 100,000,000)"},
		{Name: "accountFields", Kind: spec.KindInt, Default: "20", Min: "0", Max: "2000", Help: "filler fields per account document (shape: ~110 or ~400 in the write-up)"},
		{Name: "accountSize", Kind: spec.KindSize, Default: "1KB", Min: "64B", Max: "16MB", Help: "BSON size of an account document (~2.5KB or ~7KB in the write-up)"},
		{Name: "entrySize", Kind: spec.KindSize, Default: "256B", Min: "96B", Max: "16MB", Help: "BSON size of a ledger entry"},
		{Name: "summaryBuckets", Kind: spec.KindInt, Default: "64", Min: "1", Help: "running-summary documents; fewer means more write conflicts"},
		{Name: "maxAmount", Kind: spec.KindInt, Default: "100", Min: "1", Help: "largest transfer amount"},
		{Name: "readConcern", Kind: spec.KindEnum, Values: []string{"snapshot", "majority", "local", "default"}, Help: "transaction read concern"},
		{Name: "maxRetries", Kind: spec.KindInt, Default: "100", Min: "0", Help: "whole-transaction retries before a transfer counts as failed"},
	}, preloadParams()...)
}

// Ops names the one operation type: a whole transaction, retries included.
func (Ledger) Ops(spec.Params) []string { return []string{"txn"} }

// ledgerShape is what must match for loaded data to be reused.
type ledgerShape struct {
	Accounts       int64 `bson:"accounts"`
	AccountFields  int64 `bson:"accountFields"`
	AccountSize    int64 `bson:"accountSize"`
	SummaryBuckets int64 `bson:"summaryBuckets"`
}

func shapeOf(p spec.Params) ledgerShape {
	return ledgerShape{p.Int("accounts"), p.Int("accountFields"), int64(p.Size("accountSize")), p.Int("summaryBuckets")}
}

// Prepare loads accounts and summary buckets, reusing data already loaded
// with the same shape (transfers keep every invariant, so repeated runs
// may share it), then decides which read concern the transactions use:
// the chosen one, if the server accepts it. The workers share that
// decision.
func (Ledger) Prepare(ctx context.Context, env Env, p spec.Params) (Run, error) {
	if err := loadLedger(ctx, env, p); err != nil {
		return Run{}, err
	}
	rc, warnings, err := probeReadConcern(ctx, env, p)
	if err != nil {
		return Run{}, err
	}
	return Run{
		Decided: Decisions{Settings: ledgerSettings{ReadConcern: rc, WriteConcern: writeConcernText}, Warnings: warnings},
		Tasks:   &ledgerRun{env: env, p: p, readConcern: rc},
	}, nil
}

// GroupReady: a group's lead loads the accounts; every client transfers
// between accounts drawn over all of them, as one client's workers do.
func (Ledger) GroupReady(spec.Params) error { return nil }

// ledgerSettings are the ledger's effective settings.
type ledgerSettings struct {
	// ReadConcern is what the transactions send ("default": none).
	ReadConcern string `bson:"readConcern"`
	// WriteConcern is the transactions' write concern (txnOptions).
	WriteConcern string `bson:"writeConcern"`
}

// writeConcernText describes txnOptions' write concern.
const writeConcernText = "majority, j: true"

// ledgerRun is a prepared ledger run: the read concern its workers'
// transactions use.
type ledgerRun struct {
	env         Env
	p           spec.Params
	readConcern string
}

var _ Tasks = (*ledgerRun)(nil)

func loadLedger(ctx context.Context, env Env, p spec.Params) error {
	want := shapeOf(p)
	var have ledgerShape
	err := env.DB.Collection(ledgerMeta).FindOne(ctx, bson.D{{Key: "_id", Value: "shape"}}).Decode(&have)
	if err == nil && have == want {
		env.ReportProgress("reuse accounts", want.Accounts, want.Accounts)
		return nil
	}
	if err != nil && !errors.Is(err, mongo.ErrNoDocuments) {
		return fmt.Errorf("read ledger shape: %w", err)
	}
	if env.Follower {
		return errors.New("the ledger's accounts are not loaded in the shape this run asks for: the group's lead loads them, and every client must be given the same parameters")
	}
	for _, c := range []string{ledgerMeta, AccountsCollection, EntriesCollection, SummaryCollection} {
		if err := ResetCollection(ctx, env.DB, c); err != nil {
			return err
		}
	}
	if err := loadAccounts(ctx, env, p); err != nil {
		return err
	}
	if err := loadSummary(ctx, env, want.SummaryBuckets); err != nil {
		return err
	}
	_, err = env.DB.Collection(ledgerMeta).InsertOne(ctx, bson.D{{Key: "_id", Value: "shape"}, {Key: "accounts", Value: want.Accounts},
		{Key: "accountFields", Value: want.AccountFields}, {Key: "accountSize", Value: want.AccountSize}, {Key: "summaryBuckets", Value: want.SummaryBuckets}})
	return err
}

func loadAccounts(ctx context.Context, env Env, p spec.Params) error {
	fields := int(p.Int("accountFields"))
	fill := fillerSize(int(p.Size("accountSize")), fields, func(f []byte) []byte { return accountDoc(nil, 0, fields, f) })
	payload := datagen.Payload(fill+4096, uint64(env.Seed))
	l := &Loader{
		Coll: env.DB.Collection(AccountsCollection), Total: p.Int("accounts"), Batch: p.Int("batchSize"),
		Build: func(dst []byte, k int64) []byte {
			off := int(k*31) % 4096
			return accountDoc(dst, k, fields, payload[off:off+fill])
		},
	}
	return l.Run(ctx, int(p.Int("loaders")), func(done int64) { env.ReportProgress("load accounts", done, l.Total) })
}

func loadSummary(ctx context.Context, env Env, buckets int64) error {
	docs := make([]any, buckets)
	for b := range buckets {
		docs[b] = bson.D{{Key: "_id", Value: b}, {Key: "count", Value: int64(0)}, {Key: "total", Value: int64(0)}}
	}
	if _, err := env.DB.Collection(SummaryCollection).InsertMany(ctx, docs); err != nil {
		return fmt.Errorf("load summary buckets: %w", err)
	}
	return nil
}

// fillerSize is the per-field filler length that makes a document built
// by build (given one field's filler) about size bytes.
func fillerSize(size, fields int, build func(filler []byte) []byte) int {
	if fields == 0 {
		return 0
	}
	bare := len(build(nil))
	return max(0, (size-bare)/fields)
}

// accountDoc is {_id, balance, f0..f<fields-1>}: the filler fields give
// the account its shape and size.
func accountDoc(dst []byte, id int64, fields int, filler []byte) []byte {
	idx, dst := bsoncore.AppendDocumentStart(dst)
	dst = bsoncore.AppendInt64Element(dst, "_id", id)
	dst = bsoncore.AppendInt64Element(dst, "balance", InitialBalance)
	for i := range fields {
		dst = bsoncore.AppendBinaryElement(dst, fieldName(i), 0, filler)
	}
	dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
	return dst
}

func fieldName(i int) string { return fmt.Sprintf("f%d", i) }

// probeReadConcern runs one transaction of the chosen mode with the chosen
// read concern. SecantusDB refuses a read concern on a client-level
// bulkWrite that opens a transaction (MongoDB 8.0 accepts it); there,
// both modes run with the server's default read concern, so the two stay
// comparable, and the result says so.
//
// It returns the read concern the transactions use and, when that is not
// the one asked for, a warning saying why.
func probeReadConcern(ctx context.Context, env Env, p spec.Params) (rc string, warnings []string, err error) {
	rc = p.String("readConcern")
	if rc == "default" {
		return rc, nil, nil
	}
	err = probeBulkTxn(ctx, env.DB, rc)
	if err == nil {
		return rc, nil, nil
	}
	if !strings.Contains(err.Error(), "readConcern") {
		if p.String("mode") == ModeClientBulk {
			return "", nil, fmt.Errorf("the server cannot run a client-level bulkWrite in a transaction: %w", err)
		}
		return rc, nil, nil // per-op does not need bulkWrite
	}
	return "default", []string{fmt.Sprintf("the server refuses readConcern %q on a client-level bulkWrite in a transaction (%v); "+
		"both modes run with the server's default read concern so they stay comparable", rc, err)}, nil
}

// probeBulkTxn runs two client-bulk transactions on one session, as a
// worker does: a session's later transactions may send more than its
// first.
func probeBulkTxn(ctx context.Context, db *mongo.Database, rc string) error {
	sess, err := db.Client().StartSession(sessionOptions())
	if err != nil {
		return err
	}
	defer sess.EndSession(ctx)
	for range 2 {
		if err := probeOnce(ctx, db, sess, rc); err != nil {
			return err
		}
	}
	return nil
}

func probeOnce(ctx context.Context, db *mongo.Database, sess *mongo.Session, rc string) error {
	if err := sess.StartTransaction(txnOptions(rc)); err != nil {
		return err
	}
	sctx := mongo.NewSessionContext(ctx, sess)
	_, err := db.Client().BulkWrite(sctx, []mongo.ClientBulkWrite{{
		Database: db.Name(), Collection: ledgerProbe,
		Model: mongo.NewClientUpdateOneModel().SetFilter(bson.D{{Key: "_id", Value: 1}}).
			SetUpdate(bson.D{{Key: "$inc", Value: bson.D{{Key: "n", Value: 1}}}}).SetUpsert(true),
	}})
	if err != nil {
		_ = sess.AbortTransaction(context.WithoutCancel(ctx))
		return err
	}
	return sess.CommitTransaction(sctx)
}
