package cli_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// TestPlanOnARecording: a plan whose scenario is a recording (one
// connection, 400 finds 10 ms apart) and two local profiles, one and two
// CPUs. Each candidate replays the recording at every stage's growth:
// ×1 (its own pace, which any candidate keeps) and ×1000 (beyond what
// one connection's round trips allow). The report's stage table is
// re-derived: at each stage, the cheapest candidate that kept 95% of the
// stage's rate within the constraints; ×1 has one, ×1000 none. The
// same plan from the stored runs gives the same answer; a growth in a
// plan of a written workload is refused with its line.
func TestPlanOnARecording(t *testing.T) {
	testenv.Servers(t)
	rec := recordThrough(t, oneConnection(t, testenv.DBName(t)))
	dir := t.TempDir()
	planFile := filepath.Join(dir, "plan.yaml")
	body := fmt.Sprintf(`name: traffic
scenario: {workload: %q}
candidates:
  - {label: one-cpu, profile: {cpus: "0", cacheSize: 256MB}, price: 73 USD/month, baseline: true}
  - {label: two-cpu, profile: {cpus: "0-1", cacheSize: 256MB}, price: 139 USD/month}
demand: {stages: [{name: today, growth: 1}, {name: far, growth: 1000x}]}
constraints: ["p99 <= 5s", "errors <= 1%%"]
`, rec)
	if err := os.WriteFile(planFile, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	results, reports := filepath.Join(dir, "results.jsonl"), filepath.Join(dir, "reports")
	// Every run counts (--include-invalid): a host with CPU steal may
	// judge some invalid, and this test is about the stages' answer.
	o := mb(t, "plan", planFile, "--results-file", results, "--report-dir", reports, "--include-invalid")
	wantCode(t, o, cli.ExitOK)
	t.Logf("%s", o.stdout)
	if n := strings.Count(o.stderr, "starting a server"); n != 2 {
		t.Errorf("started %d profile servers, want 2 (one per candidate, both stages on it)\n%s", n, o)
	}
	for _, want := range []string{"stage today (×1", "stage far (×1000"} {
		if !strings.Contains(o.stderr, want) {
			t.Errorf("progress lacks %q:\n%s", want, o.stderr)
		}
	}
	md, err := os.ReadFile(filepath.Join(reports, "plan-traffic.md"))
	if err != nil {
		t.Fatal(err)
	}
	stages := mdTable(t, string(md), "## Stages")
	if len(stages) != 2 {
		t.Fatalf("%d stages, want 2\n%s", len(stages), md)
	}
	cands := mdTable(t, string(md), "## Candidates")
	price := map[string]float64{}
	for _, c := range cands {
		price[strings.TrimSuffix(c["candidate"], " (baseline)")] = number(t, c["USD/month"])
	}
	for _, s := range stages {
		best := "none passes"
		for _, name := range []string{"one-cpu", "two-cpu"} {
			if strings.HasPrefix(s[name], "✅ kept") && (best == "none passes" || price[name] < price[best]) {
				best = name
			}
		}
		if s["recommended"] != best {
			t.Errorf("stage %s: the report recommends %q, its cells say %q\n%s", s["stage"], s["recommended"], best, md)
		}
	}
	if stages[0]["recommended"] == "none passes" {
		t.Errorf("no candidate kept the recording's own pace:\n%s", md)
	}
	if stages[1]["recommended"] != "none passes" || !strings.Contains(stages[1]["one-cpu"], "fell behind") {
		t.Errorf("a candidate kept ×1000 of a one-connection recording:\n%s", md)
	}

	// The same answer from the stored runs.
	o = mb(t, "plan", planFile, "--results-file", results, "--from-results", "--json", "--report-dir", t.TempDir(), "--include-invalid")
	wantCode(t, o, cli.ExitOK)
	var ans struct {
		Paced  bool
		Stages []struct {
			Choice   string
			Required float64
			Stage    struct{ Growth float64 }
		}
	}
	if err := json.Unmarshal([]byte(o.stdout), &ans); err != nil {
		t.Fatalf("--json: %v\n%s", err, o)
	}
	if !ans.Paced || len(ans.Stages) != 2 || ans.Stages[0].Choice != stages[0]["recommended"] || ans.Stages[1].Choice != "" {
		t.Errorf("from the stored runs: %+v, want the report's answer (%q, none)", ans, stages[0]["recommended"])
	}
	if r0, r1 := ans.Stages[0].Required, ans.Stages[1].Required; !(r0 > 0) || r1 < 999.9*r0 || r1 > 1000.1*r0 {
		t.Errorf("stage rates %v and %v: want the recorded rate and 1000 times it", r0, r1)
	}

	// A growth multiplies a recording's traffic only.
	bad := strings.Replace(body, fmt.Sprintf("%q", rec), "kv", 1)
	if err := os.WriteFile(planFile, []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	o = mb(t, "plan", planFile, "--results-file", results, "--from-results")
	wantCode(t, o, cli.ExitUsage)
	if !strings.Contains(o.stderr, "mongobench: "+planFile+":6: demand.stages[0].growth: a growth multiplies a recording's traffic, and the scenario's workload kv is not a recording") {
		t.Errorf("growth in a plan of kv: want the stage's line and why\n%s", o)
	}
}
