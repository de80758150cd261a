package studyview_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/catalog"
	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/studyview"
	"github.com/mongobench/mongobench/internal/testsupport/golden"
	"github.com/mongobench/mongobench/internal/textreport"
)

// catalogTable is a table TestWriteCatalogTable renders.
type catalogTable struct {
	test     catalog.Test
	docs     []*result.Doc
	labelled bool
}

// catalogTables are a target-varying test's results on two labelled
// targets, and an update test's, one with a missing latency, one with
// nothing measured.
func catalogTables(t *testing.T) []catalogTable {
	lat := func(p50, p99 float64) result.Dist { return result.Dist{P50: result.F(p50), P99: result.F(p99)} }
	ingest := []*result.Doc{
		{Label: "a", Variant: map[string]any{"order": 0, "numberOfThreads": 8, "instance": map[string]any{"atlasInstanceType": "small", "cost": 10.0}},
			TestResults: result.TestResults{Catalog: result.Catalog{DocsInserted: i64(60000), DocsPerSecond: result.F(12345.678), MBPerSecond: result.F(48.2)}},
			Ops:         []result.OpStats{{Name: "insert", Latency: lat(1.234, 15.67)}}},
		{Label: "b", Variant: map[string]any{"order": 1, "numberOfThreads": 8, "instance": map[string]any{"atlasInstanceType": "large", "atlasIOPS": int64(3000), "cost": 50.0}},
			TestResults: result.TestResults{Catalog: result.Catalog{DocsInserted: i64(60000), DocsPerSecond: result.F(23456), MBPerSecond: result.F(91.6)}},
			Ops:         []result.OpStats{{Name: "insert", Latency: lat(0.75, 2790)}}},
	}
	updates := []*result.Doc{
		{Variant: map[string]any{"order": 0, "numberOfThreads": 10, "indexUpdate": false},
			TestResults: result.TestResults{Catalog: result.Catalog{NUpdates: i64(10000), UpdatesPerSecond: result.F(5321.5)}},
			Ops:         []result.OpStats{{Name: "update", Latency: lat(1.5, 3)}}},
		{Variant: map[string]any{"order": 1, "numberOfThreads": 20, "indexUpdate": true},
			TestResults: result.TestResults{Catalog: result.Catalog{NUpdates: i64(10000), UpdatesPerSecond: result.F(99.94)}},
			Ops:         []result.OpStats{{Name: "update", Latency: result.Dist{P50: result.F(2)}}}},
		{Variant: map[string]any{"order": 2}, TestResults: result.TestResults{}},
	}
	return []catalogTable{
		{findTests(t, "insert_iops")[0], ingest, true},
		{findTests(t, "concurrency")[0], updates, false},
		{findTests(t, "insert_idtype")[0], ingest[:1], true},
	}
}

// catalogView is the view of a catalog that ran test, on two targets
// when labelled.
func catalogView(test catalog.Test, docs []*result.Doc, labelled bool) *report.StudyView {
	c := study.Catalog{Tests: []catalog.Test{test}, Targets: []spec.Target{{}}}
	if labelled {
		c.Targets = append(c.Targets, spec.Target{})
	}
	return studyview.Catalog(c, [][]*result.Doc{docs}, nil)
}

// TestWriteCatalogTable renders the tables of catalogTables.
func TestWriteCatalogTable(t *testing.T) {
	var b bytes.Buffer
	for _, c := range catalogTables(t) {
		if err := textreport.Study(&b, catalogView(c.test, c.docs, c.labelled)); err != nil {
			t.Fatal(err)
		}
	}
	golden.Check(t, "catalog.txt", b.Bytes())
	if strings.Contains(b.String(), "e+") || !strings.Contains(b.String(), "2,790") {
		t.Errorf("a p99 of 2790 ms: want 2,790, never an exponent:\n%s", b.String())
	}
}

// TestWriteCatalogTableMarksPartialRows: a variant stopped early is marked
// in its row, so its rates are not read as the variant's.
func TestWriteCatalogTableMarksPartialRows(t *testing.T) {
	test := findTests(t, "concurrency")[0]
	docs := []*result.Doc{
		{Variant: map[string]any{"order": 0, "numberOfThreads": 10}},
		{Variant: map[string]any{"order": 1, "numberOfThreads": 20}, Partial: true},
	}
	var b bytes.Buffer
	if err := textreport.Study(&b, catalogView(test, docs, false)); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(b.String(), "(partial)"); got != 1 {
		t.Errorf("got %d rows marked partial, want 1:\n%s", got, b.String())
	}
}

func findTests(t *testing.T, names ...string) []catalog.Test {
	t.Helper()
	var out []catalog.Test
	for _, n := range names {
		c, err := catalog.Find(n)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, c)
	}
	return out
}

func i64(v int64) *int64 { return &v }
