package cli_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/server"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
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
		if rate := d.TestResults.DocsPerSecond; rate == nil || *rate <= 0 {
			t.Errorf("%s order %v: DocsPerSecond %v", name, order, rate)
		}
		if n := d.Op("insert"); n == nil || n.Errors.Total != 0 {
			t.Errorf("%s order %v: insert errors %+v (duplicate _id?)", name, order, n)
		}
	}
	if seen["insert_idtype"] != 3 || seen["insert_nindexes"] != 7 {
		t.Errorf("variants by test: %v", seen)
	}
}

// TestCatalogUpdateTests runs concurrency and updateapi at a tiny scale on
// a server of the test's own, checks every stored variant (its schema
// fields, its rates, the documents updateapi created each way), then
// renders the shipped document and checks that both tests' tables have
// one row per variant in the reference order.
func TestCatalogUpdateTests(t *testing.T) {
	h := testenv.Own(t, server.Options{})
	o := mb(t, "catalog", "run", "concurrency", "updateapi", "--scale", "0.00005",
		"--uri", h.URI, "--database", testenv.DBName(t), "--results", h.URI)
	wantCode(t, o, cli.ExitOK)
	docs, err := store.NewMongo(connect(t, h.URI), "mongobench", h.URI).List(context.Background(), 0)
	if err != nil || len(docs) != 12+12 {
		t.Fatalf("stored variants: got %d (%v), want 12 + 12", len(docs), err)
	}
	for _, d := range docs {
		name, _ := d.ID.Get("testname")
		order, _ := d.ID.Get("order")
		v, r := d.Variant, stored(t, d.TestResults)
		n := asInt(v["nUpdates"])
		if n <= 0 || asInt(r["nUpdates"]) != n || d.Duration <= 0 || v["numberOfThreads"] == nil {
			t.Errorf("%s %v: nUpdates %v stored, %v measured; duration %v; threads %v", name, order, v["nUpdates"], r["nUpdates"], d.Duration, v["numberOfThreads"])
		}
		if rate, ok := r["UpdatesPerSecond"].(float64); !ok || rate <= 0 {
			t.Errorf("%s %v: UpdatesPerSecond %v", name, order, r["UpdatesPerSecond"])
		}
		switch name {
		case "concurrency":
			if op := d.Op("update"); op == nil || op.Count != n || op.Errors.Total != 0 {
				t.Errorf("concurrency %v: update op %+v, want %d updates and no error", order, op, n)
			}
			if _, ok := v["indexUpdate"].(bool); !ok {
				t.Errorf("concurrency %v: indexUpdate %v, want a bool", order, v["indexUpdate"])
			}
		case "updateapi":
			fn, _ := v["updateFunction"].(string)
			newKeys := n * asInt(v["percentNew"]) / 100
			inserts, upserts := newKeys, int64(0)
			if v["upsert"] == true {
				inserts, upserts = 0, newKeys
			}
			if op := d.Op(fn); op == nil || op.Count != n || op.Errors.Total != 0 {
				t.Errorf("updateapi %v: %s op %+v, want %d writes and no error", order, fn, op, n)
			}
			if asInt(r["insertsOnMiss"]) != inserts || asInt(r["upserts"]) != upserts {
				t.Errorf("updateapi %v (%s, upsert %v, %v%% new): %v inserts after miss, %v upserts; want %d and %d",
					order, fn, v["upsert"], v["percentNew"], r["insertsOnMiss"], r["upserts"], inserts, upserts)
			}
		}
	}

	out := filepath.Join(t.TempDir(), "report.md")
	wantCode(t, mb(t, "report", "-o", out, "--results", h.URI), cli.ExitOK)
	doc, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got := reportTables(t, string(doc))
	var concRows, updRows [][]string
	for _, indexed := range []string{"false", "true"} {
		for _, n := range []string{"10", "20", "50", "100", "200", "400"} {
			concRows = append(concRows, []string{n, indexed})
		}
	}
	for _, fn := range []string{"updateOne", "findOneAndUpdate"} {
		for _, upsert := range []string{"false", "true"} {
			for _, pct := range []string{"0", "50", "100"} {
				updRows = append(updRows, []string{fn, upsert, pct})
			}
		}
	}
	tests := []struct {
		first string     // the first column's header
		want  [][]string // each table's leading cells, row by row
	}{
		{"Threads", concRows},
		{"Update function", updRows},
	}
	for _, tt := range tests {
		i := slices.IndexFunc(got, func(rt reportTable) bool { return len(rt.header) > 0 && rt.header[0] == tt.first })
		if i < 1 || i+1 >= len(got) {
			t.Fatalf("no performance table headed %q", tt.first)
		}
		if base := got[i-1]; len(base.rows) != 1 || base.rows[0][base.col(t, "Instance")] == "" {
			t.Errorf("%s base instance: got %v, want one row", tt.first, base.rows)
		}
		perf := got[i]
		for _, rt := range []reportTable{perf, got[i+1]} {
			var lead [][]string
			for _, r := range rt.rows {
				lead = append(lead, r[:len(tt.want[0])])
			}
			if !slices.EqualFunc(lead, tt.want, slices.Equal) {
				t.Errorf("table %v: rows %v, want %v", rt.header, lead, tt.want)
			}
		}
		j := perf.col(t, "Updates/s")
		for _, r := range perf.rows {
			if v, err := strconv.ParseFloat(r[j], 64); err != nil || v <= 0 {
				t.Errorf("%s %v: updates/s %q, want a number > 0", tt.first, r, r[j])
			}
		}
	}
	if conc := got[slices.IndexFunc(got, func(rt reportTable) bool { return rt.header[0] == "Threads" })]; h.Kind == server.KindSecantus {
		j := conc.col(t, "Server write conflicts")
		for _, r := range conc.rows {
			if r[j] != "" {
				t.Errorf("concurrency %v: server write conflicts %q, want an empty cell (SecantusDB does not report them)", r, r[j])
			}
		}
	}
}

