package cli_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/mongobench/mongobench/internal/cli"
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
