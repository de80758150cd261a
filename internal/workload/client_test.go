package workload_test

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
	"github.com/mongobench/mongobench/internal/workload"
	"github.com/mongobench/mongobench/internal/workload/builtin"
)

// storedDocs returns every document of coll as canonical extended JSON,
// sorted; with dropID the _id is left out (for generated _ids).
func storedDocs(t *testing.T, coll *mongo.Collection, dropID bool) []string {
	t.Helper()
	ctx := context.Background()
	opts := options.Find().SetSort(bson.D{{Key: "_id", Value: 1}})
	if dropID {
		opts.SetProjection(bson.D{{Key: "_id", Value: 0}})
	}
	cur, err := coll.Find(ctx, bson.D{}, opts)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for cur.Next(ctx) {
		out = append(out, cur.Current.String())
	}
	if err := cur.Err(); err != nil {
		t.Fatal(err)
	}
	slices.Sort(out)
	return out
}

// runOne prepares w with p over env, runs ops operations on one worker,
// and returns the task's counts; it checks that the task took the client
// asked for and that test_config records it.
func runOne(t *testing.T, w workload.Workload, env workload.Env, p spec.Params, client string, ops int) map[string]int64 {
	t.Helper()
	run := prepare(t, w, env, p)
	if got := effective(t, run)["client"]; got != client {
		t.Errorf("%s: test_config.client %v, want %s", w.Name(), got, client)
	}
	if len(run.Decided.Warnings) != 0 && w.Name() != "query" {
		t.Errorf("%s: warnings %q, want none", w.Name(), run.Decided.Warnings)
	}
	task, err := run.Tasks.NewTask(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if c, ok := task.(io.Closer); ok {
			_ = c.Close()
		}
	}()
	if got := workload.UsesWire(task); got != (client == workload.ClientWire) {
		t.Errorf("%s, client=%s: the task uses the wire client: %v", w.Name(), client, got)
	}
	ctx := context.Background()
	for i := range ops {
		if _, err := task.Do(ctx); err != nil {
			t.Fatalf("%s, client=%s, op %d: %v", w.Name(), client, i, err)
		}
	}
	if c, ok := task.(workload.Counter); ok {
		return c.Counts().Map()
	}
	return nil
}

// TestWorkloadsWireMatchDriver runs the same seeded operations of every
// single-operation workload through the wire client and the driver, one
// worker each, and compares every stored document (the _id left out
// where the workload generates it) and the counts.
func TestWorkloadsWireMatchDriver(t *testing.T) {
	db := ownedDB(t)
	reg := builtin.Registry()
	tests := []struct {
		workload string
		params   []string
		coll     string
		dropID   bool // _ids are generated (ObjectId), not drawn from the seed
		ops      int
	}{
		{"kv", []string{"records=200", "readPercent=50"}, workload.KVCollection, false, 400},
		{"hotdoc", []string{"records=20", "indexUpdate=true"}, workload.HotDocCollection, false, 100},
		{"insert", []string{"batchSize=7", "docSize=300B", "idType=OBJECT_ID", "secondaryIndexes=1"}, workload.InsertCollection, true, 6},
		{"updateapi", []string{"records=50", "updateFunction=updateOne", "percentNew=20"}, workload.UpdateAPICollection, false, 200},
		{"updateapi", []string{"records=50", "updateFunction=updateOne", "percentNew=20", "upsert=true"}, workload.UpdateAPICollection, false, 200},
		{"updateapi", []string{"records=50", "updateFunction=findOneAndUpdate", "percentNew=20"}, workload.UpdateAPICollection, false, 200},
		{"updateapi", []string{"records=50", "updateFunction=findOneAndUpdate", "percentNew=20", "upsert=true"}, workload.UpdateAPICollection, false, 200},
	}
	for _, tt := range tests {
		name := tt.workload + " " + strings.Join(tt.params, " ")
		w, err := reg.Get(tt.workload)
		if err != nil {
			t.Fatal(err)
		}
		stored := map[string][]string{}
		counts := map[string]map[string]int64{}
		for _, client := range []string{workload.ClientWire, workload.ClientDriver} {
			p := paramsOf(t, tt.workload, append(slices.Clone(tt.params), "client="+client)...)
			env := workload.Env{DB: db, URI: testenv.URI(t), Seed: 5}
			counts[client] = runOne(t, w, env, p, client, tt.ops)
			stored[client] = storedDocs(t, db.Collection(tt.coll), tt.dropID)
		}
		if len(stored["wire"]) == 0 || !slices.Equal(stored["wire"], stored["driver"]) {
			t.Errorf("%s: %d documents stored by the wire client, %d by the driver; want the same, not none (first difference: %s)",
				name, len(stored["wire"]), len(stored["driver"]), firstDiff(stored["wire"], stored["driver"]))
		}
		if fmt.Sprint(counts["wire"]) != fmt.Sprint(counts["driver"]) {
			t.Errorf("%s: counts wire %v, driver %v; want the same", name, counts["wire"], counts["driver"])
		}
	}
}

func firstDiff(a, b []string) string {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return fmt.Sprintf("%d: wire %s, driver %s", i, a[i], b[i])
		}
	}
	return "none within the shorter list"
}

