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
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
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
	testenv.Servers(t)
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
		if _, err := os.Stat(filepath.Join(reports, "charts", "plan-tiny-"+chart+".svg")); err != nil {
			t.Errorf("chart %s: %v", chart, err)
		}
	}

	o = mb(t, "plan", planFile, "--results-file", results, "--report-dir", reports, "--repeat", "1")
	wantCode(t, o, 0)
	o = mb(t, "plan", planFile, "--results-file", results, "--from-results", "--json", "--report-dir", t.TempDir())
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
		"a: +160% throughput for +48% cost, 75.7% better throughput per cost than base.",
	} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("output lacks %q\n%s", want, o)
		}
	}
	o = mb(t, "plan", seedPlanFile(t, "1390"), "--from-results", "--results-file", results, "--json", "--report-dir", t.TempDir())
	wantCode(t, o, 0)
	var ans struct{ Stages []struct{ Choice string } }
	if err := json.Unmarshal([]byte(o.stdout), &ans); err != nil {
		t.Fatal(err)
	}
	if len(ans.Stages) != 2 || ans.Stages[0].Choice != "b" || ans.Stages[1].Choice != "b" {
		t.Errorf("b at 1,390 EUR: got %+v, want b for both stages", ans.Stages)
	}
}

// TestPlanShippedExample runs the shipped capacity plan
// (suites/plan-local.yaml: three local profiles, calibrated at 80% of the
// baseline's server CPU) at small sizes, and checks that it answers with
// the baseline ratios and a CPU calibration whose CPU is a share of the
// 1-CPU baseline's own CPU, in the terminal, the report and the JSON.
func TestPlanShippedExample(t *testing.T) {
	testenv.Servers(t)
	src, err := os.ReadFile("../../suites/plan-local.yaml")
	if err != nil {
		t.Fatal(err)
	}
	small := string(src)
	for _, r := range [][2]string{
		{"threads: 16", "threads: 4"}, {"duration: 20s", "duration: 3s"}, {"warmup: 5s", "warmup: 1s"},
		{"recordcount: 50000", "recordcount: 1000"}, {"name: local-ycsb-b", "name: shipped-small"},
	} {
		if !strings.Contains(small, r[0]) {
			t.Fatalf("the shipped plan has no %q any more: update this test", r[0])
		}
		small = strings.Replace(small, r[0], r[1], 1)
	}
	dir := t.TempDir()
	planFile := filepath.Join(dir, "plan-local.yaml")
	if err := os.WriteFile(planFile, []byte(small), 0o644); err != nil {
		t.Fatal(err)
	}
	results, reports := filepath.Join(dir, "results.jsonl"), filepath.Join(dir, "reports")
	o := mb(t, "plan", planFile, "--repeat", "1", "--results-file", results, "--report-dir", reports)
	wantCode(t, o, 0)
	for _, want := range []string{
		"Against the baseline, local-1cpu-256mb",
		"local-2cpu-256mb: ",
		" throughput for +90.4% cost, ", // 139 against 73 USD a month
		"local-2cpu-1gb: ",
		" throughput for +150% cost, ", // 182.5 against 73
		" throughput per cost than local-1cpu-256mb.",
		"users: today's 25,000 users put the baseline (local-1cpu-256mb) at 80% of its server CPU; it sustained ",
	} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("the answer lacks %q\n%s", want, o)
		}
	}
	md, err := os.ReadFile(filepath.Join(reports, "plan-shipped-small.md"))
	if err != nil {
		t.Fatal(err)
	}
	ratios := mdTable(t, string(md), "## Against the baseline, local-1cpu-256mb")
	if len(ratios) != 2 || ratios[0]["cost"] != "+90.4%" || ratios[1]["cost"] != "+150%" || ratios[0]["throughput"] == "" {
		t.Errorf("report's ratios: %v\n%s", ratios, md)
	}

	o = mb(t, "plan", planFile, "--from-results", "--results-file", results, "--json", "--report-dir", t.TempDir())
	wantCode(t, o, 0)
	var ans struct {
		OpsPerUser  float64
		Users       struct{ By, Problem string }
		Assessments []struct {
			Name       string
			Throughput float64
			ServerCPU  *float64
			VsBaseline struct{ Throughput, Cost, ThroughputPerCost *float64 }
		}
	}
	if err := json.Unmarshal([]byte(o.stdout), &ans); err != nil {
		t.Fatalf("--json: %v\n%s", err, o)
	}
	if ans.Users.By != "cpu" || ans.Users.Problem != "" || ans.OpsPerUser <= 0 {
		t.Errorf("calibration: %+v at %v ops/s per user, want by cpu, calibrated", ans.Users, ans.OpsPerUser)
	}
	for _, a := range ans.Assessments {
		r := a.VsBaseline
		if r.Throughput == nil || r.Cost == nil || r.ThroughputPerCost == nil {
			t.Errorf("%s: ratios %+v, want throughput, cost and throughput per cost", a.Name, r)
			continue
		}
		t.Logf("%s: %.0f ops/s, server CPU %v%% of its CPUs; ×%.3f throughput, ×%.3f cost, ×%.3f per cost",
			a.Name, a.Throughput, deref(a.ServerCPU), *r.Throughput, *r.Cost, *r.ThroughputPerCost)
		// A server pinned to its CPUs cannot use more than all of them;
		// the sampling's edges allow a few percent.
		if a.ServerCPU == nil || *a.ServerCPU <= 0 || *a.ServerCPU > 110 {
			t.Errorf("%s: server CPU %v, want a share of its own CPUs in (0, 100]", a.Name, deref(a.ServerCPU))
		}
	}
}

func deref(v *float64) any {
	if v == nil {
		return nil
	}
	return *v
}
