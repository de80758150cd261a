package cli_test

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/catalog"
	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/server"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// reportTable is one rendered table of the report: its header and rows.
type reportTable struct {
	header []string
	rows   [][]string
}

// col returns the index of the column headed h, or fails the test.
func (rt reportTable) col(t *testing.T, h string) int {
	t.Helper()
	i := slices.Index(rt.header, h)
	if i < 0 {
		t.Fatalf("table %v has no column %q", rt.header, h)
	}
	return i
}

// reportTables returns the table rendered after each MONGO_TABLE block,
// in document order.
func reportTables(t *testing.T, doc string) []reportTable {
	t.Helper()
	var out []reportTable
	chunks := strings.Split(doc, "<!-- /MONGO_TABLE -->")
	for _, chunk := range chunks[:len(chunks)-1] {
		i := strings.LastIndex(chunk, "-->\n")
		if i < 0 {
			t.Fatalf("end marker without a block before it:\n%s", chunk)
		}
		var rt reportTable
		for n, line := range strings.Split(strings.TrimSpace(chunk[i+len("-->\n"):]), "\n") {
			if !strings.HasPrefix(line, "|") || !strings.HasSuffix(line, "|") {
				t.Fatalf("not a table line: %q", line)
			}
			cells := strings.Split(line[1:len(line)-1], "|")
			for j := range cells {
				cells[j] = strings.TrimSpace(cells[j])
			}
			switch n {
			case 0:
				rt.header = cells
			case 1: // separator
			default:
				rt.rows = append(rt.rows, cells)
			}
		}
		out = append(out, rt)
	}
	return out
}

// TestReportInsertCatalog runs the four insert tests at a tiny scale on a
// server of the test's own (so its results collection holds these rows
// only), renders the shipped document, and checks every table: one row per
// variant in the reference order, docs/s filled, the WiredTiger columns
// empty (not 0) where the server has no WiredTiger, and what limited each
// variant from its stored diagnosis.
func TestReportInsertCatalog(t *testing.T) {
	h := testenv.Own(t, server.Options{})
	db := testenv.DBName(t)
	o := mb(t, "catalog", "run", "insert_docsize", "insert_batchsize", "insert_idtype", "insert_nindexes",
		"--scale", "0.00005", "--uri", h.URI, "--database", db, "--results", h.URI)
	wantCode(t, o, cli.ExitOK)

	out := filepath.Join(t.TempDir(), "reports", "performance-tables.md")
	o = mb(t, "report", "-o", out, "--results", h.URI)
	wantCode(t, o, cli.ExitOK)
	if want := "report written to " + out; !strings.Contains(o.stdout, want) {
		t.Errorf("stdout: got %q, want it to say %q", o.stdout, want)
	}
	doc, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got := reportTables(t, string(doc))
	want := 0
	for _, ct := range catalog.Tests() {
		want += 4 // base instance, performance, resource usage, what limited each variant
		if ct.VariesTarget {
			want-- // the target is in every row: no base-instance table
		}
	}
	if n := strings.Count(string(doc), "<!-- MONGO_TABLE:"); n != len(got) || n != want {
		t.Fatalf("%d blocks, %d tables rendered; want %d: 4 for each of the catalog's tests, 3 for those that vary the target", n, len(got), want)
	}

	variants := [][]string{
		{"1", "4", "32", "256", "2048"},
		{"1", "10", "100", "1000", "2000"},
		{"OBJECT_ID", "UUID", "BUSINESS_ID"},
		{"0", "1", "2", "3", "4", "8", "16"},
	}
	for i, want := range variants {
		base, perf, res, limits := got[4*i], got[4*i+1], got[4*i+2], got[4*i+3]
		if len(base.rows) != 1 || base.rows[0][base.col(t, "Instance")] == "" {
			t.Errorf("test %d base instance: got %v, want one row naming the instance", i, base.rows)
		}
		for _, r := range limits.rows {
			if lim, line := r[limits.col(t, "Limited by")], r[limits.col(t, "Evidence (mongobench's diagnosis of the run)")]; lim == "" || !strings.HasPrefix(line, "limited by: ") {
				t.Errorf("%s %s: limited by %q, evidence %q, want the run's diagnosis", limits.header[0], r[0], lim, line)
			}
		}
		for _, rt := range []reportTable{perf, res, limits} {
			var first []string
			for _, r := range rt.rows {
				first = append(first, r[0])
			}
			if !slices.Equal(first, want) {
				t.Errorf("table %v: variants %v, want %v", rt.header, first, want)
			}
		}
		docsCol := perf.col(t, "Speed (docs/s)")
		for _, r := range perf.rows {
			if v, err := strconv.ParseFloat(r[docsCol], 64); err != nil || v <= 0 {
				t.Errorf("%s %s: docs/s %q, want a number > 0", perf.header[0], r[0], r[docsCol])
			}
		}
		if i == 1 || i == 3 { // the tests that measure latency
			meanCol := perf.col(t, "Mean batch latency (ms)")
			for _, r := range perf.rows {
				if v, err := strconv.ParseFloat(r[meanCol], 64); err != nil || v <= 0 {
					t.Errorf("%s %s: mean latency %q, want a number > 0", perf.header[0], r[0], r[meanCol])
				}
			}
		}
		if h.Kind != server.KindSecantus {
			continue
		}
		for _, c := range []string{"Pages read into cache/s", "Cache write KB/s", "WAL KB/s"} {
			j := res.col(t, c)
			for _, r := range res.rows {
				if r[j] != "" {
					t.Errorf("%s %s: %s %q, want an empty cell (SecantusDB has no WiredTiger statistics)", res.header[0], r[0], c, r[j])
				}
			}
		}
	}
}

