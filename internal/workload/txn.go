package workload

import (
	"context"
	"maps"
	"math"
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/bounded"
	"github.com/mongobench/mongobench/internal/result"
)

// txnCounts runs a worker's transactions as the drivers' withTransaction
// does (its retries backed off as the specification says), bounded, and
// counts them: committed, retried whole, commits
// retried, aborted, failed, and the causes of the retries. The built-in
// ledger and a workload file's transactions share it. The counts are
// read by the run while the worker goes on (counts).
type txnCounts struct {
	committed, retries, commitRetries, aborts, failed atomic.Int64
	mu                                                sync.Mutex
	causes                                            map[string]int64
}

// txn is one transaction's setting: its session, its options, its bound
// on retries (of the whole, and of the commit) and on each commit's time
// (0: none; sent as the commit's maxTimeMS).
type txn struct {
	sess       *mongo.Session
	opts       *options.TransactionOptionsBuilder
	maxRetries int
	maxCommit  time.Duration
}

// The backoff before a whole transaction's retry, as the drivers'
// convenient transaction API specifies it (withTransaction, 2026): the
// n-th retry waits a uniformly random share of min(5 ms × 1.5^(n−1),
// 500 ms), so transactions that conflict stop retrying in lockstep, and
// one whose rival was descheduled holding the document it needs waits
// for it instead of spending its retries at once.
const (
	backoffInitial = 5 * time.Millisecond
	backoffMax     = 500 * time.Millisecond
	backoffGrowth  = 1.5
)

// retryBackoff is the wait before retry n (1, 2, …) given jitter in
// [0, 1).
func retryBackoff(n int, jitter float64) time.Duration {
	d := float64(backoffInitial) * math.Pow(backoffGrowth, float64(n-1))
	return time.Duration(jitter * min(d, float64(backoffMax)))
}

// run runs body in a transaction of x to its final commit, retrying the
// whole transaction on TransientTransactionError (or a write conflict),
// after the specification's backoff, and the commit on
// UnknownTransactionCommitResult, up to x.maxRetries times each. body
// gets the session's context.
func (c *txnCounts) run(ctx context.Context, x txn, body func(sctx context.Context) error) error {
	for attempt := 0; ; attempt++ {
		err := c.attempt(ctx, x, body)
		if err == nil {
			c.committed.Add(1)
			return nil
		}
		if !transient(err) || attempt >= x.maxRetries || ctx.Err() != nil {
			c.failed.Add(1)
			return err
		}
		c.retries.Add(1)
		c.cause(cause(err))
		if bounded.Sleep(ctx, retryBackoff(attempt+1, rand.Float64())) != nil {
			c.failed.Add(1)
			return err // stopped during the backoff: the last attempt's error
		}
	}
}

func (c *txnCounts) attempt(ctx context.Context, x txn, body func(sctx context.Context) error) error {
	if err := x.sess.StartTransaction(x.opts); err != nil {
		return err
	}
	sctx := mongo.NewSessionContext(ctx, x.sess)
	if err := body(sctx); err != nil {
		c.aborts.Add(1)
		_ = x.sess.AbortTransaction(context.WithoutCancel(ctx)) // the server aborts it anyway
		return err
	}
	return c.commit(sctx, x)
}

// commit commits, retrying while the outcome is unknown.
func (c *txnCounts) commit(ctx context.Context, x txn) error {
	for attempt := 0; ; attempt++ {
		err := commitOnce(ctx, x)
		if err == nil {
			return nil
		}
		if !hasLabel(err, labelUnknownCommit) || attempt >= x.maxRetries || ctx.Err() != nil {
			c.aborts.Add(1)
			return err
		}
		c.commitRetries.Add(1)
		c.cause("commit: " + cause(err))
	}
}

// commitOnce commits within x.maxCommit, when it is set: the driver
// sends the time left as the commit's maxTimeMS.
func commitOnce(ctx context.Context, x txn) error {
	if x.maxCommit <= 0 {
		return x.sess.CommitTransaction(ctx)
	}
	cctx, cancel := context.WithTimeout(ctx, x.maxCommit)
	defer cancel()
	return x.sess.CommitTransaction(cctx)
}

func (c *txnCounts) cause(name string) {
	c.mu.Lock()
	if c.causes == nil {
		c.causes = map[string]int64{}
	}
	c.causes[name]++
	c.mu.Unlock()
}

// counts reports the transactions, retries and aborts, and the causes of
// retries. It is safe to call while the worker runs.
func (c *txnCounts) counts() result.Counts {
	n := result.Counts{Txns: result.Ptr(c.committed.Load()), Retries: result.Ptr(c.retries.Load()),
		CommitRetries: result.Ptr(c.commitRetries.Load()), Aborts: result.Ptr(c.aborts.Load()), Failed: result.Ptr(c.failed.Load())}
	c.mu.Lock()
	defer c.mu.Unlock()
	if len(c.causes) > 0 {
		n.RetryCauses = maps.Clone(c.causes)
	}
	return n
}
