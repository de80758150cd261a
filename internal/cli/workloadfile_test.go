package cli_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
	"github.com/mongobench/mongobench/internal/workloadfile"
)

// fileRun is what the workload file tests read of a run's document.
type fileRun struct {
	Notes      []string       `json:"notes"`
	TestConfig map[string]any `json:"test_config"`
	Results    struct {
		DocsReturned int64  `json:"docsReturned"`
		Txns         *int64 `json:"txns"`
		Retries      *int64 `json:"retries"`
		Failed       *int64 `json:"failed"`
	} `json:"testResults"`
	Ops []struct {
		Name   string `json:"name"`
		Count  int64  `json:"count"`
		Errors struct {
			Total int64 `json:"total"`
		} `json:"errors"`
	} `json:"ops"`
}

// runFile runs a workload file against the test server and returns its
// document, checked for what every file's run holds: the operations
// named as the file names them, none failed, the file's text and hash
// in test_config, and the mix achieved in the notes.
func runFile(t *testing.T, uri, db, path string, names []string, args ...string) fileRun {
	t.Helper()
	o := mb(t, append([]string{"run", "--uri", uri, "--database", db, "--workload", path, "--threads", "2",
		"--results-file", filepath.Join(t.TempDir(), "r.jsonl"), "--no-report", "--json"}, args...)...)
	wantCode(t, o, cli.ExitOK)
	var d fileRun
	if err := json.Unmarshal([]byte(o.stdout), &d); err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%s", err, o.stdout)
	}
	var got []string
	for _, op := range d.Ops {
		got = append(got, op.Name)
		if op.Errors.Total != 0 {
			t.Errorf("%s: %d errors\n%s", op.Name, op.Errors.Total, o)
		}
	}
	slices.Sort(got)
	if !slices.Equal(got, names) {
		t.Errorf("operations %v, want %v", got, names)
	}
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(text)
	if d.TestConfig["workloadFile"] != string(text) || d.TestConfig["workloadFileSHA256"] != hex.EncodeToString(sum[:]) {
		t.Errorf("test_config does not keep the file's text and hash: %v", d.TestConfig["workloadFileSHA256"])
	}
	if !slices.ContainsFunc(d.Notes, func(n string) bool { return strings.HasPrefix(n, "mix achieved (stated): ") }) {
		t.Errorf("no note of the mix achieved: %q", d.Notes)
	}
	return d
}