// TestQueryWireMatchesDriver runs every query shape's seeded queries
// through the wire client and the driver and compares the documents
// returned.
func TestQueryWireMatchesDriver(t *testing.T) {
	db := ownedDB(t)
	base := []string{"records=1000", "stripeGroups=4", "cacheSize=4MB", "loaders=2", "docsPerQuery=30", "skip=50"}
	for _, shape := range []string{workload.QueryByID, workload.QueryTerm, workload.QuerySkip, workload.QueryRange,
		workload.QueryCompound, workload.QueryFilter, workload.QueryIn, workload.QueryFetch} {
		counts := map[string]map[string]int64{}
		for _, client := range []string{workload.ClientWire, workload.ClientDriver} {
			p := paramsOf(t, "query", append(slices.Clone(base), "query="+shape, "client="+client)...)
			env := workload.Env{DB: db, URI: testenv.URI(t), Seed: 9}
			counts[client] = runOne(t, workload.Query{}, env, p, client, 40)
		}
		if counts["wire"]["docsReturned"] == 0 || counts["wire"]["docsReturned"] != counts["driver"]["docsReturned"] {
			t.Errorf("query=%s: documents returned: wire %v, driver %v; want the same, not none", shape, counts["wire"], counts["driver"])
		}
	}
}

// TestWorkloadsFallBackToTheDriver checks that a connection string the
// wire client cannot honour runs the driver, says so and records it.
func TestWorkloadsFallBackToTheDriver(t *testing.T) {
	db := ownedDB(t)
	env := workload.Env{DB: db, URI: testenv.URI(t) + "&compressors=zlib", Seed: 1}
	for _, name := range []string{"kv", "hotdoc", "insert", "updateapi"} {
		w, err := builtin.Registry().Get(name)
		if err != nil {
			t.Fatal(err)
		}
		run := prepare(t, w, env, paramsOf(t, name, "client=wire"))
		if got := effective(t, run)["client"]; got != workload.ClientDriver {
			t.Errorf("%s: test_config.client %v, want driver", name, got)
		}
		if ws := run.Decided.Warnings; len(ws) != 1 || !strings.Contains(ws[0], "compressors") {
			t.Errorf("%s: warnings %q, want one naming compressors", name, ws)
		}
		task, err := run.Tasks.NewTask(context.Background(), 0)
		if err != nil {
			t.Fatal(err)
		}
		if workload.UsesWire(task) {
			t.Errorf("%s: the task uses the wire client, want the driver", name)
		}
		if _, err := task.Do(context.Background()); err != nil {
			t.Errorf("%s over the driver: %v", name, err)
		}
	}
}

// TestWireTimeoutIsClassified checks that a wire operation past its
// deadline is a timeout, and the task works again after it.
func TestWireTimeoutIsClassified(t *testing.T) {
	db := ownedDB(t)
	run := prepare(t, workload.KV{}, workload.Env{DB: db, URI: testenv.URI(t), Seed: 1}, params(t, "records=10", "readPercent=100"))
	task, err := run.Tasks.NewTask(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = task.(io.Closer).Close() }()
	expired, cancel := context.WithTimeout(context.Background(), 0)
	defer cancel()
	_, err = task.Do(expired)
	if got := workload.Classify(err); err == nil || got != engine.Timeout {
		t.Errorf("expired deadline: %v classified %v, want a timeout", err, got)
	}
	if _, err := task.Do(context.Background()); err != nil {
		t.Errorf("after the timeout: %v, want a new connection and the read", err)
	}
}

// BenchmarkKV runs kv reads and updates on one wire connection and,
// for comparison, on the driver (go test -bench KV -benchmem: client
// cost and allocations per operation).
func BenchmarkKV(b *testing.B) {
	uri := testenv.URI(b)
	db := testenv.Client(b, uri).Database(testenv.DBName(b))
	b.Cleanup(func() { _ = workload.DropOwned(context.Background(), db) })
	if err := workload.Claim(context.Background(), db); err != nil {
		b.Fatal(err)
	}
	for _, client := range []string{workload.ClientWire, workload.ClientDriver} {
		for _, mix := range []struct{ name, readPercent string }{{"read", "100"}, {"update", "0"}} {
			b.Run(client+"/"+mix.name, func(b *testing.B) {
				reg := builtin.Registry()
				sc := &spec.Scenario{Workload: "kv"}
				for _, a := range []string{"records=2000", "readPercent=" + mix.readPercent, "client=" + client} {
					if err := sc.SetParam(reg, a); err != nil {
						b.Fatal(err)
					}
				}
				if err := sc.Validate(reg); err != nil {
					b.Fatal(err)
				}
				run, err := workload.KV{}.Prepare(context.Background(), workload.Env{DB: db, URI: uri, Seed: 1}, sc.Params)
				if err != nil {
					b.Fatal(err)
				}
				task, err := run.Tasks.NewTask(context.Background(), 0)
				if err != nil {
					b.Fatal(err)
				}
				defer func() {
					if c, ok := task.(io.Closer); ok {
						_ = c.Close()
					}
				}()
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
}
