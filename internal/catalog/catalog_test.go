package catalog

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/result"

	"github.com/mongobench/mongobench/internal/spec"
)

// TestVariantsMatchTheReference checks each test's variant order and
// values against the reference document's table.
func TestVariantsMatchTheReference(t *testing.T) {
	tests := []struct {
		test  string
		field string
		want  []any
	}{
		{"insert_docsize", "docSizeKB", []any{1.0, 4.0, 32.0, 256.0, 2048.0}},
		{"insert_batchsize", "writeBatchSize", []any{1, 10, 100, 1000, 2000}},
		{"insert_idtype", "idType", []any{"OBJECT_ID", "UUID", "BUSINESS_ID"}},
		{"insert_nindexes", "nSecondaryIndexes", []any{0, 1, 2, 3, 4, 8, 16}},
		{"concurrency", "numberOfThreads", []any{10, 20, 50, 100, 200, 400, 10, 20, 50, 100, 200, 400}},
		{"concurrency", "indexUpdate", []any{false, false, false, false, false, false, true, true, true, true, true, true}},
		{"updateapi", "updateFunction", []any{
			"updateOne", "updateOne", "updateOne", "updateOne", "updateOne", "updateOne",
			"findOneAndUpdate", "findOneAndUpdate", "findOneAndUpdate", "findOneAndUpdate", "findOneAndUpdate", "findOneAndUpdate"}},
		{"updateapi", "upsert", []any{false, false, false, true, true, true, false, false, false, true, true, true}},
		{"updateapi", "percentNew", []any{0, 50, 100, 0, 50, 100, 0, 50, 100, 0, 50, 100}},
	}
	for _, tt := range tests {
		test, err := Find(tt.test)
		if err != nil {
			t.Fatal(err)
		}
		vs := test.Variants(1)
		if len(vs) != len(tt.want) {
			t.Fatalf("%s: got %d variants want %d", tt.test, len(vs), len(tt.want))
		}
		for i, v := range vs {
			if v.Order != i || v.Values.Fields()["order"] != i {
				t.Errorf("%s variant %d: order %d / %v", tt.test, i, v.Order, v.Values.Fields()["order"])
			}
			if v.Values.Fields()["numberOfThreads"] != nil && v.Values.Fields()["numberOfThreads"] != v.Threads {
				t.Errorf("%s variant %d: numberOfThreads %v, runs %d threads", tt.test, i, v.Values.Fields()["numberOfThreads"], v.Threads)
			}
			if got := v.Values.Fields()[tt.field]; got != tt.want[i] {
				t.Errorf("%s variant %d: %s got %v want %v", tt.test, i, tt.field, got, tt.want[i])
			}
		}
	}
}

func TestReferenceSizes(t *testing.T) {
	bs, _ := Find("insert_batchsize")
	v := bs.Variants(1)[3]
	if v.Threads != 48 || v.Values.Fields()["totalDocsToInsert"] != int64(6_200_000) {
		t.Errorf("insert_batchsize at full scale: threads %d, docs %v; want 48 and 6,200,000", v.Threads, v.Values.Fields()["totalDocsToInsert"])
	}
	ds, _ := Find("insert_docsize")
	big := ds.Variants(1)[4]
	if big.DocsPerOp != 4 {
		t.Errorf("2 MB documents: batch %d, want 4 (8 MB a batch)", big.DocsPerOp)
	}
	if got := big.Values.Fields()["totalDocsToInsert"].(int64) * 2 * mb; got < 24*gb-8*mb || got > 24*gb+8*mb {
		t.Errorf("insert_docsize 2 MB variant writes %d bytes, want 24 GB", got)
	}
	small := ds.Variants(DefaultScale)[0]
	if small.Threads != 8 || small.Values.Fields()["totalDocsToInsert"].(int64) > 60_000 {
		t.Errorf("default scale: %d threads, %v docs; want a few minutes' work", small.Threads, small.Values.Fields()["totalDocsToInsert"])
	}
}

// TestUpdateTestSizes checks the update tests' reference sizes, that the
// concurrency test keeps its thread counts at any scale, and the floor
// on measured writes at small scales.
func TestUpdateTestSizes(t *testing.T) {
	tests := []struct {
		test    string
		scale   Scale
		threads []int // of the first six variants
		records int64
		ops     int64
	}{
		{"concurrency", 1, []int{10, 20, 50, 100, 200, 400}, 1_000_000, 1_000_000},
		{"concurrency", DefaultScale, []int{10, 20, 50, 100, 200, 400}, 2000, minUpdates},
		{"updateapi", 1, []int{30, 30, 30, 30, 30, 30}, 500_000, 500_000},
		{"updateapi", DefaultScale, []int{8, 8, 8, 8, 8, 8}, 1000, minUpdates},
		{"updateapi", 0.01, []int{8, 8, 8, 8, 8, 8}, 5000, minUpdates},
		{"updateapi", 0.1, []int{8, 8, 8, 8, 8, 8}, 50_000, 50_000},
		{"updateapi", 0.0001, []int{8, 8, 8, 8, 8, 8}, 50, 500},
	}
	for _, tt := range tests {
		test, _ := Find(tt.test)
		for i, v := range test.Variants(tt.scale)[:6] {
			records := fmt.Sprintf("records=%d", tt.records)
			if v.Threads != tt.threads[i] || v.Ops != tt.ops || v.Values.Fields()["nUpdates"] != tt.ops || !slices.Contains(v.Params, records) {
				t.Errorf("%s at scale %g, variant %d: threads %d, ops %d, nUpdates %v, params %v; want %d threads, %d ops and records",
					tt.test, tt.scale, i, v.Threads, v.Ops, v.Values.Fields()["nUpdates"], v.Params, tt.threads[i], tt.ops)
			}
		}
	}
}

