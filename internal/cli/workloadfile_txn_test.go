package cli_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// checkAudit checks a run's ledger audit found nothing wrong.
func checkAudit(t *testing.T, d fileRun) {
	t.Helper()
	i := slices.IndexFunc(d.Notes, func(n string) bool { return strings.HasPrefix(n, "ledger audit: ") })
	if i < 0 || !strings.Contains(d.Notes[i], "balances conserved, every entry one debit and one credit") {
		t.Errorf("no clean ledger audit in the notes: %q", d.Notes)
	}
}

// TestWorkloadFileLedger runs the shipped ledger: its transfers, one by
// one and as one client-level bulkWrite, each a transaction counted as
// one operation, reach the built-in ledger's audit invariants (the
// same audit: balances conserved, each entry one debit and one credit,
// one entry per committed transfer), also under write conflicts (4
// accounts, 1 summary bucket, 8 workers), where they are retried and
// counted as the built-in's are.
func TestWorkloadFileLedger(t *testing.T) {
	uri := testenv.URI(t)
	db := testenv.DBName(t)
	c := connect(t, uri)
	dropAfter(t, c, db)
	text, err := os.ReadFile("../../workloads/ledger.yaml")
	if err != nil {
		t.Fatal(err)
	}
	contended := filepath.Join(t.TempDir(), "ledger.yaml")
	write(t, contended, strings.NewReplacer("seed: 10000", "seed: 4", "seed: 64", "seed: 1", "max: 63", "max: 0").Replace(string(text)))
	// what the file sends, without a server
	o := mb(t, "workload", "check", "../../workloads/ledger.yaml")
	wantCode(t, o, cli.ExitOK)
	for _, want := range []string{`transfer: a transaction of 4 steps (read concern the connection string's, write concern {"w": "majority", "j": true}, up to 100 retries)`,
		`{"update": "accounts", "ordered": true, "updates": [{"q": {"_id": `, `{"insert": "ledger", "ordered": true, "documents": [{"_id": {"$oid": `,
		`transferBulk: a transaction of 1 step (`, `{"bulkWrite": 1, "ops": [{"update": 0, "filter": {"_id": `,
		`"nsInfo": [{"ns": "mongobench_data.accounts"}, {"ns": "mongobench_data.ledger"}, {"ns": "mongobench_data.ledger_summary"}], "ordered": true, "errorsOnly": true}`} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("workload check: stdout lacks %q:\n%s", want, o.stdout)
		}
	}
	// a run over the shipped file: every transfer commits
	d := runFile(t, uri, db, "../../workloads/ledger.yaml", []string{"transfer", "transferBulk"}, "--ops", "400")
	checkAudit(t, d)
	checkTransfers(t, c, db, d, 400)
	// under write conflicts: retried, a rare transfer failing after its
	// 100 retries (as the built-in's may)
	o = mb(t, "run", "--uri", uri, "--database", db, "--workload", contended, "--ops", "400", "--threads", "8",
		"--results-file", filepath.Join(t.TempDir(), "r.jsonl"), "--no-report", "--json")
	wantCode(t, o, cli.ExitOK)
	if err := json.Unmarshal([]byte(o.stdout), &d); err != nil {
		t.Fatal(err)
	}
	checkAudit(t, d)
	checkTransfers(t, c, db, d, 400)
	if d.Results.Retries == nil || *d.Results.Retries == 0 {
		t.Errorf("retries: got %v, want the write conflicts of 8 workers on 4 accounts retried", d.Results.Retries)
	}
}

