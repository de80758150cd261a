package cli_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/infer"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// threeShapes makes n documents of three shapes: users (a nested
// address, an optional phone, a list of tags), orders (a list of item
// sub-documents, an amount that is an int64 or a double, a bool) and
// events (a date as text, a payload of 50 to 1,500 bytes, a value that
// is an int, a string or null, an optional nested trace).
func threeShapes(n int) []any {
	r := rand.New(rand.NewPCG(11, 12))
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	word := func(lo, hi int) string {
		b := make([]byte, lo+r.IntN(hi-lo+1))
		for i := range b {
			b[i] = byte('a' + r.IntN(26))
		}
		return string(b)
	}
	docs := make([]any, 0, n)
	for i := range n {
		switch i % 3 {
		case 0:
			var tags bson.A
			for range r.IntN(6) {
				tags = append(tags, word(3, 8))
			}
			d := bson.D{{Key: "kind", Value: "user"}, {Key: "name", Value: word(5, 20)}, {Key: "email", Value: word(4, 10) + "@example.com"},
				{Key: "address", Value: bson.D{{Key: "street", Value: word(8, 30)}, {Key: "city", Value: word(4, 12)}, {Key: "zip", Value: fmt.Sprintf("%05d", r.IntN(99999))}}},
				{Key: "tags", Value: tags}}
			if r.Float64() < 0.6 {
				d = append(d, bson.E{Key: "phone", Value: fmt.Sprintf("+1%010d", r.Int64N(1e10))})
			}
			docs = append(docs, d)
		case 1:
			var items bson.A
			for range 1 + r.IntN(8) {
				items = append(items, bson.D{{Key: "sku", Value: word(8, 8)}, {Key: "qty", Value: int32(1 + r.IntN(5))}, {Key: "price", Value: float64(r.IntN(10000)) / 100}})
			}
			var amount any = int64(r.IntN(100000))
			if r.Float64() < 0.3 {
				amount = r.Float64() * 1000
			}
			docs = append(docs, bson.D{{Key: "kind", Value: "order"}, {Key: "placed", Value: base.Add(time.Duration(r.IntN(1e6)) * time.Second)},
				{Key: "items", Value: items}, {Key: "amount", Value: amount}, {Key: "paid", Value: r.Float64() < 0.7}})
		default:
			var value any
			switch x := r.Float64(); {
			case x < 0.5:
				value = int32(r.IntN(1000))
			case x < 0.8:
				value = word(2, 10)
			}
			d := bson.D{{Key: "kind", Value: "event"}, {Key: "at", Value: base.Add(time.Duration(r.IntN(1e6)) * time.Second).Format(time.RFC3339)},
				{Key: "payload", Value: word(50, 1500)}, {Key: "value", Value: value}}
			if r.Float64() < 0.25 {
				d = append(d, bson.E{Key: "trace", Value: bson.D{{Key: "id", Value: word(16, 16)}, {Key: "span", Value: int64(r.IntN(1 << 30))}}})
			}
			docs = append(docs, d)
		}
	}
	return docs
}

// allDocuments reads a collection's documents as BSON.
func allDocuments(t *testing.T, c *mongo.Collection) [][]byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cur, err := c.Find(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	var docs [][]byte
	for cur.Next(ctx) {
		docs = append(docs, slices.Clone(cur.Current))
	}
	if err := cur.Err(); err != nil {
		t.Fatal(err)
	}
	return docs
}

