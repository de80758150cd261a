package workload_test

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
	"github.com/mongobench/mongobench/internal/workload"
)

// setUpAndRun sets w up and runs ops operations spread over workers
// tasks at once; it returns the tasks and how many operations succeeded.
func setUpAndRun(t *testing.T, w workload.Workload, env workload.Env, p spec.Params, workers, ops int) ([]engine.Task, int64) {
	t.Helper()
	return runTasks(t, prepare(t, w, env, p).Tasks, workers, ops)
}

// runTasks runs ops operations spread over workers new tasks at once.
func runTasks(t *testing.T, run workload.Tasks, workers, ops int) ([]engine.Task, int64) {
	t.Helper()
	ctx := context.Background()
	tasks := make([]engine.Task, workers)
	for i := range tasks {
		task, err := run.NewTask(context.Background(), i)
		if err != nil {
			t.Fatal(err)
		}
		tasks[i] = task
	}
	var ok atomic.Int64
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, ops)
	for _, task := range tasks {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for next.Add(1) <= int64(ops) {
				if _, err := task.Do(ctx); err != nil {
					errs <- err
					continue
				}
				ok.Add(1)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Errorf("operation failed: %v", err)
	}
	return tasks, ok.Load()
}

// TestHotDocCountsEveryUpdate runs concurrent updates of the hot
// document and checks that its count equals the successful operations,
// that ix (indexed) changes only with indexUpdate, and that only then the
// collection has an index on ix.
func TestHotDocCountsEveryUpdate(t *testing.T) {
	ctx := context.Background()
	db := ownedDB(t)
	for _, indexed := range []bool{false, true} {
		p := paramsOf(t, "hotdoc", "records=300", "docSize=512B", fmt.Sprintf("indexUpdate=%v", indexed), "batchSize=100")
		env := workload.Env{DB: db, URI: testenv.URI(t), Seed: 3}
		_, ok := setUpAndRun(t, workload.HotDoc{}, env, p, 16, 400)
		coll := db.Collection(workload.HotDocCollection)
		var hot struct {
			Count int64 `bson:"count"`
			IX    int64 `bson:"ix"`
		}
		if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: workload.HotKey}}).Decode(&hot); err != nil {
			t.Fatal(err)
		}
		wantIX := workload.HotKey
		if indexed {
			wantIX += ok
		}
		if ok != 400 || hot.Count != ok || hot.IX != wantIX {
			t.Errorf("indexUpdate=%v: %d ops succeeded, hot count %d, ix %d; want 400, 400, %d", indexed, ok, hot.Count, hot.IX, wantIX)
		}
		if n, err := coll.CountDocuments(ctx, bson.D{{Key: "count", Value: bson.D{{Key: "$gt", Value: 0}}}}); err != nil || n != 1 {
			t.Errorf("indexUpdate=%v: %d documents updated (%v), want only the hot one", indexed, n, err)
		}
		if got := hasIndexOn(t, coll, "ix"); got != indexed {
			t.Errorf("indexUpdate=%v: index on ix %v", indexed, got)
		}
	}
}