func TestParseScale(t *testing.T) {
	for in, want := range map[string]Scale{"full": 1, "0.01": 0.01, "1": 1} {
		if got, err := ParseScale(in); err != nil || got != want {
			t.Errorf("ParseScale(%q): got %v, %v want %v", in, got, err, want)
		}
	}
	for _, bad := range []string{"0", "-1", "2", "x", "NaN"} {
		if _, err := ParseScale(bad); err == nil {
			t.Errorf("ParseScale(%q): got nil error", bad)
		}
	}
	if _, err := Find("nosuch"); err == nil {
		t.Error("Find(nosuch): got nil error")
	}
}

// paramValue returns the value of a -p assignment of v, or "".
func paramValue(v Variant, name string) string {
	for _, p := range v.Params {
		if k, val, ok := strings.Cut(p, "="); ok && k == name {
			return val
		}
	}
	return ""
}

// TestQueryVariantsMatchTheReference checks the query tests' variants,
// in order, against the reference table: the shape, the key range and the
// documents per query.
func TestQueryVariantsMatchTheReference(t *testing.T) {
	tests := []struct {
		test string
		want []string // query/cached/docsPerQuery
	}{
		{"query_full", []string{"id/true/1", "id/false/1", "term/true/100", "term/false/100", "skip/false/20",
			"range/false/20", "compound/false/100", "filter/false/100", "in/false/100"}},
		{"query_fetch", []string{"fetch/true/1", "fetch/true/10", "fetch/true/50", "fetch/true/100", "fetch/true/200", "fetch/true/400",
			"fetch/false/1", "fetch/false/10", "fetch/false/50", "fetch/false/100", "fetch/false/200", "fetch/false/400"}},
	}
	for _, tt := range tests {
		test, err := Find(tt.test)
		if err != nil {
			t.Fatal(err)
		}
		if test.Workload != "query" || test.Measure != Queries {
			t.Errorf("%s: workload %q, measure %v; want query, Queries", tt.test, test.Workload, test.Measure)
		}
		var got []string
		for i, v := range test.Variants(1) {
			got = append(got, paramValue(v, "query")+"/"+paramValue(v, "cached")+"/"+paramValue(v, "docsPerQuery"))
			if v.Order != i || v.Values.Fields()["order"] != i || v.Values.Fields()["comment"] == "" {
				t.Errorf("%s variant %d: order %d / %v, comment %q", tt.test, i, v.Order, v.Values.Fields()["order"], v.Values.Fields()["comment"])
			}
			if paramValue(v, "records") != "60000000" || paramValue(v, "groupSize") != "400" || paramValue(v, "docSize") != "1KB" {
				t.Errorf("%s variant %d: params %v, want 60 M × 1 KB in groups of 400", tt.test, i, v.Params)
			}
			if cached := paramValue(v, "cached") == "true"; cached != (v.Warmup != 0) {
				t.Errorf("%s variant %d: cached %v, warm-up %v; want a warm-up exactly for cached variants", tt.test, i, cached, v.Warmup)
			}
			if v.MaxDuration == 0 {
				t.Errorf("%s variant %d: no bound on the measured phase", tt.test, i)
			}
		}
		if !slices.Equal(got, tt.want) {
			t.Errorf("%s: variants\n got %v\nwant %v", tt.test, got, tt.want)
		}
	}
	full, _ := Find("query_full")
	small := full.Variants(DefaultScale)[0]
	if paramValue(small, "records") != "120000" || small.Ops != 40000 || small.MaxDuration != spec.Duration(5*time.Second) {
		t.Errorf("default scale: records %s, %d queries, at most %s; want 120000, 40000, 5s", paramValue(small, "records"), small.Ops, small.MaxDuration)
	}
	names := []string{}
	for _, x := range Tests() {
		names = append(names, x.Name)
	}
	want := []string{"insert_docsize", "insert_batchsize", "insert_idtype", "insert_nindexes", "insert_iops", "insert_instancesize",
		"concurrency", "updateapi", "query_full", "query_fetch", "query_fetch_io"}
	if !slices.Equal(names, want) {
		t.Errorf("catalog order: got %v want the reference's %v", names, want)
	}
	io, _ := Find("query_fetch_io")
	if v := io.VariantsOn(DefaultScale, 2, result.Instance{}); !io.VariesTarget || len(v) != 1 || v[0].Order != 2 || paramValue(v[0], "cached") != "false" {
		t.Errorf("query_fetch_io on target 2: got %+v, want one uncached variant with order 2", v)
	}
}

func TestFindAll(t *testing.T) {
	tests, err := FindAll([]string{"insert_nindexes", "insert_docsize"})
	if err != nil || len(tests) != 2 || tests[0].Name != "insert_nindexes" || tests[1].Name != "insert_docsize" {
		t.Fatalf("got %v, %v", tests, err)
	}
	if _, err := FindAll([]string{"insert_docsize", "nosuch"}); err == nil || !strings.Contains(err.Error(), `unknown test "nosuch" (known: [`) {
		t.Errorf("an unknown test: %v", err)
	}
}
