package workload

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/mongobench/mongobench/internal/result"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readconcern"
	"go.mongodb.org/mongo-driver/v2/mongo/writeconcern"

	"github.com/mongobench/mongobench/internal/datagen"
	"github.com/mongobench/mongobench/internal/engine"
)

// Transaction error labels (the drivers' transactions specification).
const (
	labelTransient     = "TransientTransactionError"
	labelUnknownCommit = "UnknownTransactionCommitResult"
)

// txnOptions is majority write concern with journal and the given read
// concern ("default": none sent).
func txnOptions(rc string) *options.TransactionOptionsBuilder {
	wc := writeconcern.Majority()
	j := true
	wc.Journal = &j
	o := options.Transaction().SetWriteConcern(wc)
	switch rc {
	case "snapshot":
		o.SetReadConcern(readconcern.Snapshot())
	case "majority":
		o.SetReadConcern(readconcern.Majority())
	case "local":
		o.SetReadConcern(readconcern.Local())
	}
	return o
}

// sessionOptions: transfers are independent writes that need no causal
// ordering, so sessions are not causally consistent (a causal session
// would add afterClusterTime to each transaction's first command). Both
// modes use the same sessions.
func sessionOptions() *options.SessionOptionsBuilder {
	return options.Session().SetCausalConsistency(false)
}

// NewTask builds one worker's transfer task, with its own session.
func (r *ledgerRun) NewTask(_ context.Context, worker int) (engine.Task, error) {
	env, p := r.env, r.p
	sess, err := env.DB.Client().StartSession(sessionOptions())
	if err != nil {
		return nil, fmt.Errorf("start session: %w", err)
	}
	t := &ledgerTask{
		db: env.DB, sess: sess, opts: txnOptions(r.readConcern), bulk: p.String("mode") == ModeClientBulk,
		accounts: env.DB.Collection(AccountsCollection), entries: env.DB.Collection(EntriesCollection),
		summary: env.DB.Collection(SummaryCollection),
		rnd:     datagen.Rand(env.Seed, worker), keys: datagen.Uniform{N: p.Int("accounts")},
		buckets: p.Int("summaryBuckets"), maxAmount: p.Int("maxAmount"), maxRetries: int(p.Int("maxRetries")),
	}
	bare, err := bson.Marshal(t.entry(transfer{}))
	if err != nil {
		return nil, fmt.Errorf("size ledger entry: %w", err)
	}
	t.memo = datagen.Payload(max(0, int(p.Size("entrySize"))-len(bare)), uint64(env.Seed)+uint64(worker))
	return t, nil
}

// transfer is one transaction's content, fixed across its retries: the
// entry's _id makes a retried commit idempotent.
type transfer struct {
	id       bson.ObjectID
	from, to int64
	amount   int64
	bucket   int64
}

// ledgerTask is one worker's transfers and its retry accounting.
type ledgerTask struct {
	db                         *mongo.Database
	sess                       *mongo.Session
	opts                       *options.TransactionOptionsBuilder
	bulk                       bool
	accounts, entries, summary *mongo.Collection
	rnd                        *rand.Rand
	keys                       datagen.Uniform
	buckets, maxAmount         int64
	maxRetries                 int
	memo                       []byte
	txns                       txnCounts
}

var _ Counter = (*ledgerTask)(nil)

// Do runs one transfer to its final commit, retrying the whole
// transaction on TransientTransactionError and the commit on
// UnknownTransactionCommitResult. Its latency covers every retry.
func (t *ledgerTask) Do(ctx context.Context) (int, error) {
	tr := t.next()
	write := t.perOp
	if t.bulk {
		write = t.clientBulk
	}
	x := txn{sess: t.sess, opts: t.opts, maxRetries: t.maxRetries}
	return 0, t.txns.run(ctx, x, func(sctx context.Context) error { return write(sctx, tr) })
}

func (t *ledgerTask) next() transfer {
	from := t.keys.Next(t.rnd)
	to := t.keys.Next(t.rnd)
	for to == from {
		to = t.keys.Next(t.rnd)
	}
	return transfer{id: bson.NewObjectID(), from: from, to: to, amount: 1 + t.rnd.Int64N(t.maxAmount), bucket: from % t.buckets}
}

func (t *ledgerTask) perOp(ctx context.Context, tr transfer) error {
	if _, err := t.accounts.UpdateOne(ctx, byID(tr.from), inc("balance", -tr.amount)); err != nil {
		return err
	}
	if _, err := t.accounts.UpdateOne(ctx, byID(tr.to), inc("balance", tr.amount)); err != nil {
		return err
	}
	if _, err := t.entries.InsertOne(ctx, t.entry(tr)); err != nil {
		return err
	}
	_, err := t.summary.UpdateOne(ctx, byID(tr.bucket), summaryInc(tr.amount))
	return err
}

func (t *ledgerTask) clientBulk(ctx context.Context, tr transfer) error {
	db := t.db.Name()
	writes := []mongo.ClientBulkWrite{
		{Database: db, Collection: AccountsCollection, Model: mongo.NewClientUpdateOneModel().SetFilter(byID(tr.from)).SetUpdate(inc("balance", -tr.amount))},
		{Database: db, Collection: AccountsCollection, Model: mongo.NewClientUpdateOneModel().SetFilter(byID(tr.to)).SetUpdate(inc("balance", tr.amount))},
		{Database: db, Collection: EntriesCollection, Model: mongo.NewClientInsertOneModel().SetDocument(t.entry(tr))},
		{Database: db, Collection: SummaryCollection, Model: mongo.NewClientUpdateOneModel().SetFilter(byID(tr.bucket)).SetUpdate(summaryInc(tr.amount))},
	}
	_, err := t.db.Client().BulkWrite(ctx, writes)
	return err
}

func (t *ledgerTask) entry(tr transfer) bson.D {
	return bson.D{{Key: "_id", Value: tr.id}, {Key: "from", Value: tr.from}, {Key: "to", Value: tr.to},
		{Key: "amount", Value: tr.amount}, {Key: "at", Value: time.Now()}, {Key: "memo", Value: bson.Binary{Data: t.memo}}}
}

func byID(id int64) bson.D { return bson.D{{Key: "_id", Value: id}} }

func inc(field string, n int64) bson.D {
	return bson.D{{Key: "$inc", Value: bson.D{{Key: field, Value: n}}}}
}

func summaryInc(amount int64) bson.D {
	return bson.D{{Key: "$inc", Value: bson.D{{Key: "count", Value: int64(1)}, {Key: "total", Value: amount}}}}
}

// Counts reports the worker's transactions, retries and aborts, and the
// causes of retries. It is safe to call while the worker runs.
func (t *ledgerTask) Counts() result.Counts { return t.txns.counts() }

// transient reports whether the whole transaction may be retried: the
// server labelled it TransientTransactionError, or it is a write conflict
// (which always aborts the transaction; a client-level bulkWrite reports
// it among its write errors, without the label).
func transient(err error) bool {
	return hasLabel(err, labelTransient) || hasCode(err, codeWriteConflict)
}

func hasLabel(err error, label string) bool {
	var le mongo.LabeledError
	return errors.As(err, &le) && le.HasErrorLabel(label)
}

// cause names an error for the retry tally: the server's code name, or
// its class.
func cause(err error) string {
	var ce mongo.CommandError
	if errors.As(err, &ce) && ce.Name != "" {
		return ce.Name
	}
	return Classify(err).String()
}
