package studyview_test

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/studyview"
	"github.com/mongobench/mongobench/internal/testsupport/golden"
	"github.com/mongobench/mongobench/internal/testsupport/plantest"
	"github.com/mongobench/mongobench/internal/textreport"
)

// TestWritePlanReport renders the seed study's report and its charts.
func TestWritePlanReport(t *testing.T) {
	pl := seedPlan(t, 1625)
	ans, err := study.Plan{Spec: pl, Stored: seedStored(t)}.Answer(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	md, charts, err := textreport.StudyMarkdown(studyview.Plan(pl, ans, nil))
	if err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "plan-report.md", md)
	var files []string
	for _, f := range slices.Sorted(maps.Keys(charts)) {
		files = append(files, f)
		if !bytes.Contains(charts[f], []byte("<svg")) {
			t.Errorf("%s: not an SVG", f)
		}
		if !bytes.Contains(md, []byte("]("+f+")")) {
			t.Errorf("the report does not link %s", f)
		}
	}
	want := []string{"charts/plan-seed-cost.svg", "charts/plan-seed-per-cost.svg", "charts/plan-seed-read-p95.svg", "charts/plan-seed-throughput.svg", "charts/plan-seed-update-p95.svg"}
	if !slices.Equal(files, want) {
		t.Errorf("charts: got %v, want %v", files, want)
	}
}

// seedPlan is the seed study as a plan, b priced at bPrice EUR a month.
func seedPlan(t *testing.T, bPrice float64) *spec.Plan {
	t.Helper()
	var b strings.Builder
	b.WriteString("name: seed\nscenario: {workload: ycsb-b, threads: 16, duration: 60s}\nruns: 3\ncandidates:\n")
	for _, c := range plantest.Seed {
		price := c.Monthly
		if c.Name == "b" {
			price = bPrice
		}
		fmt.Fprintf(&b, "  - {label: %s, uri: 'mongodb://127.0.0.1:1/', price: %v EUR/month, baseline: %v}\n", c.Name, price, c.Name == "base")
	}
	b.WriteString("demand: {users: 25000, load: 80%, stages: [{name: stage 1, users: 50000}, {name: stage 2, users: 90000}]}\n")
	b.WriteString("constraints: [p95 READ <= +5%, p95 UPDATE <= +5%]\n")
	return parsePlan(t, b.String())
}

// seedStored is the seed study's stored runs, with runs of another plan
// and a partial run that the plan ignores.
func seedStored(t *testing.T) func(context.Context) ([]result.Doc, error) {
	t.Helper()
	docs, err := plantest.Docs("seed")
	if err != nil {
		t.Fatal(err)
	}
	var all []result.Doc
	for _, d := range docs {
		all = append(all, *d)
	}
	other, err := plantest.Docs("other")
	if err != nil {
		t.Fatal(err)
	}
	partial := *docs[0]
	partial.Partial, partial.Schedule.AchievedRate = true, 1 // would make base's median 7,760
	return stored(append(all, *other[0], partial)...)
}

func parsePlan(t *testing.T, src string) *spec.Plan {
	t.Helper()
	pl, err := spec.ParsePlan("plan.yaml", []byte(src), planRegistry)
	if err != nil {
		t.Fatal(err)
	}
	return pl
}

// stored returns a Stored function over docs.
func stored(docs ...result.Doc) func(context.Context) ([]result.Doc, error) {
	return func(context.Context) ([]result.Doc, error) { return docs, nil }
}

// planRegistry knows the workload of the plans below.
var planRegistry = spec.MapRegistry{"ycsb-b": {{Name: "recordcount", Kind: spec.KindInt, Default: "1000"}}}