// dbState is a hash of a database: its dbHash when the server has the
// command, and in any case every collection's name and options, its
// indexes, and every document in _id order.
func dbState(t *testing.T, db *mongo.Database) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	h := sha256.New()
	if raw, err := db.RunCommand(ctx, bson.D{{Key: "dbHash", Value: 1}}).Raw(); err == nil {
		md5, _ := raw.Lookup("md5").StringValueOK()
		fmt.Fprintf(h, "dbHash %s\n", md5)
	}
	specs, err := db.ListCollectionSpecifications(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(specs, func(a, b mongo.CollectionSpecification) int { return strings.Compare(a.Name, b.Name) })
	for _, s := range specs {
		fmt.Fprintf(h, "collection %s %s %v\n", s.Name, s.Type, s.Options)
		ix, err := db.Collection(s.Name).Indexes().List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		for ix.Next(ctx) {
			h.Write(ix.Current)
		}
		cur, err := db.Collection(s.Name).Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for cur.Next(ctx) {
			h.Write(cur.Current)
			n++
		}
		fmt.Fprintf(h, "%d documents\n", n)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// TestWorkloadInfer samples a collection of three document shapes
// (nested sub-documents, arrays, optional fields, mixed types) with
// `workload infer`, seeds the file it writes, and compares the seeded
// collection with the source: p50 and p95 BSON sizes within 10%, the same
// paths, and per path its presence and each type's share of its values
// within 0.06 (the sample is half the source: the shares drawn twice
// differ by about 0.015 at most one standard deviation). Sampling writes
// nothing: the source database hashes the same before and after.
func TestWorkloadInfer(t *testing.T) {
	uri := testenv.URI(t)
	c := connect(t, uri)
	src, data := testenv.DBName(t)+"_src", testenv.DBName(t)+"_data"
	dropAfter(t, c, src)
	dropAfter(t, c, data)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := c.Database(src).Collection("things").InsertMany(ctx, threeShapes(3000)); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Database(src).Collection("things").Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "kind", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	before := dbState(t, c.Database(src))
	file := filepath.Join(t.TempDir(), "things.yaml")
	o := mb(t, "workload", "infer", "--uri", uri, "--db", src, "--collection", "things", "--sample", "1500", "-o", file)
	wantCode(t, o, cli.ExitOK)
	if after := dbState(t, c.Database(src)); after != before {
		t.Fatalf("sampling changed the sampled database: hash %s before, %s after", before, after)
	}
	if !strings.Contains(o.stderr, "1500 documents of "+src+".things") {
		t.Errorf("stderr does not say what was sampled:\n%s", o)
	}
	text, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if o := mb(t, "workload", "infer", "--uri", uri, "--db", src, "--collection", "things", "-o", file); o.code != cli.ExitUsage || !strings.Contains(o.stderr, "never replaces") {
		t.Errorf("infer over an existing file: want exit 2, the file kept\n%s", o)
	}
	runFile(t, uri, data, file, []string{"read"}, "--ops", "200")
	want := infer.ProfileOf(allDocuments(t, c.Database(src).Collection("things")))
	got := infer.ProfileOf(allDocuments(t, c.Database(data).Collection("things")))
	if got.Docs != 3000 {
		t.Errorf("seeded %d documents, want the source's 3000", got.Docs)
	}
	if d := want.Differences(got, 0.06, 0.10); len(d) > 0 {
		t.Errorf("the seeded collection departs from the source:\n  %s\n%s", strings.Join(d, "\n  "), text)
	}
	t.Logf("source p50 %d p95 %d bytes, seeded p50 %d p95 %d; %d paths", want.P50, want.P95, got.P50, got.P95, len(want.Paths))
}

// TestWorkloadInferFromFile infers and clones offline, from a file of
// documents, without a server; a file that is not documents is bad
// input naming its line.
func TestWorkloadInferFromFile(t *testing.T) {
	dir := t.TempDir()
	var lines bytes.Buffer
	for _, d := range threeShapes(60) {
		b, err := bson.MarshalExtJSON(d, false, false)
		if err != nil {
			t.Fatal(err)
		}
		lines.Write(append(b, '\n'))
	}
	sample := filepath.Join(dir, "things.jsonl")
	if err := os.WriteFile(sample, lines.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, clone := range []bool{false, true} {
		args := []string{"workload", "infer", "--file", sample, "--documents", "500"}
		if clone {
			args = append(args, "--clone")
		}
		o := mb(t, args...)
		wantCode(t, o, cli.ExitOK)
		out := filepath.Join(dir, fmt.Sprintf("out-%v.yaml", clone))
		if err := os.WriteFile(out, []byte(o.stdout), 0o600); err != nil {
			t.Fatal(err)
		}
		chk := mb(t, "workload", "check", out)
		wantCode(t, chk, cli.ExitOK)
		if !strings.Contains(chk.stdout, "collection things: seeds 500 documents") || clone != strings.Contains(o.stdout, "!sample") {
			t.Errorf("clone %v: the file written:\n%s\nits check:\n%s", clone, o.stdout, chk.stdout)
		}
	}
	bad := filepath.Join(dir, "bad.jsonl")
	if err := os.WriteFile(bad, []byte("{\"a\": 1}\n{\"a\": }\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	o := mb(t, "workload", "infer", "--file", bad)
	wantCode(t, o, cli.ExitUsage)
	if !strings.Contains(o.stderr, "bad.jsonl:2: not JSON") {
		t.Errorf("a bad line: want its line named\n%s", o)
	}
	// A file that cannot be written says so, and nothing of success.
	if err := os.Symlink(filepath.Join(dir, "nowhere"), filepath.Join(dir, "dangling.yaml")); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{filepath.Join(dir, "missing", "out.yaml"), filepath.Join(dir, "dangling.yaml")} {
		o := mb(t, "workload", "infer", "--file", sample, "-o", out)
		wantCode(t, o, cli.ExitUsage)
		if line := errorLine(t, o, false); !strings.Contains(line, "--out") || strings.Contains(o.stderr, "seeds") {
			t.Errorf("-o %s: want only the error, naming --out:\n%s", out, o)
		}
	}
	var errOut bytes.Buffer
	if code := cli.Main(context.Background(), []string{"workload", "infer", "--file", sample}, failingWriter{}, &errOut); code == cli.ExitOK || strings.Contains(errOut.String(), "seeds") || !strings.Contains(errOut.String(), "standard output") {
		t.Errorf("standard output failing: exit %d, want an error and nothing of success:\n%s", code, errOut.String())
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, syscall.ENOSPC }

// TestWorkloadFileWritesOnlyItsDatabase: a $merge or $out into another
// database is refused before the run, by `run` against a server and by
// `workload check`: exit 2, one line naming file:line:column, and the
// run's data database is not created.
func TestWorkloadFileWritesOnlyItsDatabase(t *testing.T) {
	uri := testenv.URI(t)
	c := connect(t, uri)
	db := testenv.DBName(t)
	dir := t.TempDir()
	for _, tc := range []struct {
		name, stage string
		col         int
	}{
		{"merge", "{$merge: {into: {db: admin, coll: stolen}}}", 47},
		{"out", "{$out: {db: other, coll: stolen}}", 38},
	} {
		text := "collections:\n  kv:\n    seed: 10\n    document: {_id: !seq , v: !int 0}\n" +
			"operations:\n  copy:\n    op: aggregate\n    collection: kv\n    pipeline: [{$match: {}}, " + tc.stage + "]\n"
		path := filepath.Join(dir, tc.name+".yaml")
		if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, args := range [][]string{
			{"run", "--uri", uri, "--database", db, "--workload", path, "--ops", "10", "--no-report", "--results-file", filepath.Join(dir, "r.jsonl")},
			{"workload", "check", path},
		} {
			o := mb(t, args...)
			wantCode(t, o, cli.ExitUsage)
			lines := strings.Split(strings.TrimSpace(o.stderr), "\n")
			want := fmt.Sprintf("%s:9:%d: operations.copy.pipeline[1].$", path, tc.col)
			if len(lines) != 1 || !strings.Contains(lines[0], want) || !strings.Contains(lines[0], "may only name a collection") {
				t.Errorf("%s %s: want one line with %q\n%s", tc.name, args[0], want, o)
			}
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	names, err := c.ListDatabaseNames(ctx, bson.D{})
	if err != nil || slices.Contains(names, db) || slices.Contains(names, "other") {
		t.Errorf("databases %v (%v): want neither %s nor other created", names, err, db)
	}
}