func hasIndexOn(t *testing.T, coll *mongo.Collection, field string) bool {
	t.Helper()
	specs, err := coll.Indexes().ListSpecifications(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range specs {
		var keys bson.D
		if err := bson.Unmarshal(s.KeysDocument, &keys); err != nil {
			t.Fatal(err)
		}
		if len(keys) == 1 && keys[0].Key == field {
			return true
		}
	}
	return false
}

// TestUpdateAPIWritesTheShareOfNewKeys runs every update function, with
// and without upsert, at several shares of new keys, and checks the exact
// number of documents created, by which path (upsert or insert on miss),
// that every operation $inc'd one count, and that a created document has
// the preloaded documents' size.
func TestUpdateAPIWritesTheShareOfNewKeys(t *testing.T) {
	ctx := context.Background()
	db := ownedDB(t)
	const records, ops = 200, 120
	for _, fn := range []string{workload.FuncUpdateOne, workload.FuncFindOneAndUpdate} {
		for _, upsert := range []bool{false, true} {
			for _, pct := range []int{0, 25, 50, 100} {
				name := fmt.Sprintf("%s upsert=%v percentNew=%d", fn, upsert, pct)
				p := paramsOf(t, "updateapi", fmt.Sprintf("records=%d", records), "docSize=1KB", "updateFunction="+fn,
					fmt.Sprintf("upsert=%v", upsert), fmt.Sprintf("percentNew=%d", pct), "batchSize=64")
				env := workload.Env{DB: db, URI: testenv.URI(t), Seed: 5}
				tasks, ok := setUpAndRun(t, workload.UpdateAPI{}, env, p, 4, ops)
				wantNew := int64(ops * pct / 100)
				var inserts, upserts int64
				for _, task := range tasks {
					c := task.(workload.Counter).Counts().Map()
					inserts += c["insertsOnMiss"]
					upserts += c["upserts"]
				}
				wantInserts, wantUpserts := wantNew, int64(0)
				if upsert {
					wantInserts, wantUpserts = 0, wantNew
				}
				coll := db.Collection(workload.UpdateAPICollection)
				n, err := coll.CountDocuments(ctx, bson.D{})
				if err != nil {
					t.Fatal(err)
				}
				if ok != ops || n != records+wantNew || inserts != wantInserts || upserts != wantUpserts {
					t.Errorf("%s: %d ok, %d documents, %d inserts on miss, %d upserts; want %d, %d, %d, %d",
						name, ok, n, inserts, upserts, ops, records+wantNew, wantInserts, wantUpserts)
				}
				if sum := sumOf(t, coll, "count"); sum != ops {
					t.Errorf("%s: sum of count %d, want %d (one $inc per operation)", name, sum, ops)
				}
				if wantNew == 0 {
					continue
				}
				raw, err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: int64(records)}}).Raw()
				if err != nil {
					t.Fatalf("%s: first new key: %v", name, err)
				}
				if len(raw) != 1024 || raw.Lookup("ix").Int64() != records || raw.Lookup("count").Int64() != 1 {
					t.Errorf("%s: new document %d bytes, ix %v, count %v; want 1024 bytes, ix %d, count 1",
						name, len(raw), raw.Lookup("ix"), raw.Lookup("count"), records)
				}
			}
		}
	}
}

func sumOf(t *testing.T, coll *mongo.Collection, field string) int64 {
	t.Helper()
	ctx := context.Background()
	cur, err := coll.Aggregate(ctx, mongo.Pipeline{
		{{Key: "$group", Value: bson.D{{Key: "_id", Value: nil}, {Key: "s", Value: bson.D{{Key: "$sum", Value: "$" + field}}}}}}})
	if err != nil {
		t.Fatal(err)
	}
	var out struct {
		S int64 `bson:"s"`
	}
	if !cur.Next(ctx) || cur.Decode(&out) != nil {
		t.Fatalf("sum of %s: no result (%v)", field, cur.Err())
	}
	return out.S
}

// TestUpdateAPIUsesItsFunction checks on the server's opcounters that
// updateOne sends update commands and findOneAndUpdate does not (it is a
// findAndModify command).
func TestUpdateAPIUsesItsFunction(t *testing.T) {
	db := ownedDB(t)
	const ops = 50
	for _, fn := range []string{workload.FuncUpdateOne, workload.FuncFindOneAndUpdate} {
		p := paramsOf(t, "updateapi", "records=100", "updateFunction="+fn)
		env := workload.Env{DB: db, URI: testenv.URI(t), Seed: 1}
		run := prepare(t, workload.UpdateAPI{}, env, p)
		before := opcounters(t, db)
		if _, ok := runTasks(t, run.Tasks, 1, ops); ok != ops {
			t.Fatalf("%s: %d of %d ops succeeded", fn, ok, ops)
		}
		after := opcounters(t, db)
		updates, commands := after["update"]-before["update"], after["command"]-before["command"]
		if fn == workload.FuncUpdateOne && updates < ops || fn == workload.FuncFindOneAndUpdate && (updates >= ops || commands < ops) {
			t.Errorf("%s: opcounters grew by %d updates and %d commands for %d operations", fn, updates, commands, ops)
		}
	}
}

func opcounters(t *testing.T, db *mongo.Database) map[string]int64 {
	t.Helper()
	var status struct {
		Opcounters map[string]int64 `bson:"opcounters"`
	}
	if err := db.Client().Database("admin").RunCommand(context.Background(), bson.D{{Key: "serverStatus", Value: 1}}).Decode(&status); err != nil {
		t.Fatal(err)
	}
	return status.Opcounters
}
