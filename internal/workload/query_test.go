package workload_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
	"github.com/mongobench/mongobench/internal/workload"
)

// querySetup prepares a query run.
func querySetup(t *testing.T, env workload.Env, p spec.Params) workload.Run {
	t.Helper()
	run, err := (workload.Query{}).Prepare(context.Background(), env, p)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// queryTask builds a task with parameters p over the key range run's
// setup chose.
func queryTask(t *testing.T, run workload.Run, p spec.Params) engine.Task {
	t.Helper()
	task, err := workload.QueryTaskWith(run, p)
	if err != nil {
		t.Fatal(err)
	}
	return task
}

// effective returns the test_config fields run's setup decided.
func effective(t *testing.T, run workload.Run) map[string]any {
	t.Helper()
	e, err := run.Decided.TestConfig()
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func ints(t *testing.T, docs []bson.M, field string) []int64 {
	t.Helper()
	out := make([]int64, len(docs))
	for i, d := range docs {
		v, ok := d[field].(int64)
		if !ok {
			t.Fatalf("document %v: %s is %T, want int64", d, field, d[field])
		}
		out[i] = v
	}
	return out
}

// TestQueryShapesReturnTheirDocuments loads 21 groups of 400 documents
// (a cache of 4 MB, told: the dataset grows to twice it) and checks what
// each shape returns for one group.
func TestQueryShapesReturnTheirDocuments(t *testing.T) {
	db := ownedDB(t)
	ctx := context.Background()
	base := []string{"records=1000", "stripeGroups=4", "cacheSize=4MB", "loaders=2"}
	p := func(extra ...string) spec.Params {
		return paramsOf(t, "query", append(slices.Clone(base), extra...)...)
	}

	env := workload.Env{DB: db, URI: testenv.URI(t), Seed: 3}
	run := querySetup(t, env, p("query=term", "cached=true"))
	eff := effective(t, run)
	want := map[string]any{"cacheSizeBytes": int64(4 << 20), "cacheSizeSource": "parameter", "datasetDocs": int64(8400),
		"groups": int64(21), "keyRangeGroups": int64(4), "workingSetBytes": int64(4 * 400 * 1024), "cacheRuleMet": true, "datasetReused": false}
	for k, v := range want {
		if eff[k] != v {
			t.Errorf("test_config %s: got %v (%T) want %v", k, eff[k], eff[k], v)
		}
	}
	coll := db.Collection(workload.QueryCollection)
	if n, err := coll.CountDocuments(ctx, bson.D{{Key: "group", Value: int64(5)}}); err != nil || n != 400 {
		t.Errorf("group 5: got %d documents (%v), want 400", n, err)
	}
	first, err := coll.Find(ctx, bson.D{{Key: "_id", Value: bson.D{{Key: "$lt", Value: 3}}}})
	if err != nil {
		t.Fatal(err)
	}
	var firstDocs []bson.M
	if err := first.All(ctx, &firstDocs); err != nil {
		t.Fatal(err)
	}
	if g := ints(t, firstDocs, "group"); len(g) != 3 || g[0] == g[1] || g[1] == g[2] {
		t.Errorf("_id 0..2 are in groups %v, want consecutive documents in different groups", g)
	}

	const g = 2
	docsOf := func(shape string, extra ...string) []bson.M {
		t.Helper()
		docs, err := workload.QueryDocs(ctx, queryTask(t, run, p(append([]string{"query=" + shape}, extra...)...)), g)
		if err != nil {
			t.Fatalf("%s: %v", shape, err)
		}
		return docs
	}
	term := docsOf("term")
	if gs := ints(t, term, "group"); len(gs) != 100 || slices.Min(gs) != g || slices.Max(gs) != g {
		t.Errorf("term: got %d documents of groups %v..%v, want 100 of group %d", len(gs), slices.Min(gs), slices.Max(gs), g)
	}
	skipPage := ints(t, docsOf("skip", "docsPerQuery=20"), "_id")
	rangePage := ints(t, docsOf("range", "docsPerQuery=20"), "_id")
	if len(skipPage) != 20 || !slices.Equal(skipPage, rangePage) {
		t.Errorf("skip 380 page %v, $gte 380 page %v: want the same 20 documents", skipPage, rangePage)
	}
	if seqs := ints(t, docsOf("range", "docsPerQuery=20"), "seq"); seqs[0] != 380 || seqs[19] != 399 {
		t.Errorf("range page seqs %v, want 380..399", seqs)
	}
	compound, filter := docsOf("compound"), docsOf("filter")
	ci, fi := ints(t, compound, "_id"), ints(t, filter, "_id")
	slices.Sort(ci)
	slices.Sort(fi)
	if len(ci) != 100 || !slices.Equal(ci, fi) {
		t.Errorf("compound index: %d documents, term + filter: %d; want the same 100", len(ci), len(fi))
	}
	fetched := docsOf("fetch", "docsPerQuery=50")
	if len(fetched) != 50 || len(fetched[0]) != 0 {
		t.Errorf("fetch: got %d documents, the first %v; want 50 empty documents", len(fetched), fetched[0])
	}

	// Counts and the uncached range.
	uncached := p("query=term", "cached=false")
	run = querySetup(t, env, uncached)
	if e := effective(t, run); e["datasetReused"] != true || e["keyRangeGroups"] != int64(21) || e["cacheRuleMet"] != true {
		t.Errorf("second setup: reused %v, key range %v groups, rule met %v; want true, 21, true",
			e["datasetReused"], e["keyRangeGroups"], e["cacheRuleMet"])
	}
	for _, tt := range []struct {
		shape string
		per   int64
	}{{"id", 1}, {"term", 100}, {"in", 10}, {"filter", 100}} {
		task := queryTask(t, run, p("query="+tt.shape, "cached=false", "docsPerQuery=10"))
		if tt.shape == "term" || tt.shape == "filter" {
			task = queryTask(t, run, p("query="+tt.shape, "cached=false"))
		}
		for range 5 {
			if _, err := task.Do(ctx); err != nil {
				t.Fatalf("%s: %v", tt.shape, err)
			}
		}
		if got := task.(workload.Counter).Counts().Map()["docsReturned"]; got != 5*tt.per {
			t.Errorf("%s: docsReturned %d after 5 queries, want %d", tt.shape, got, 5*tt.per)
		}
	}
}

// TestQueryInTakesDistinctGroups checks that the $in query returns one
// document from each of 100 different groups.
func TestQueryInTakesDistinctGroups(t *testing.T) {
	db := ownedDB(t)
	env := workload.Env{DB: db, URI: testenv.URI(t), Seed: 5}
	p := paramsOf(t, "query", "query=in", "cached=false", "records=800", "groupSize=4", "stripeGroups=10", "cacheSize=64KB")
	run := querySetup(t, env, p)
	docs, err := workload.QueryDocs(context.Background(), queryTask(t, run, p), 0)
	if err != nil {
		t.Fatal(err)
	}
	groups, seqs := ints(t, docs, "group"), ints(t, docs, "seq")
	slices.Sort(groups)
	if len(docs) != 100 || len(slices.Compact(groups)) != 100 || slices.Min(seqs) != slices.Max(seqs) {
		t.Errorf("$in of 100 groups: got %d documents from %d groups, seqs %v..%v; want 100 from 100 groups, one seq",
			len(docs), len(groups), slices.Min(seqs), slices.Max(seqs))
	}
}

// TestQueryCacheSize checks where the cache size comes from: the server,
// else what the caller knows, else an error asking for it.
func TestQueryCacheSize(t *testing.T) {
	db := ownedDB(t)
	p := paramsOf(t, "query", "query=id", "records=400", "uncachedFactor=0", "stripeGroups=2")
	status, err := db.Client().Database("admin").RunCommand(context.Background(), bson.D{{Key: "serverStatus", Value: 1}}).Raw()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := status.LookupErr("wiredTiger", "cache", "maximum bytes configured"); err == nil {
		run := querySetup(t, workload.Env{DB: db, URI: testenv.URI(t), CacheSize: 1 << 20}, p)
		if got := effective(t, run)["cacheSizeSource"]; got != "serverStatus" {
			t.Errorf("cache size source: got %v, want serverStatus (the server reports it)", got)
		}
		return
	}
	_, err = (workload.Query{}).Prepare(context.Background(), workload.Env{DB: db, URI: testenv.URI(t)}, p)
	if err == nil || !strings.Contains(err.Error(), "cacheSize") {
		t.Errorf("unknown cache size: got %v, want an error asking for cacheSize", err)
	}
	run := querySetup(t, workload.Env{DB: db, URI: testenv.URI(t), CacheSize: 1 << 20}, p)
	e := effective(t, run)
	if e["cacheSizeSource"] != "caller" || e["cacheSizeBytes"] != int64(1<<20) || e["cacheRuleMet"] != true {
		t.Errorf("cache size: got %v from %v, rule met %v; want 1 MB from the caller, a cached 400 KB range that fits",
			e["cacheSizeBytes"], e["cacheSizeSource"], e["cacheRuleMet"])
	}
	// A dataset kept small (uncachedFactor=0) is not uncached: say so.
	run = querySetup(t, workload.Env{DB: db, URI: testenv.URI(t), CacheSize: 1 << 20}, paramsOf(t, "query", "query=id", "cached=false",
		"records=400", "uncachedFactor=0", "stripeGroups=2"))
	if e := effective(t, run); e["cacheRuleMet"] != false || len(run.Decided.Warnings) != 1 {
		t.Errorf("uncached 400 KB with a 1 MB cache: rule met %v, notes %v; want false and one note", e["cacheRuleMet"], run.Decided.Warnings)
	}
}
