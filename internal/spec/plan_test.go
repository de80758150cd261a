package spec

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/plan"
)

func TestParsePlanExample(t *testing.T) {
	data, err := os.ReadFile("../../suites/plan-local.yaml")
	if err != nil {
		t.Fatal(err)
	}
	pl, err := ParsePlan("plan-local.yaml", data, testRegistry())
	if err != nil {
		t.Fatal(err)
	}
	if pl.Name != "local-ycsb-b" || pl.Runs != 2 || len(pl.Candidates) != 3 || len(pl.Demand.Stages) != 2 || len(pl.Constraints) != 3 {
		t.Fatalf("got %+v", pl)
	}
	if got := pl.Demand; got.Load != 0.8 || got.By != plan.ByCPU || got.Users != 25000 {
		t.Errorf("calibration: got %v users at %v of the baseline's %v, want 25000 at 0.8 of its cpu", got.Users, got.Load, got.By)
	}
	if !pl.Candidates[0].Baseline || pl.Candidates[0].Price.PerMonth() != 73 {
		t.Errorf("baseline: got %+v", pl.Candidates[0])
	}
	if pl.Scenario.Workload != "ycsb-b" || pl.Scenario.Threads != 16 {
		t.Errorf("scenario: got %+v", pl.Scenario)
	}
}

func TestParsePlanErrors(t *testing.T) {
	base := `name: p
scenario: {workload: ycsb-b, threads: 4}
candidates:
  - {label: a, uri: 'mongodb://h/', price: 1 USD/h, baseline: true}
  - {label: b, uri: 'mongodb://h2/', price: 2 USD/h}
demand: {users: 100, load: 80%, stages: [{name: s, users: 200}]}
`
	if _, err := ParsePlan("p.yaml", []byte(base), testRegistry()); err != nil {
		t.Fatalf("valid plan: %v", err)
	}
	tests := []struct{ name, yaml, want string }{
		{"no baseline", strings.Replace(base, ", baseline: true", "", 1), "p.yaml:4: candidates: no candidate is the baseline"},
		{"no price", strings.Replace(base, ", price: 2 USD/h", "", 1), "p.yaml:5: candidates[1].price: is missing"},
		{"two currencies", strings.Replace(base, "2 USD/h", "2 EUR/h", 1), `candidates[1].price: "EUR" is not valid: want the currency of the other candidates, USD`},
		{"bad load", strings.Replace(base, "80%", "0.8", 1), `p.yaml:6: demand.load: "0.8" is not valid`},
		{"users without calibration", strings.Replace(base, "users: 100, load: 80%, ", "", 1), "demand: stages are in users"},
		{"calibrate and users", strings.Replace(base, "load: 80%, ", "load: 80%, calibrate: {users: 1, cpu: 50%}, ", 1), "p.yaml:6: demand.calibrate: is given with demand.users or demand.load"},
		{"calibrate without a share", strings.Replace(base, "users: 100, load: 80%, ", "calibrate: {users: 100}, ", 1), "p.yaml:6: demand.calibrate: needs users and exactly one of cpu and throughput"},
		{"calibrate with both shares", strings.Replace(base, "users: 100, load: 80%, ", "calibrate: {users: 100, cpu: 80%, throughput: 80%}, ", 1), "demand.calibrate: needs users and exactly one of cpu and throughput"},
		{"calibrate bad cpu", strings.Replace(base, "users: 100, load: 80%, ", "calibrate: {users: 100, cpu: 180%}, ", 1), `p.yaml:6: demand.calibrate.cpu: "180%" is not valid: want a percentage such as 80%: the share of the baseline's server CPU`},
		{"calibrate unknown key", strings.Replace(base, "users: 100, load: 80%, ", "calibrate: {users: 100, memory: 80%}, ", 1), `unknown key "memory"`},
		{"users and rate", strings.Replace(base, "users: 200", "users: 200, rate: 5/s", 1), "demand.stages[0]: give exactly one of users, rate and growth"},
		{"bad constraint", base + "constraints: [latency <= 5ms]\n", `p.yaml:7: constraints[0]: "latency <= 5ms" is not valid at "latency" (column 1): want a threshold on latency`},
		{"unsigned change", base + "constraints: [p95 READ <= 5%]\n", `p.yaml:7: constraints[0]: "p95 READ <= 5%" is not valid at "5%" (column 13): want a threshold on latency, errors, throughput or headroom such as "p95 READ <= +5%" (a change against the baseline)`},
		{"constraint a plan cannot judge", base + "constraints: [clientbound == false]\n", `p.yaml:7: constraints[0]: "clientbound == false" is not valid in a plan: want a threshold on latency`},
		{"bad scenario", strings.Replace(base, "threads: 4", "threads: -4", 1), "p.yaml:2: scenario.threads"},
		{"unknown key", base + "runz: 3\n", `p.yaml:7: unknown key "runz"`},
		{"runs", base + "runs: 0\n", `p.yaml:7: runs: "0" is not valid`},
	}
	cpu := strings.Replace(base, "users: 100, load: 80%, ", "calibrate: {users: 100, cpu: 80%}, ", 1)
	if pl, err := ParsePlan("p.yaml", []byte(cpu), testRegistry()); err != nil || pl.Demand.By != plan.ByCPU || pl.Demand.Load != 0.8 || pl.Demand.Users != 100 {
		t.Errorf("calibrate by cpu: got %+v, %v", pl, err)
	}
	for _, tt := range tests {
		_, err := ParsePlan("p.yaml", []byte(tt.yaml), testRegistry())
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s: got %v want an error containing %q", tt.name, err, tt.want)
		}
	}
}

