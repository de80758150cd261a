package cli_test

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/testenv"
)

// TestCatalogInsertTests runs two insert tests at a tiny scale on the real
// server and checks that every variant is stored with the fields report
// templates read: _id.testname and _id.order, the variant's values,
// test_config.totalDocsToInsert, duration, and the ingest rates.
func TestCatalogInsertTests(t *testing.T) {
	uri := testenv.URI(t)
	file := filepath.Join(t.TempDir(), "results.jsonl")
	db := testenv.DBName(t)
	dropAfter(t, connect(t, uri), db)
	o := mb(t, "catalog", "run", "insert_idtype", "insert_nindexes", "--scale", "0.0001",
		"--uri", uri, "--database", db, "--results-file", file)
	wantCode(t, o, cli.ExitOK)
	docs, err := store.NewFile(file).List(context.Background(), 0)
	if err != nil || len(docs) != 3+7 {
		t.Fatalf("stored variants: got %d (%v), want 3 + 7", len(docs), err)
	}
	seen := map[string]int{}
	for _, d := range docs {
		name, _ := d.ID.Get("testname")
		order, hasOrder := d.ID.Get("order")
		seen[name.(string)]++
		if !hasOrder || d.Duration <= 0 || d.TestConfig["totalDocsToInsert"] == nil {
			t.Errorf("%s: _id %v, duration %v, test_config %v", d.RunID, d.ID, d.Duration, d.TestConfig)
		}
		if rate, ok := d.TestResults["DocsPerSecond"].(float64); !ok || rate <= 0 {
			t.Errorf("%s order %v: DocsPerSecond %v", name, order, d.TestResults["DocsPerSecond"])
		}
		if n := d.Op("insert"); n == nil || n.Errors.Total != 0 {
			t.Errorf("%s order %v: insert errors %+v (duplicate _id?)", name, order, n)
		}
	}
	if seen["insert_idtype"] != 3 || seen["insert_nindexes"] != 7 {
		t.Errorf("variants by test: %v", seen)
	}
}

// TestCatalogQueryTests runs both query tests at a tiny scale, told a
// 2 MB cache (so the dataset grows to 4 MB), and checks every variant is
// stored in order with its fields, the sizes in test_config, and query
// rates; the dataset is loaded by the first variant only.
func TestCatalogQueryTests(t *testing.T) {
	uri := testenv.URI(t)
	file := filepath.Join(t.TempDir(), "results.jsonl")
	db := testenv.DBName(t)
	dropAfter(t, connect(t, uri), db)
	o := mb(t, "catalog", "run", "query_full", "query_fetch", "--scale", "0.00001", "--cache-size", "2MB",
		"--uri", uri, "--database", db, "--results-file", file)
	wantCode(t, o, cli.ExitOK)
	docs, err := store.NewFile(file).List(context.Background(), 0)
	if err != nil || len(docs) != 9+12 {
		t.Fatalf("stored variants: got %d (%v), want 9 + 12", len(docs), err)
	}
	slices.SortStableFunc(docs, func(a, b result.Doc) int { return a.Start.Compare(b.Start) })
	var got []string
	for i, d := range docs {
		name, _ := d.ID.Get("testname")
		order, _ := d.ID.Get("order")
		got = append(got, fmt.Sprintf("%v/%v/%v/%v", name, order, d.Variant["query"], d.Variant["cached"]))
		if d.Variant["comment"] == nil || d.Variant["docsPerQuery"] == nil {
			t.Errorf("%s: variant %v lacks comment or docsPerQuery", got[i], d.Variant)
		}
		if fmt.Sprint(d.TestConfig["cacheSizeBytes"]) != "2097152" || d.TestConfig["cacheSizeSource"] != "--cache-size" ||
			fmt.Sprint(d.TestConfig["datasetDocs"]) != "4400" || d.TestConfig["workingSetBytes"] == nil {
			t.Errorf("%s: test_config cache %v from %v, dataset %v docs, working set %v; want 2 MB told, 4400 docs",
				got[i], d.TestConfig["cacheSizeBytes"], d.TestConfig["cacheSizeSource"], d.TestConfig["datasetDocs"], d.TestConfig["workingSetBytes"])
		}
		if reused := d.TestConfig["datasetReused"]; reused != (i > 0) {
			t.Errorf("%s: datasetReused %v, want the first variant only to load", got[i], reused)
		}
		q, _ := d.TestResults["QueriesPerSecond"].(float64)
		n, _ := d.TestResults["DocsPerSecond"].(float64)
		if q <= 0 || n <= 0 || d.TestResults["docsReturned"] == nil {
			t.Errorf("%s: QueriesPerSecond %v, docsReturned %v, DocsPerSecond %v", got[i], d.TestResults["QueriesPerSecond"],
				d.TestResults["docsReturned"], d.TestResults["DocsPerSecond"])
		}
		if op := d.Op("query"); op == nil || op.Errors.Total != 0 {
			t.Errorf("%s: query op %+v, want no errors", got[i], op)
		}
	}
	want := []string{
		"query_full/0/id/true", "query_full/1/id/false", "query_full/2/term/true", "query_full/3/term/false",
		"query_full/4/skip/false", "query_full/5/range/false", "query_full/6/compound/false", "query_full/7/filter/false",
		"query_full/8/in/false",
	}
	for i, c := range []string{"true", "false"} {
		for j := range 6 {
			want = append(want, fmt.Sprintf("query_fetch/%d/fetch/%s", 6*i+j, c))
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("variants in run order:\n got %v\nwant %v", got, want)
	}
}
