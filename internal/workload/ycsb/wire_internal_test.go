package ycsb

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
	"github.com/mongobench/mongobench/internal/wire"
	"github.com/mongobench/mongobench/internal/workload"
	core "github.com/mongobench/mongobench/internal/ycsb"
)

// openWireTask loads a small ycsb-e table (the wire client) and returns a
// wire task over it.
func openWireTask(t *testing.T, assignments ...string) (*wireTask, *mongo.Collection) {
	t.Helper()
	wt, db := openPresetTask(t, "e", append([]string{"recordcount=100", "minscanlength=5", "maxscanlength=5"}, assignments...)...)
	return wt, db.Collection("usertable")
}

// openPresetTask loads the table of a preset's workload with the given
// -p assignments, in a database of the test's own, and returns a wire
// task over it, closed when the test ends.
func openPresetTask(tb testing.TB, preset string, assignments ...string) (*wireTask, *mongo.Database) {
	tb.Helper()
	uri := testenv.URI(tb)
	db := testenv.Client(tb, uri).Database(testenv.DBName(tb))
	tb.Cleanup(func() { _ = workload.DropOwned(context.Background(), db) })
	if err := workload.Claim(context.Background(), db); err != nil {
		tb.Fatal(err)
	}
	w := Workload{Preset: preset}
	sc := &spec.Scenario{Workload: w.Name()}
	reg := workload.NewRegistry(w)
	for _, a := range assignments {
		if err := sc.SetParam(reg, a); err != nil {
			tb.Fatal(err)
		}
	}
	if err := sc.Validate(reg); err != nil {
		tb.Fatal(err)
	}
	env := workload.Env{DB: db, URI: uri, Seed: 3}
	run, err := w.Prepare(context.Background(), env, sc.Params)
	if err != nil {
		tb.Fatal(err)
	}
	task, err := run.Tasks.NewTask(context.Background(), 0)
	if err != nil {
		tb.Fatal(err)
	}
	wt, ok := task.(*wireTask)
	if !ok {
		tb.Fatalf("task is %T, want the wire task", task)
	}
	tb.Cleanup(func() { _ = wt.Close() })
	return wt, db
}

// TestYCSBWireReadsAndScans checks that a read returns the stored record
// (every field, or the projected one) and a scan the right keys in order.
func TestYCSBWireReadsAndScans(t *testing.T) {
	ctx := context.Background()
	task, coll := openWireTask(t)
	for _, keynum := range []int64{0, 17, 99} {
		key := core.KeyName(keynum, 1, false)
		want, err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: key}}).Raw()
		if err != nil {
			t.Fatal(err)
		}
		got, err := task.readDoc(ctx, keynum)
		if err != nil || string(got) != string(want) {
			t.Errorf("read %s: got %v (err %v), want the stored record %v", key, bson.Raw(got), err, want)
		}
		var ids []string
		n, err := task.scanEach(ctx, keynum, func(batch bsoncore.Array) {
			vals, _ := batch.Values()
			for _, v := range vals {
				id, _ := v.Document().Lookup("_id").StringValueOK()
				ids = append(ids, id)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
		cur, err := coll.Find(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$gte", Value: key}}}},
			options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}).SetLimit(5).SetProjection(bson.D{{Key: "_id", Value: 1}}))
		if err != nil {
			t.Fatal(err)
		}
		var docs []struct {
			ID string `bson:"_id"`
		}
		if err := cur.All(ctx, &docs); err != nil {
			t.Fatal(err)
		}
		var wantIDs []string
		for _, d := range docs {
			wantIDs = append(wantIDs, d.ID)
		}
		if int(n) != len(ids) || !slices.Equal(ids, wantIDs) || len(ids) == 0 {
			t.Errorf("scan from %s: got %v (%d), want %v", key, ids, n, wantIDs)
		}
	}
	if _, err := task.readDoc(ctx, 1_000_000); !errors.Is(err, mongo.ErrNoDocuments) {
		t.Errorf("read of a missing key: got %v, want mongo.ErrNoDocuments", err)
	}

	one, _ := openWireTask(t, "readallfields=false")
	got, err := one.readDoc(ctx, 5)
	if err != nil {
		t.Fatal(err)
	}
	if n := wire.Count(got); n != 2 {
		t.Errorf("read of one field: got %v, want _id and one field", bson.Raw(got))
	}
}

// TestClassifyWireErrors classifies errors the wire client really returns
// as the driver's are classified.
func TestClassifyWireErrors(t *testing.T) {
	ctx := context.Background()
	task, coll := openWireTask(t)
	// The next insert's key is recordcount: make it exist already.
	if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: core.KeyName(100, 1, false)}}); err != nil {
		t.Fatal(err)
	}
	dup := task.insert(ctx)
	expired, cancel := context.WithDeadline(ctx, time.Now().Add(-time.Second))
	defer cancel()
	timeout := task.read(expired, 1)
	o, err := wire.Parse("mongodb://127.0.0.1:1/?connectTimeoutMS=300")
	if err != nil {
		t.Fatal(err)
	}
	_, unreachable := wire.Dial(ctx, o)
	tests := []struct {
		name string
		err  error
		want engine.Class
	}{
		{"duplicate _id", dup, engine.DuplicateKey},
		{"expired deadline", timeout, engine.Timeout},
		{"no server", unreachable, engine.Network},
		{"write conflict", &wire.Error{Code: 112, CodeName: "WriteConflict"}, engine.WriteConflict},
		{"overloaded", &wire.Error{Code: 462, Labels: []string{"SystemOverloadedError"}}, engine.Overload},
		{"max time", &wire.Error{Code: 50}, engine.Timeout},
		{"not found", errNotFound, engine.Other},
	}
	for _, tt := range tests {
		if tt.err == nil {
			t.Errorf("%s: no error", tt.name)
			continue
		}
		if got := workload.Classify(tt.err); got != tt.want {
			t.Errorf("%s (%v): got %v want %v", tt.name, tt.err, got, tt.want)
		}
	}
	// The connection is usable after the expired deadline.
	if err := task.read(ctx, 1); err != nil {
		t.Errorf("read after a timeout: %v, want a new connection", err)
	}
}

// BenchmarkYCSBWire runs workload A's mix and C's reads on one wire
// connection (go test -bench YCSBWire -benchmem: allocations per
// operation; -cpuprofile for where the client's CPU goes).
func BenchmarkYCSBWire(b *testing.B) {
	for _, preset := range []string{"a", "c"} {
		b.Run(preset, func(b *testing.B) {
			task, _ := openPresetTask(b, preset, "recordcount=2000")
			ctx := context.Background()
			b.ReportAllocs()
			b.ResetTimer()
			for b.Loop() {
				if _, err := task.Do(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