// TestWorkloadFileKV runs the shipped kv.yaml on both clients: every
// point read finds the document the seed wrote (read-your-own-writes).
func TestWorkloadFileKV(t *testing.T) {
	uri := testenv.URI(t)
	db := testenv.DBName(t)
	dropAfter(t, connect(t, uri), db)
	for _, client := range []string{"wire", "driver"} {
		d := runFile(t, uri, db, "../../workloads/kv.yaml", []string{"read", "update"}, "--ops", "600", "-p", "client="+client)
		var reads, updates int64
		for _, op := range d.Ops {
			switch op.Name {
			case "read":
				reads = op.Count
			case "update":
				updates = op.Count
			}
		}
		if d.TestConfig["client"] != client || reads+updates != 600 || reads < 200 || updates < 200 {
			t.Errorf("%s: %d reads, %d updates, client %v; want 600 about half and half", client, reads, updates, d.TestConfig["client"])
		}
		if d.Results.DocsReturned != reads {
			t.Errorf("%s: %d documents returned by %d point reads: want every read to find its seeded document", client, d.Results.DocsReturned, reads)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var sum struct {
		V int64 `bson:"v"`
	}
	cur, err := connect(t, uri).Database(db).Collection("kv").Aggregate(ctx, bson.A{bson.M{"$group": bson.M{"_id": nil, "v": bson.M{"$sum": "$v"}}}})
	if err != nil || !cur.Next(ctx) || cur.Decode(&sum) != nil || sum.V < 200 {
		t.Errorf("the updates' $inc: sum of v %d (%v), want at least the last run's updates", sum.V, err)
	}
}

// TestWorkloadFileOrders runs the shipped order store: its indexes are
// created, its secondary-index reads and aggregation return documents,
// and its inserts add to the seed.
func TestWorkloadFileOrders(t *testing.T) {
	uri := testenv.URI(t)
	db := testenv.DBName(t)
	c := connect(t, uri)
	dropAfter(t, c, db)
	d := runFile(t, uri, db, "../../workloads/orders.yaml", []string{"customer", "latestOrders", "pay", "placeOrder", "salesByStatus"}, "--ops", "400")
	if d.Results.DocsReturned == 0 {
		t.Error("the reads returned no documents")
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n, err := c.Database(db).Collection("orders").CountDocuments(ctx, bson.D{})
	var placed int64
	for _, op := range d.Ops {
		if op.Name == "placeOrder" {
			placed = op.Count
		}
	}
	if err != nil || placed == 0 || n != 20000+placed {
		t.Errorf("orders: %d documents (%v), want the 20000 seeded and the %d placed", n, err, placed)
	}
	specs, err := c.Database(db).Collection("orders").Indexes().ListSpecifications(ctx)
	var names []string
	for _, s := range specs {
		names = append(names, s.Name)
	}
	if err != nil || !slices.Contains(names, "customer_1_placed_-1") || !slices.Contains(names, "status_1") {
		t.Errorf("orders' indexes: %v (%v)", names, err)
	}
	paid, err := c.Database(db).Collection("orders").CountDocuments(ctx, bson.D{{Key: "paidAt", Value: bson.D{{Key: "$exists", Value: true}}}})
	if err != nil || paid == 0 {
		t.Errorf("no order was paid (%v): the updates' filters name no seeded order", err)
	}
}

// TestWorkloadFileFromScenario runs a scenario file whose workload: is a
// workload file beside it.
func TestWorkloadFileFromScenario(t *testing.T) {
	uri := testenv.URI(t)
	db := testenv.DBName(t)
	dropAfter(t, connect(t, uri), db)
	dir := t.TempDir()
	write(t, filepath.Join(dir, "tiny.yaml"), "collections:\n  t:\n    seed: 10\n    document: {_id: !seq , n: !int {min: 1, max: 9}}\n"+
		"operations:\n  get: {op: findOne, collection: t, filter: {_id: !key t}}\n")
	write(t, filepath.Join(dir, "scenario.yaml"), "workload: tiny.yaml\nops: 50\nthreads: 1\ndatabase: "+db+"\n")
	o := mb(t, "run", filepath.Join(dir, "scenario.yaml"), "--uri", uri, "--results-file", filepath.Join(dir, "r.jsonl"), "--no-report", "--json")
	wantCode(t, o, cli.ExitOK)
	var d fileRun
	if err := json.Unmarshal([]byte(o.stdout), &d); err != nil {
		t.Fatal(err)
	}
	if d.TestConfig["workload"] != filepath.Join(dir, "tiny.yaml") || d.Results.DocsReturned != 50 {
		t.Errorf("workload %v, %d documents returned; want the file beside the scenario, 50", d.TestConfig["workload"], d.Results.DocsReturned)
	}
}

// TestWorkloadFileBad checks a file with problems stops the run before
// anything is touched, with each problem located, and exit code 2.
func TestWorkloadFileBad(t *testing.T) {
	uri := testenv.URI(t)
	db := testenv.DBName(t)
	c := connect(t, uri)
	path := filepath.Join(t.TempDir(), "bad.yaml")
	write(t, path, "collections:\n  t:\n    seed: 10\n    document: {_id: !seq , n: !int {min: 9, max: 1}}\n"+
		"operations:\n  get: {op: findOne, collection: u, filter: {_id: !ref id}}\n")
	o := mb(t, "run", "--uri", uri, "--database", db, "--workload", path, "--ops", "10", "--no-report")
	wantCode(t, o, cli.ExitUsage)
	for _, want := range []string{path + ":4:42: collections.t.document.n: !int: min 9 is above max 1",
		path + ":6:34: operations.get.collection: unknown collection \"u\"", path + ":6:51: operations.get.filter._id: !ref: undefined value \"id\""} {
		if !strings.Contains(o.stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, o.stderr)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	names, err := c.ListDatabaseNames(ctx, bson.D{{Key: "name", Value: db}})
	if err != nil || len(names) != 0 {
		t.Errorf("database %s: %v (%v); want nothing created", db, names, err)
	}
}

// TestWorkloadCheck checks a file without a server: its documents and
// commands are printed, values filled in; a bad file exits 2.
func TestWorkloadCheck(t *testing.T) {
	o := mb(t, "workload", "check", "../../workloads/orders.yaml")
	wantCode(t, o, cli.ExitOK)
	for _, want := range []string{"collection orders: seeds 20000 documents, 2 indexes", `index {"key": {"customer": 1, "placed": -1}`,
		"seed document 0", `{"aggregate": "orders", "pipeline": [{"$match"`, "latestOrders 40%, placeOrder 30%"} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, o.stdout)
		}
	}
	path := filepath.Join(t.TempDir(), "bad.yaml")
	write(t, path, "collections: {t: {seed: 1, documnt: {}}}\noperations: {}\n")
	o = mb(t, "workload", "check", path)
	wantCode(t, o, cli.ExitUsage)
	if !strings.Contains(o.stderr, path+`:1:28: collections.t: unknown collection key "documnt" (did you mean "document"?`) {
		t.Errorf("stderr: %s", o.stderr)
	}
}

// TestWorkloadCheckHostile: a stage that writes into another database
// through a tag exits 2, located; a check whose context ends exits 130.
func TestWorkloadCheckHostile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out.yaml")
	write(t, path, "collections: {orders: {seed: 5, document: {_id: !seq , q: 1}}}\noperations:\n"+
		"  agg: {op: aggregate, collection: orders, pipeline: [{$match: {}}, {$out: !ejson '{\"db\":\"victimdb\",\"coll\":\"orders\"}'}]}\n")
	o := mb(t, "workload", "check", path)
	wantCode(t, o, cli.ExitUsage)
	if !strings.Contains(o.stderr, path+":3:76: operations.agg.pipeline[1].$out: !ejson: a stage that writes may only name a collection") {
		t.Errorf("stderr: %s", o.stderr)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errOut bytes.Buffer
	if code := cli.Main(ctx, []string{"workload", "check", "../../workloads/orders.yaml"}, &out, &errOut); code != cli.ExitInterrupted {
		t.Errorf("exit %d, want %d: %s", code, cli.ExitInterrupted, errOut.String())
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestWorkloadFileOwnsItsDatabase: a workload file writes only into a
// database mongobench owns; one holding another's collection is refused
// and left as it was.
func TestWorkloadFileOwnsItsDatabase(t *testing.T) {
	uri := testenv.URI(t)
	db := testenv.DBName(t)
	c := connect(t, uri)
	dropAfter(t, c, db)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if _, err := c.Database(db).Collection("kv").InsertOne(ctx, bson.D{{Key: "_id", Value: "theirs"}}); err != nil {
		t.Fatal(err)
	}
	o := mb(t, "run", "--uri", uri, "--database", db, "--workload", "../../workloads/kv.yaml", "--ops", "10", "--no-report",
		"--results-file", filepath.Join(t.TempDir(), "r.jsonl"))
	if o.code == cli.ExitOK || !strings.Contains(o.stderr, "no mongobench marker") {
		t.Fatalf("a database without the marker was not refused:\n%s", o)
	}
	n, err := c.Database(db).Collection("kv").CountDocuments(ctx, bson.D{})
	if err != nil || n != 1 {
		t.Errorf("their collection holds %d documents (%v), want its 1 untouched", n, err)
	}
	o = mb(t, "run", "--uri", uri, "--database", "admin", "--workload", "../../workloads/kv.yaml", "--ops", "10", "--no-report")
	wantCode(t, o, cli.ExitUsage)
}

// TestWorkloadFileEveryOperation runs every kind of operation against
// the server, on both clients: none fails, and the aggregation's $out
// writes its collection into the data database.
func TestWorkloadFileEveryOperation(t *testing.T) {
	uri := testenv.URI(t)
	db := testenv.DBName(t)
	c := connect(t, uri)
	dropAfter(t, c, db)
	path := filepath.Join(t.TempDir(), "every.yaml")
	write(t, path, `collections:
  items:
    seed: 300
    document: {_id: !seq , n: !int {min: 0, max: 9}, tag: !choice [a, b], at: !now }
    indexes: [{keys: {n: 1, tag: 1}}, {keys: {at: 1}, expireAfterSeconds: 3600}]
operations:
  find: {op: find, collection: items, filter: {n: !int {min: 0, max: 9}}, sort: {_id: 1}, projection: {tag: 1}, limit: 20, hint: {n: 1, tag: 1}}
  scan: {op: find, collection: items, filter: {}, weight: 0.2}
  one: {op: findOne, collection: items, filter: {_id: !key items}, readConcern: majority}
  tally: {op: aggregate, collection: items, pipeline: [{$group: {_id: $tag, n: {$sum: 1}}}, {$out: tallies}], weight: 0.2}
  add: {op: insertOne, collection: items, writeConcern: {w: majority, j: true}}
  addMany: {op: insertMany, collection: items, count: {min: 2, max: 5}, ordered: false}
  bump: {op: updateOne, collection: items, filter: {_id: !key items}, update: [{$set: {n: {$add: [$n, 1]}}}]}
  bumpAll: {op: updateMany, collection: items, filter: {tag: b, n: !int {min: 0, max: 9}}, update: {$inc: {n: 1}}, weight: 0.3}
  upsert: {op: updateOne, collection: items, filter: {_id: !int {min: 100000, max: 200000}}, update: {$set: {tag: c}}, upsert: true}
  swap: {op: replaceOne, collection: items, filter: {_id: !key items}}
  drop: {op: deleteOne, collection: items, filter: {_id: !key {collection: items, dist: sequential}}}
  dropMany: {op: deleteMany, collection: items, filter: {n: {$gt: 30}}, weight: 0.2}
`)
	names := []string{"add", "addMany", "bump", "bumpAll", "drop", "dropMany", "find", "one", "scan", "swap", "tally", "upsert"}
	for _, client := range []string{"wire", "driver"} {
		d := runFile(t, uri, db, path, names, "--ops", "1200", "-p", "client="+client)
		if d.Results.DocsReturned == 0 {
			t.Errorf("%s: the reads returned nothing", client)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	n, err := c.Database(db).Collection("tallies").CountDocuments(ctx, bson.D{})
	if err != nil || n == 0 {
		t.Errorf("the aggregation's $out wrote %d documents (%v)", n, err)
	}
}

// TestShippedWorkloads runs every file of workloads/ (kv.yaml,
// orders.yaml and ledger.yaml have tests of their own, which look
// further): each checks, and runs without a failed operation, its
// operations named as it names them, its reads returning documents and
// its audit, if it has one, finding nothing wrong.
func TestShippedWorkloads(t *testing.T) {
	uri := testenv.URI(t)
	paths, err := filepath.Glob("../../workloads/*.yaml")
	if err != nil || len(paths) < 4 {
		t.Fatalf("shipped workloads: %v (%v)", paths, err)
	}
	for _, path := range paths {
		t.Run(filepath.Base(path), func(t *testing.T) {
			wantCode(t, mb(t, "workload", "check", path), cli.ExitOK)
			f, err := workloadfile.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			names := f.OpNames()
			slices.Sort(names)
			db := testenv.DBName(t)
			dropAfter(t, connect(t, uri), db)
			d := runFile(t, uri, db, path, names, "--ops", "500")
			if d.Results.DocsReturned == 0 && slices.ContainsFunc(f.Ops, func(o *workloadfile.Op) bool { return !o.Write() }) {
				t.Error("the reads returned no documents")
			}
			if f.Audit != nil {
				checkAudit(t, d)
			}
		})
	}
}
