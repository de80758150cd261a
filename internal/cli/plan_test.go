package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/testsupport/plantest"
)

const tinyPlan = `name: tiny
scenario: {workload: ycsb-b, threads: 4, duration: 3s, warmup: 1s, params: {recordcount: 1000}}
runs: 2
candidates:
  - {label: one-cpu, profile: {cpus: "0", cacheSize: 256MB}, price: 73 USD/month, baseline: true, instance: {type: 1 CPU}}
  - {label: two-cpu, profile: {cpus: "0-1", cacheSize: 256MB}, price: 139 USD/month, instance: {type: 2 CPUs}}
demand: {users: 1000, load: 80%, stages: [{name: now, users: 1000}, {name: next, users: 1100}, {name: far, users: 100000}]}
constraints: ["p99 READ <= 10s", "errors <= 1%"]
`

// TestPlan runs a two-candidate plan on local profile servers, then
// re-derives each stage's recommendation from the report's own tables: the
// cheapest candidate whose throughput covers the stage's need and whose
// constraints all pass. A second invocation adds a run; --from-results
// runs nothing.
func TestPlan(t *testing.T) {
	if testing.Short() {
		t.Skip("starts four servers of its own; -short skips it")
	}
	dir := t.TempDir()
	planFile := filepath.Join(dir, "plan.yaml")
	if err := os.WriteFile(planFile, []byte(tinyPlan), 0o644); err != nil {
		t.Fatal(err)
	}
	results, reports := filepath.Join(dir, "results.jsonl"), filepath.Join(dir, "reports")
	o := mb(t, "plan", planFile, "--results-file", results, "--report-dir", reports)
	wantCode(t, o, 0)
	if n := strings.Count(o.stderr, "starting a server"); n != 4 {
		t.Errorf("started %d profile servers, want 4 (2 candidates × 2 runs)\n%s", n, o)
	}
	md, err := os.ReadFile(filepath.Join(reports, "plan-tiny.md"))
	if err != nil {
		t.Fatal(err)
	}
	rederive(t, string(md))
	for _, chart := range []string{"throughput", "read-p95", "update-p95", "cost", "per-cost"} {
		if _, err := os.Stat(filepath.Join(reports, "plan-tiny-"+chart+".svg")); err != nil {
			t.Errorf("chart %s: %v", chart, err)
		}
	}

	o = mb(t, "plan", planFile, "--results-file", results, "--report-dir", reports, "--runs", "1")
	wantCode(t, o, 0)
	o = mb(t, "plan", planFile, "--results-file", results, "--from-results", "--json")
	wantCode(t, o, 0)
	if strings.Contains(o.stderr, "starting a server") {
		t.Errorf("--from-results started a server\n%s", o)
	}
	var ans struct {
		Assessments []struct {
			Name        string
			Repetitions int
			Throughput  float64
		}
		Stages []struct{ Choice string }
	}
	if err := json.Unmarshal([]byte(o.stdout), &ans); err != nil {
		t.Fatalf("--json: %v\n%s", err, o)
	}
	for _, a := range ans.Assessments {
		if a.Repetitions != 3 || a.Throughput <= 0 {
			t.Errorf("%s: %d runs at %v ops/s, want 3 runs (2 + 1 added) and a throughput", a.Name, a.Repetitions, a.Throughput)
		}
	}
	if len(ans.Stages) != 3 || ans.Stages[2].Choice != "" {
		t.Errorf("stages: got %+v, want 3 with none carrying 100,000 users", ans.Stages)
	}
}

// rederive recomputes every stage's choice from the Markdown tables.
func rederive(t *testing.T, md string) {
	t.Helper()
	cands := mdTable(t, md, "## Candidates")
	stages := mdTable(t, md, "## Stages")
	if len(cands) != 2 || len(stages) != 3 {
		t.Fatalf("tables: %d candidates, %d stages\n%s", len(cands), len(stages), md)
	}
	for _, s := range stages {
		need := number(t, s["needs ops/s"])
		best, bestCost := "none passes", 0.0
		for _, c := range cands {
			name := strings.TrimSuffix(c["candidate"], " (baseline)")
			cost := number(t, c["USD/month"])
			if number(t, c["ops/s"]) < need || !strings.HasPrefix(c["constraints"], "✅") {
				continue
			}
			if best == "none passes" || cost < bestCost {
				best, bestCost = name, cost
			}
		}
		if s["recommended"] != best {
			t.Errorf("stage %s needs %v ops/s: the report recommends %q, its tables say %q\n%s", s["stage"], need, s["recommended"], best, md)
		}
	}
}