// checkTransfers checks a ledger run's counts: each transfer committed
// or failed, each counted once as an operation, each committed one an
// entry of the ledger.
func checkTransfers(t *testing.T, c *mongo.Client, db string, d fileRun, n int64) {
	t.Helper()
	var ok, failed int64
	for _, op := range d.Ops {
		if op.Count == 0 {
			t.Errorf("no %s committed", op.Name)
		}
		ok += op.Count
		failed += op.Errors.Total
	}
	if d.Results.Txns == nil || d.Results.Failed == nil || *d.Results.Txns != ok || *d.Results.Failed != failed || ok+failed != n || failed > 20 {
		t.Errorf("txns %v, failed %v; the operations: %d committed, %d failed, want %d in all, at most 20 failed", d.Results.Txns, d.Results.Failed, ok, failed, n)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if entries, err := c.Database(db).Collection("ledger").CountDocuments(ctx, bson.D{}); err != nil || entries != ok {
		t.Errorf("%d ledger entries (%v), want one per committed transfer (%d)", entries, err, ok)
	}
}

// TestWorkloadFileMoreOperations runs count, distinct, findOneAndUpdate,
// findOneAndReplace, findOneAndDelete, bulkWrite (ordered and not, mixed
// models over two collections), reads with a read preference and a
// transaction that reads and writes, on both clients: none fails, the
// reads return documents and the writes land. A bulkWrite's failed
// write is an error of its class.
func TestWorkloadFileMoreOperations(t *testing.T) {
	uri := testenv.URI(t)
	db := testenv.DBName(t)
	c := connect(t, uri)
	dropAfter(t, c, db)
	path := filepath.Join(t.TempDir(), "more.yaml")
	write(t, path, `collections:
  items:
    seed: 300
    document: {_id: !seq , n: !int {min: 0, max: 9}, tag: !choice [a, b, c]}
    indexes: [{keys: {tag: 1}}]
  log:
    seed: 0
operations:
  tally: {op: count, collection: items, filter: {n: {$lt: 5}}, limit: 100, readPreference: secondaryPreferred}
  tags: {op: distinct, collection: items, key: tag, filter: {n: !int {min: 0, max: 9}}, readPreference: {mode: nearest, maxStalenessSeconds: 90}}
  take: {op: findOneAndUpdate, collection: items, filter: {_id: !key items}, update: {$inc: {n: 1}}, returnDocument: after, projection: {n: 1}}
  swap: {op: findOneAndReplace, collection: items, filter: {_id: !key items}, sort: {_id: 1}}
  pop: {op: findOneAndDelete, collection: log, filter: {}, sort: {_id: 1}, weight: 0.5}
  batch:
    op: bulkWrite
    collection: items
    writes:
      - insertOne: {collection: log, document: {at: !now , n: !int {min: 0, max: 9}}}
      - updateOne: {filter: {_id: !key items}, update: {$set: {tag: b}}}
      - updateMany: {filter: {n: !int {min: 0, max: 9}}, update: [{$set: {m: {$add: [$n, 1]}}}]}
      - replaceOne: {filter: {_id: !key items}, replacement: {n: 0, tag: c}}
      - deleteMany: {collection: log, filter: {n: 99}}
  loose:
    op: bulkWrite
    collection: log
    ordered: false
    writeConcern: {w: majority}
    writes:
      - insertOne: {document: {n: 1}}
      - insertOne: {document: {n: 2}}
      - deleteOne: {filter: {n: 1}}
  move:
    op: transaction
    values: {id: !key items}
    readConcern: snapshot
    writeConcern: {w: majority}
    maxCommitTime: 5s
    steps:
      - {op: findOne, collection: items, filter: {_id: !ref id}}
      - {op: findOneAndUpdate, collection: items, filter: {_id: !ref id}, update: {$inc: {n: 1}}}
      - {op: insertOne, collection: log, document: {moved: !ref id, n: 7}}
      - {op: count, collection: log, filter: {moved: !ref id}}
`)
	names := []string{"batch", "loose", "move", "pop", "swap", "tags", "take", "tally"}
	for _, client := range []string{"wire", "driver"} {
		d := runFile(t, uri, db, path, names, "--ops", "800", "-p", "client="+client)
		if d.Results.DocsReturned == 0 || d.Results.Txns == nil || *d.Results.Txns == 0 {
			t.Errorf("%s: %d documents returned, txns %v", client, d.Results.DocsReturned, d.Results.Txns)
		}
		if client == "wire" && !slices.ContainsFunc(d.Notes, func(n string) bool { return strings.Contains(n, "(tally, tags) go through the driver") }) {
			t.Errorf("no note of the reads with a read preference going through the driver: %q", d.Notes)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for _, check := range []struct {
		coll   string
		filter bson.D
		what   string
	}{
		{"log", bson.D{{Key: "at", Value: bson.D{{Key: "$exists", Value: true}}}}, "the ordered bulkWrite's inserts"},
		{"log", bson.D{{Key: "n", Value: 2}}, "the unordered bulkWrite's inserts"},
		{"log", bson.D{{Key: "moved", Value: bson.D{{Key: "$exists", Value: true}}}}, "the transaction's inserts"},
		{"items", bson.D{{Key: "m", Value: bson.D{{Key: "$exists", Value: true}}}}, "the bulkWrite's update pipeline"},
	} {
		if n, err := c.Database(db).Collection(check.coll).CountDocuments(ctx, check.filter); err != nil || n == 0 {
			t.Errorf("%s: %d documents (%v)", check.what, n, err)
		}
	}
	// a bulkWrite whose insert fails: an error of its class, on both clients
	dup := filepath.Join(t.TempDir(), "dup.yaml")
	write(t, dup, "collections: {t: {seed: 1, document: {_id: !seq }}}\n"+
		"operations:\n  dup: {op: bulkWrite, collection: t, ordered: false, writes: [{insertOne: {document: {_id: 0}}}, {updateOne: {filter: {_id: 0}, update: {$inc: {n: 1}}}}]}\n")
	for _, client := range []string{"wire", "driver"} {
		o := mb(t, "run", "--uri", uri, "--database", db, "--workload", dup, "--ops", "20", "--threads", "1", "-p", "client="+client,
			"--results-file", filepath.Join(t.TempDir(), "r.jsonl"), "--no-report", "--json")
		wantCode(t, o, cli.ExitOK)
		var d struct {
			Ops []struct {
				Errors struct {
					Total        int64 `json:"total"`
					DuplicateKey int64 `json:"duplicateKey"`
				} `json:"errors"`
			} `json:"ops"`
		}
		if err := json.Unmarshal([]byte(o.stdout), &d); err != nil || len(d.Ops) != 1 {
			t.Fatalf("%s: %v\n%s", client, err, o)
		}
		if e := d.Ops[0].Errors; e.Total != 20 || e.DuplicateKey != 20 {
			t.Errorf("%s: errors %+v, want each of the 20 bulkWrites a duplicate key", client, e)
		}
		n, err := c.Database(db).Collection("t").CountDocuments(ctx, bson.D{{Key: "n", Value: 20}})
		if err != nil || n != 1 {
			t.Errorf("%s: the unordered bulkWrite's updates: %d documents with n 20 (%v), want its update applied each time", client, n, err)
		}
	}
}