func TestReportBadTemplate(t *testing.T) {
	o := mb(t, "report", "--template", filepath.Join(t.TempDir(), "missing.md"), "--results", unreachable)
	wantCode(t, o, cli.ExitUsage)
	wantQuick(t, o, usageFast)
	if msg := errorLine(t, o, false); !strings.Contains(msg, "missing.md") {
		t.Errorf("missing template: got %q, want it named", msg)
	}
}

// TestReportQueryCatalog runs the two query tests at a tiny scale, told a
// 2 MB cache, renders the shipped document and checks their tables (the
// last six): the variants in the reference order with their key range,
// queries/s and docs/s filled, and the WiredTiger columns empty where the
// server has none.
func TestReportQueryCatalog(t *testing.T) {
	h := testenv.Own(t, server.Options{})
	o := mb(t, "catalog", "run", "query_full", "query_fetch", "--scale", "0.00001", "--cache-size", "2MB",
		"--uri", h.URI, "--database", testenv.DBName(t), "--results", h.URI)
	wantCode(t, o, cli.ExitOK)
	out := filepath.Join(t.TempDir(), "performance-tables.md")
	wantCode(t, mb(t, "report", "-o", out, "--results", h.URI), cli.ExitOK)
	doc, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	got := reportTables(t, string(doc))
	if len(got) < 6 {
		t.Fatalf("%d tables rendered, want at least the query tests' 6", len(got))
	}
	full := []string{"by _id, cached/yes", "by _id, uncached/no", "100 docs by indexed term, cached/yes",
		"100 docs by indexed term, uncached/no", "20 docs, skip 380 (page 20 of a term)/no",
		"20 docs, range $gte on indexed seq (page 20)/no", "100 docs, compound index (term, cat)/no",
		"100 docs, indexed term + filter on unindexed field/no", "100 docs, $in of 100 terms/no"}
	var fetch []string
	for _, c := range []string{"cached/yes", "uncached/no"} {
		for _, n := range []int{1, 10, 50, 100, 200, 400} {
			fetch = append(fetch, fmt.Sprintf("%d %s per lookup, %s", n, map[bool]string{true: "doc", false: "docs"}[n == 1], c))
		}
	}
	// The query tests' performance and resource tables are those with a
	// Query column, in document order; each section's base instance comes
	// just before its performance table.
	var withQuery []int
	for j, rt := range got {
		if slices.Contains(rt.header, "Query") {
			withQuery = append(withQuery, j)
		}
	}
	if len(withQuery) != 4 {
		t.Fatalf("%d tables with a Query column, want 4 (performance and resource usage of both tests)", len(withQuery))
	}
	for i, want := range [][]string{full, fetch} {
		j := withQuery[2*i]
		base, perf, res := got[j-1], got[j], got[withQuery[2*i+1]]
		if len(base.rows) != 1 || base.rows[0][base.col(t, "Instance")] == "" {
			t.Errorf("query test %d base instance: got %v, want one row naming the instance", i, base.rows)
		}
		for _, rt := range []reportTable{perf, res} {
			var rows []string
			for _, r := range rt.rows {
				rows = append(rows, r[rt.col(t, "Query")]+"/"+r[rt.col(t, "Cached")])
			}
			if !slices.Equal(rows, want) {
				t.Errorf("table %v: rows\n got %v\nwant %v", rt.header, rows, want)
			}
		}
		for _, c := range []string{"Speed (queries/s)", "Speed (docs/s)", "p50 latency (ms)", "Server cache (MB)"} {
			j := perf.col(t, c)
			for _, r := range perf.rows {
				if v, err := strconv.ParseFloat(r[j], 64); err != nil || v <= 0 {
					t.Errorf("%s: %s %q, want a number > 0", r[0], c, r[j])
				}
			}
		}
		if h.Kind != server.KindSecantus {
			continue
		}
		for _, c := range []string{"Pages read into cache/s", "Cache write KB/s", "WAL KB/s"} {
			j := res.col(t, c)
			for _, r := range res.rows {
				if r[j] != "" {
					t.Errorf("%s: %s %q, want an empty cell (SecantusDB has no WiredTiger statistics)", r[0], c, r[j])
				}
			}
		}
	}
}