// mdTable reads the Markdown table after heading as one map per row.
func mdTable(t *testing.T, md, heading string) []map[string]string {
	t.Helper()
	_, rest, ok := strings.Cut(md, heading+"\n\n")
	if !ok {
		t.Fatalf("no %q in\n%s", heading, md)
	}
	var head []string
	var rows []map[string]string
	for i, line := range strings.Split(rest, "\n") {
		if !strings.HasPrefix(line, "|") {
			break
		}
		cells := strings.Split(strings.Trim(line, "|"), "|")
		for j := range cells {
			cells[j] = strings.TrimSpace(cells[j])
		}
		switch i {
		case 0:
			head = cells
		case 1:
		default:
			row := map[string]string{}
			for j, h := range head {
				row[h] = cells[j]
			}
			rows = append(rows, row)
		}
	}
	if len(head) == 0 {
		t.Fatalf("empty table after %q", heading)
	}
	return rows
}

func number(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(strings.ReplaceAll(s, ",", ""), 64)
	if err != nil {
		t.Fatalf("number %q: %v", s, err)
	}
	return v
}

// seedPlanFile is the seed study as a plan file; its candidates are never
// contacted with --from-results.
func seedPlanFile(t *testing.T, bPrice string) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("name: seed\nscenario: {workload: ycsb-b, threads: 16, duration: 60s}\nruns: 3\ncandidates:\n")
	for _, c := range plantest.Seed {
		price := strconv.FormatFloat(c.Monthly, 'f', -1, 64)
		if c.Name == "b" {
			price = bPrice
		}
		fmt.Fprintf(&b, "  - {label: %s, uri: 'mongodb://127.0.0.1:1/', price: %s EUR/month, baseline: %v}\n", c.Name, price, c.Name == "base")
	}
	b.WriteString("demand: {users: 25000, load: 80%, stages: [{name: stage 1, users: 50000}, {name: stage 2, users: 90000}]}\n")
	b.WriteString("constraints: [p95 READ <= +5%, p95 UPDATE <= +5%]\n")
	path := filepath.Join(t.TempDir(), "seed.yaml")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestPlanFromStoredSeedStudy answers the seed study from its stored
// result documents (six candidates, three runs each): a for the first
// stage, b for the second, c and d rejected for latency; then b's price
// alone, changed in the plan file, moves the first stage to b.
func TestPlanFromStoredSeedStudy(t *testing.T) {
	docs, err := plantest.Docs("seed")
	if err != nil {
		t.Fatal(err)
	}
	results := filepath.Join(t.TempDir(), "results.jsonl")
	for _, d := range docs {
		if err := store.NewFile(results).Save(context.Background(), d); err != nil {
			t.Fatal(err)
		}
	}
	o := mb(t, "plan", seedPlanFile(t, "1625"), "--from-results", "--results-file", results, "--report-dir", t.TempDir())
	wantCode(t, o, 0)
	for _, want := range []string{
		"stage 1 (50,000 users, 12,800 ops/s): a, 160% more throughput for 48% more money than base",
		"stage 2 (90,000 users, 23,040 ops/s): b, 250% more throughput for 72.9% more money than base",
		"c: p95 READ 2.24 ms is 12",
		"d: p95 UPDATE 4.36 ms is 9",
	} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("output lacks %q\n%s", want, o)
		}
	}
	o = mb(t, "plan", seedPlanFile(t, "1390"), "--from-results", "--results-file", results, "--json")
	wantCode(t, o, 0)
	var ans struct{ Stages []struct{ Choice string } }
	if err := json.Unmarshal([]byte(o.stdout), &ans); err != nil {
		t.Fatal(err)
	}
	if len(ans.Stages) != 2 || ans.Stages[0].Choice != "b" || ans.Stages[1].Choice != "b" {
		t.Errorf("b at 1,390 EUR: got %+v, want b for both stages", ans.Stages)
	}
}
