package workload_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
	"github.com/mongobench/mongobench/internal/workload"
	"github.com/mongobench/mongobench/internal/workload/builtin"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// ownedDB returns a fresh database the tool has claimed, dropped when
// the test ends.
func ownedDB(t *testing.T) *mongo.Database {
	t.Helper()
	db := testenv.Client(t, testenv.URI(t)).Database(testenv.DBName(t))
	t.Cleanup(func() { _ = workload.DropOwned(context.Background(), db) })
	if err := workload.Claim(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	return db
}

// paramsOf returns a workload's validated parameters with the given
// -p assignments.
func paramsOf(t *testing.T, name string, assignments ...string) spec.Params {
	t.Helper()
	reg := builtin.Registry()
	sc := &spec.Scenario{Workload: name}
	for _, a := range assignments {
		if err := sc.SetParam(reg, a); err != nil {
			t.Fatal(err)
		}
	}
	if err := sc.Validate(reg); err != nil {
		t.Fatal(err)
	}
	return sc.Params
}

func params(t *testing.T, assignments ...string) spec.Params {
	return paramsOf(t, "kv", assignments...)
}

// prepare prepares a run of w.
func prepare(t *testing.T, w workload.Workload, env workload.Env, p spec.Params) workload.Run {
	t.Helper()
	run, err := w.Prepare(context.Background(), env, p)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// TestKVDocumentsHaveTheAskedSize preloads real documents and checks their
// stored BSON size and count.
func TestKVDocumentsHaveTheAskedSize(t *testing.T) {
	db := ownedDB(t)
	ctx := context.Background()
	for _, size := range []string{"100B", "1KB", "16KB"} {
		p := params(t, "records=250", "docSize="+size, "batchSize=100", "loaders=3")
		var last int64
		env := workload.Env{DB: db, URI: testenv.URI(t), Seed: 7, Progress: func(_ string, done, _ int64) { last = max(last, done) }}
		prepare(t, workload.KV{}, env, p)
		coll := db.Collection(workload.KVCollection)
		if n, err := coll.CountDocuments(ctx, bson.D{}); err != nil || n != 250 || last != 250 {
			t.Fatalf("docSize %s: count %d (err %v), progress %d: want 250", size, n, err, last)
		}
		raw, err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: int64(123)}}).Raw()
		if err != nil {
			t.Fatal(err)
		}
		if got, want := int64(len(raw)), int64(p.Size("docSize")); got != want {
			t.Errorf("docSize %s: stored document is %d bytes, want %d", size, got, want)
		}
	}
}

func TestKVTaskReadsAndUpdates(t *testing.T) {
	db := ownedDB(t)
	ctx := context.Background()
	p := params(t, "records=50", "readPercent=50")
	env := workload.Env{DB: db, URI: testenv.URI(t), Seed: 1}
	task, err := prepare(t, workload.KV{}, env, p).Tasks.NewTask(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	var counts [2]int
	for range 400 {
		op, err := task.Do(ctx)
		if err != nil {
			t.Fatalf("op %d: %v", op, err)
		}
		counts[op]++
	}
	if counts[0] < 150 || counts[1] < 150 {
		t.Errorf("reads/updates: got %v, want about 200 each", counts)
	}
	var sum struct {
		V int64 `bson:"v"`
	}
	cur, err := db.Collection(workload.KVCollection).Aggregate(ctx, mongo.Pipeline{
		{{Key: "$group", Value: bson.D{{Key: "_id", Value: nil}, {Key: "v", Value: bson.D{{Key: "$sum", Value: "$v"}}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	if !cur.Next(ctx) || cur.Decode(&sum) != nil || sum.V != int64(counts[1]) {
		t.Errorf("sum of v: got %d, want %d (one $inc per update)", sum.V, counts[1])
	}
}

// TestClassifyRealErrors classifies errors the driver really returns.
func TestClassifyRealErrors(t *testing.T) {
	c := testenv.Client(t, testenv.URI(t))
	ctx := context.Background()
	coll := c.Database(testenv.DBName(t)).Collection("dup")
	t.Cleanup(func() { _ = c.Database(coll.Database().Name()).Drop(ctx) })
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	_, dup := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: 1}})
	expired, cancel := context.WithDeadline(ctx, time.Now().Add(-time.Second))
	defer cancel()
	_, timeout := coll.InsertOne(expired, bson.D{{Key: "_id", Value: 2}})
	dead, err := mongo.Connect(options.Client().ApplyURI("mongodb://127.0.0.1:1/").SetServerSelectionTimeout(300 * time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	_, unreachable := dead.Database("x").Collection("y").InsertOne(ctx, bson.D{})
	tests := []struct {
		name string
		err  error
		want engine.Class
	}{
		{"duplicate _id", dup, engine.DuplicateKey},
		{"expired deadline", timeout, engine.Timeout},
		{"no server", unreachable, engine.Timeout},
		{"write conflict", mongo.CommandError{Code: 112, Name: "WriteConflict"}, engine.WriteConflict},
		{"overloaded", mongo.CommandError{Code: 462, Labels: []string{"SystemOverloadedError"}}, engine.Overload},
		{"anything else", errors.New("boom"), engine.Other},
	}
	for _, tt := range tests {
		if tt.err == nil {
			t.Errorf("%s: the server returned no error", tt.name)
			continue
		}
		if got := workload.Classify(tt.err); got != tt.want {
			t.Errorf("%s (%v): got %v want %v", tt.name, tt.err, got, tt.want)
		}
	}
}