// testRegistry knows ycsb-b with the one parameter the example sets.
func testRegistry() Registry {
	return MapRegistry{"ycsb-b": {{Name: "recordcount", Kind: KindInt, Default: "1000", Min: "1"}}}
}

// recordings is a registry whose workload "shop.rec" replays a
// recording of 50 requests per second.
type recordings struct{ MapRegistry }

func (recordings) RecordedRate(w string, _ Params) (float64, bool, error) {
	return 50, w == "shop.rec", nil
}

// TestRecordingPlan: a recording's stages grow its traffic (growth times
// its rate, or a rate); a stage in users, a headroom constraint and the
// replay's own speed are refused in it, and a growth anywhere else.
func TestRecordingPlan(t *testing.T) {
	reg := recordings{MapRegistry{
		"shop.rec": {{Name: "speed", Kind: KindFloat, Default: "1"}},
		"ycsb-b":   {{Name: "recordcount", Kind: KindInt, Default: "1000", Min: "1"}},
	}}
	head := "name: p\nscenario: {workload: shop.rec}\ncandidates: [{label: a, uri: 'mongodb://h/', price: 1 USD/month, baseline: true}]\n"
	pl, err := ParsePlan("p.yaml", []byte(head+"demand: {stages: [{name: now, growth: 1}, {name: next, growth: 2x}, {name: far, growth: ×2.5}, {name: fixed, rate: 400/s}]}\n"), reg)
	if err != nil {
		t.Fatal(err)
	}
	if pl.RecordedRate != 50 {
		t.Errorf("recorded rate %v, want 50", pl.RecordedRate)
	}
	var rates []float64
	for _, s := range pl.Demand.Stages {
		rates = append(rates, s.Rate)
	}
	if fmt.Sprint(rates) != "[50 100 125 400]" {
		t.Errorf("stage rates %v, want [50 100 125 400]", rates)
	}
	for _, c := range []struct{ yaml, want string }{
		{"demand: {stages: [{name: now, growth: 0}]}\n", "p.yaml:4: demand.stages[0].growth: \"0\" is not valid: want a positive number of times"},
		{"demand: {stages: [{name: now, growth: fast}]}\n", "p.yaml:4: demand.stages[0].growth: \"fast\" is not valid"},
		{"demand: {stages: [{name: now, growth: 1001}]}\n", "at most 1000"},
		{"demand: {stages: [{name: now, growth: 2, rate: 5/s}]}\n", "give exactly one of users, rate and growth"},
		{"demand: {users: 10, load: 80%, stages: [{name: now, users: 20}]}\n", "p.yaml:4: demand.stages[0].users: a recording's stage grows the recorded traffic"},
		{"demand: {stages: [{name: now, growth: 2}]}\nconstraints: [headroom >= 20%]\n", "cannot be judged in a recording's plan"},
	} {
		_, err := ParsePlan("p.yaml", []byte(head+c.yaml), reg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v, want %q", c.yaml, err, c.want)
		}
	}
	speed := strings.Replace(head, "{workload: shop.rec}", "{workload: shop.rec, params: {speed: 2}}", 1)
	if _, err := ParsePlan("p.yaml", []byte(speed+"demand: {stages: [{name: now, growth: 2}]}\n"), reg); err == nil || !strings.Contains(err.Error(), "p.yaml:2: scenario.params.speed") {
		t.Errorf("params.speed in a recording's plan: got %v", err)
	}
	other := strings.Replace(head, "shop.rec", "ycsb-b", 1)
	if _, err := ParsePlan("p.yaml", []byte(other+"demand: {stages: [{name: now, growth: 2}]}\n"), reg); err == nil || !strings.Contains(err.Error(), "p.yaml:4: demand.stages[0].growth: a growth multiplies a recording's traffic, and the scenario's workload ycsb-b is not a recording") {
		t.Errorf("growth in a plan of ycsb-b: got %v", err)
	}
}
