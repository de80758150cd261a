package studyview

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mongobench/mongobench/internal/catalog"
	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/texttable"
)

// Catalog is the catalog's view: a section per test that ran, its table
// one row per result: the test's variant columns (and the label when the
// catalog ran on several targets), threads, its rates, and the p50/p99
// of its first operation type.
func Catalog(c study.Catalog, docs [][]*result.Doc, runs []report.Link) *report.StudyView {
	var names []string
	v := &report.StudyView{Runs: runs}
	for i, t := range c.Tests {
		if i >= len(docs) || len(docs[i]) == 0 {
			continue
		}
		names = append(names, t.Name)
		v.Sections = append(v.Sections, report.Section{Title: t.Name, Blocks: []report.Block{tableBlock(CatalogTable(t, docs[i], len(c.Targets) > 1))}})
	}
	v.Title = "Catalog: " + strings.Join(names, ", ")
	v.Name = "catalog-" + strings.Join(names, "-")
	if len(docs) > 0 && len(docs[0]) > 0 {
		v.Name += "-" + docs[0][0].RunID
	}
	return v
}

// CatalogTable is a test's table, one row per result (Catalog); a value
// not measured is an empty cell.
func CatalogTable(t catalog.Test, docs []*result.Doc, labelled bool) *texttable.Table {
	cols := t.Columns
	if labelled && !slices.Contains(cols, "label") {
		cols = append([]string{"label"}, cols...)
	}
	head := append(append(append([]string{"order"}, cols...), "threads"), catalogRateColumns[t.Measure]...)
	head = append(head, "op", "p50 ms", "p99 ms")
	for i := range head {
		head[i] = ">" + head[i]
	}
	tb := texttable.New(head...)
	for _, d := range docs {
		order := fmt.Sprint(d.Variant["order"])
		if d.Partial {
			order += " (partial)" // stopped early: its rates cover less than the variant
		}
		row := []string{order}
		for _, c := range cols {
			row = append(row, catalogCell(catalogField(d, c)))
		}
		row = append(row, catalogCell(d.Variant["numberOfThreads"]))
		for _, c := range catalogRateColumns[t.Measure] {
			row = append(row, catalogCell(catalogRate(d.TestResults, c)))
		}
		if len(d.Ops) > 0 {
			op := d.Ops[0]
			row = append(row, op.Name, texttable.MarkdownCells.Opt(op.Latency.P50, study.MsText), texttable.MarkdownCells.Opt(op.Latency.P99, study.MsText))
		} else {
			row = append(row, "", "", "")
		}
		tb.Add(row...)
	}
	return tb
}

// catalogRate is the rate a catalog table's column shows, nil when the
// run has none.
func catalogRate(tr result.TestResults, column string) any {
	var v any
	switch column {
	case "docsInserted":
		v = tr.DocsInserted
	case "DocsPerSecond":
		v = tr.DocsPerSecond
	case "MBPerSecond":
		v = tr.MBPerSecond
	case "nUpdates":
		v = tr.NUpdates
	case "UpdatesPerSecond":
		v = tr.UpdatesPerSecond
	case "nQueries":
		v = tr.NQueries
	case "QueriesPerSecond":
		v = tr.QueriesPerSecond
	}
	switch p := v.(type) {
	case *int64:
		if p != nil {
			return *p
		}
	case *float64:
		if p != nil {
			return *p
		}
	}
	return nil
}

// catalogRateColumns are the testResults each measure's terminal table
// shows.
var catalogRateColumns = map[catalog.Measure][]string{
	catalog.Ingest:  {"docsInserted", "DocsPerSecond", "MBPerSecond"},
	catalog.Updates: {"nUpdates", "UpdatesPerSecond"},
	catalog.Queries: {"nQueries", "QueriesPerSecond", "DocsPerSecond"},
}

// catalogField reads a column of the catalog's table: the label, or a
// variant field, with a dotted path reading inside one (instance.cost).
func catalogField(d *result.Doc, path string) any {
	if path == "label" {
		if d.Label == "" {
			return nil
		}
		return d.Label
	}
	var v any = d.Variant
	for _, k := range strings.Split(path, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

// catalogCell formats a stored value: rates with one decimal below 100,
// whole numbers above, and an empty cell for a missing value.
func catalogCell(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case float64:
		if x < 100 {
			return strconv.FormatFloat(x, 'f', 1, 64)
		}
		return thousands(x)
	case int64:
		return thousands(float64(x))
	case int32:
		return thousands(float64(x))
	case int:
		return thousands(float64(x))
	}
	return fmt.Sprint(v)
}