// asInt reads a stored whole number, whatever its BSON integer type; -1
// for anything else.
func asInt(v any) int64 {
	switch x := v.(type) {
	case int:
		return int64(x)
	case int32:
		return int64(x)
	case int64:
		return x
	}
	return -1
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
		tr := d.TestResults
		if tr.QueriesPerSecond == nil || *tr.QueriesPerSecond <= 0 || tr.DocsPerSecond == nil || *tr.DocsPerSecond <= 0 || tr.DocsReturned == nil {
			t.Errorf("%s: QueriesPerSecond %v, docsReturned %v, DocsPerSecond %v", got[i], tr.QueriesPerSecond,
				tr.DocsReturned, tr.DocsPerSecond)
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

// TestCatalogQueryFetchIO runs query_fetch_io on one described, priced
// target at a tiny scale and renders its section: one row with the
// target's label, IOPS and price, a query rate, and the lookup rate per
// unit of price.
func TestCatalogQueryFetchIO(t *testing.T) {
	h := testenv.Own(t, server.Options{})
	o := mb(t, "catalog", "run", "query_fetch_io", "--scale", "0.00001", "--cache-size", "2MB",
		"--uri", h.URI, "--database", testenv.DBName(t), "--results", h.URI,
		"--label", "disk-a", "--instance", "{type: local, diskType: nvme, iops: 3000}", "--price", "0.50 USD/h")
	wantCode(t, o, cli.ExitOK)
	out := filepath.Join(t.TempDir(), "report.md")
	wantCode(t, mb(t, "report", "-o", out, "--results", h.URI), cli.ExitOK)
	doc, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got := reportTables(t, string(doc))
	i := slices.IndexFunc(got, func(rt reportTable) bool { return slices.Contains(rt.header, "queries/s per price/h") })
	if i < 0 || len(got[i].rows) != 1 {
		t.Fatalf("query_fetch_io performance table: %+v", got)
	}
	perf, row := got[i], got[i].rows[0]
	for col, want := range map[string]string{"Target": "disk-a", "Disk IOPS": "3000", "Price per hour": "0.5", "Currency": "USD", "Cache rule met": "true"} {
		if v := row[perf.col(t, col)]; v != want {
			t.Errorf("%s: got %q want %q", col, v, want)
		}
	}
	qps, err1 := strconv.ParseFloat(row[perf.col(t, "Speed (queries/s)")], 64)
	per, err2 := strconv.ParseFloat(row[perf.col(t, "queries/s per price/h")], 64)
	if err1 != nil || err2 != nil || qps <= 0 || per < 2*qps-2 || per > 2*qps+2 {
		t.Errorf("queries/s %v, per price/h %v: want a rate and twice it (at 0.50/h)", qps, per)
	}
	if res := got[i+1]; len(res.rows) != 1 || res.rows[0][0] != "disk-a" {
		t.Errorf("resource usage: got %v, want one row for disk-a", res.rows)
	}
}

// stored is testResults as the results collection holds it, by field
// name, for checks that read fields by their stored names.
func stored(t *testing.T, tr result.TestResults) map[string]any {
	t.Helper()
	raw, err := bson.Marshal(tr)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := bson.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m
}
