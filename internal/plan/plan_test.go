package plan

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/testsupport/plantest"
	"github.com/mongobench/mongobench/internal/threshold"
)

func seedPlan(t *testing.T, prices map[string]float64) Plan {
	t.Helper()
	docs, err := plantest.Docs("seed")
	if err != nil {
		t.Fatal(err)
	}
	var p Plan
	for _, c := range plantest.Seed {
		monthly := c.Monthly
		if v, ok := prices[c.Name]; ok {
			monthly = v
		}
		cand := Candidate{Name: c.Name, Baseline: c.Name == "base", Monthly: monthly, Currency: "EUR"}
		for _, d := range docs {
			if d.Variant["candidate"] == c.Name {
				cand.Runs = append(cand.Runs, RunOf(d))
			}
		}
		p.Candidates = append(p.Candidates, cand)
	}
	p.Demand = Demand{Users: 25000, Load: 0.8, Stages: []Stage{{Name: "stage 1", Users: 50000}, {Name: "stage 2", Users: 90000}}}
	for _, s := range []string{"p95 READ <= +5%", "p95 UPDATE <= +5%", "errors <= 1%"} {
		c, err := threshold.Parse(s)
		if err != nil {
			t.Fatal(err)
		}
		p.Constraints = append(p.Constraints, c)
	}
	return p
}

func choices(a Answer) []string {
	var out []string
	for _, s := range a.Stages {
		out = append(out, s.Choice)
	}
	return out
}

// TestSeedStudy reproduces the seed study's recommendation from stored
// result documents: a for the first stage, b for the second, with c and d
// rejected for latency although they carry the load.
func TestSeedStudy(t *testing.T) {
	a, err := Evaluate(seedPlan(t, nil))
	if err != nil {
		t.Fatal(err)
	}
	if got, want := choices(a), []string{"a", "b"}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("recommendations: got %v want %v", got, want)
	}
	if got, want := a.OpsPerUser, 0.8*8000/25000; got != want {
		t.Errorf("ops/s per user: got %v want %v", got, want)
	}
	if got := a.Stages[0].Required; got != 12800 {
		t.Errorf("stage 1 needs: got %v ops/s want 12,800", got)
	}
	for stage, name := range map[int]string{0: "c", 1: "d"} {
		r := rejection(a.Stages[stage], name)
		if !strings.Contains(r, "worse than the baseline") {
			t.Errorf("stage %d: %s rejected for %q; want latency", stage+1, name, r)
		}
		if f := a.find(name).Stages[stage]; !f.Carries {
			t.Errorf("stage %d: %s should carry the load (headroom %v)", stage+1, name, f.Headroom)
		}
	}
	if r := rejection(a.Stages[1], "a"); !strings.Contains(r, "sustains 20,800 ops/s; the stage needs 23,040") {
		t.Errorf("stage 2: a rejected for %q; want capacity", r)
	}
	var b strings.Builder
	if err := Write(&b, a, false); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"stage 1 (50,000 users, 12,800 ops/s): a, 160% more throughput for 48% more money than base",
		"stage 2 (90,000 users, 23,040 ops/s): b, 250% more throughput for 72.9% more money than base",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, b.String())
		}
	}
}

func rejection(r Recommendation, name string) string {
	for _, x := range r.Rejected {
		if x.Candidate == name {
			return x.Reason
		}
	}
	return ""
}

// TestPriceFlip changes b's price around a's: stage 1 moves to b exactly
// when b becomes the cheaper of the two that pass, and stage 2 never
// moves (b is the only one that passes it).
func TestPriceFlip(t *testing.T) {
	tests := []struct {
		price float64
		want  []string
	}{
		{1625, []string{"a", "b"}},
		{1392, []string{"a", "b"}},
		{1391, []string{"b", "b"}}, // same price: the higher throughput wins
		{1390, []string{"b", "b"}},
		{500, []string{"b", "b"}},
	}
	for _, tt := range tests {
		a, err := Evaluate(seedPlan(t, map[string]float64{"b": tt.price}))
		if err != nil {
			t.Fatal(err)
		}
		if got := choices(a); fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("b at %v: got %v want %v", tt.price, got, tt.want)
		}
	}
	// A price that cannot flip anything: c is rejected for latency
	// whatever it costs.
	a, err := Evaluate(seedPlan(t, map[string]float64{"c": 1}))
	if err != nil {
		t.Fatal(err)
	}
	if got := choices(a); fmt.Sprint(got) != "[a b]" {
		t.Errorf("c at 1 EUR: got %v want [a b]", got)
	}
}

func TestHeadroom(t *testing.T) {
	p := seedPlan(t, nil)
	c, err := threshold.Parse("headroom >= 20%")
	if err != nil {
		t.Fatal(err)
	}
	p.Constraints = append(p.Constraints, c)
	a, err := Evaluate(p)
	if err != nil {
		t.Fatal(err)
	}
	// Stage 2 needs 23,040 ops/s with 20% to spare: 28,800. b (28,000)
	// no longer carries it and d is rejected for latency.
	if got := choices(a); fmt.Sprint(got) != "[a ]" {
		t.Errorf("with 20%% headroom: got %v want [a ]", got)
	}
}

// TestConstraintForms: the plan file's constraints are thresholds, and
// each form a plan file has always accepted judges the seed study's
// candidates as before.
func TestConstraintForms(t *testing.T) {
	for _, tc := range []struct {
		rule string
		want map[string]bool // candidate: passes
	}{
		{"p95 READ <= +5%", map[string]bool{"base": true, "a": true, "b": true, "c": false, "d": true, "e": true}},
		{"p95(READ) <= +5%", map[string]bool{"base": true, "a": true, "b": true, "c": false, "d": true, "e": true}},
		{"p95 <= +5%", map[string]bool{"base": true, "a": true, "b": true, "c": false, "d": false, "e": true}},
		{"p99 READ <= 2ms", map[string]bool{"base": true, "a": true, "b": true, "c": false, "d": true, "e": true}},
		{"p99 <= 1.5s", map[string]bool{"base": true, "a": true, "b": true, "c": true, "d": true, "e": true}},
		{"errors <= 0.1%", map[string]bool{"base": true, "a": true, "b": true, "c": true, "d": true, "e": true}},
		{"throughput >= +100%", map[string]bool{"base": false, "a": true, "b": true, "c": false, "d": true, "e": false}},
	} {
		p := seedPlan(t, nil)
		c, err := threshold.Parse(tc.rule)
		if err != nil {
			t.Fatalf("%s: %v", tc.rule, err)
		}
		if err := CheckConstraint(c); err != nil {
			t.Fatalf("%s: %v", tc.rule, err)
		}
		p.Constraints = []threshold.Threshold{c}
		a, err := Evaluate(p)
		if err != nil {
			t.Fatal(err)
		}
		for _, as := range a.Assessments {
			if got := as.Passed(); got != tc.want[as.Name] {
				t.Errorf("%s: %s passes %v, want %v (%v)", tc.rule, as.Name, got, tc.want[as.Name], as.Checks)
			}
		}
	}
	for _, bad := range []string{"svc.p50 <= 1ms", "rate >= 99%", "clientbound == false"} {
		c, err := threshold.Parse(bad)
		if err != nil {
			t.Fatal(err)
		}
		if CheckConstraint(c) == nil {
			t.Errorf("CheckConstraint(%q): got nil error", bad)
		}
	}
}

func TestMissingLatencyFails(t *testing.T) {
	p := seedPlan(t, nil)
	// A run without histograms: its latency is missing, so a latency
	// constraint cannot be shown to hold and the candidate fails it.
	for i := range p.Candidates[1].Runs {
		p.Candidates[1].Runs[i].Ops = map[string]result.Dist{"READ": {P95: result.F(1)}}
	}
	a, err := Evaluate(p)
	if err != nil {
		t.Fatal(err)
	}
	if r := rejection(a.Stages[0], "a"); !strings.Contains(r, "was not measured") {
		t.Errorf("a without histograms: rejected for %q; want not measured", r)
	}
}

// TestBaselineRatios checks the seed study's figures against the
// baseline: a has 160% more throughput for 48% more money, 75.7% better
// throughput per cost, and its UPDATE p95 is 2.5% above the baseline's.
func TestBaselineRatios(t *testing.T) {
	a, err := Evaluate(seedPlan(t, nil))
	if err != nil {
		t.Fatal(err)
	}
	r := a.find("a").VsBaseline
	near := func(what string, got *float64, want float64) {
		t.Helper()
		if got == nil || math.Abs(*got-want) > 0.001 {
			t.Errorf("%s: got %v, want %.4f", what, got, want)
		}
	}
	near("throughput", r.Throughput, 20800.0/8000)
	near("cost", r.Cost, 1391.0/940)
	near("throughput per cost", r.ThroughputPerCost, (20800.0/1391)/(8000.0/940))
	near("UPDATE p95", r.Latency["UPDATE"].P95, 4.1/4)
	if base := a.find("base").VsBaseline; base.Throughput == nil || *base.Throughput != 1 {
		t.Errorf("the baseline against itself: %v, want 1", base.Throughput)
	}
	lines := strings.Join(RatioLines(a), "\n")
	if want := "a: +160% throughput for +48% cost, 75.7% better throughput per cost than base."; !strings.Contains(lines, want) {
		t.Errorf("ratio lines lack %q:\n%s", want, lines)
	}
	var b strings.Builder
	if err := Write(&b, a, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "against the baseline, base:") || !strings.Contains(b.String(), "+75.7%") {
		t.Errorf("the answer lacks the ratios table:\n%s", b.String())
	}
}

// onHost makes every run of the plan's candidates a run of a server on a
// host of hostCores CPUs, at cpu percent of them.
func onHost(p *Plan, hostCores int, cpu float64) {
	for i := range p.Candidates {
		for j := range p.Candidates[i].Runs {
			r := &p.Candidates[i].Runs[j]
			r.OnHost, r.HostCores, r.ServerCPU = true, hostCores, result.F(cpu)
		}
	}
}

// TestServerCPUOwnShare checks that a server on the tool's host has its
// CPU reported as a share of its own CPUs: 48% of a 2-CPU host is 96% of
// a 1-CPU profile, and stays 48% for a server that may use both.
func TestServerCPUOwnShare(t *testing.T) {
	p := seedPlan(t, nil)
	onHost(&p, 2, 48)
	p.Candidates[0].CPUs = 1
	p.Candidates[1].CPUs = 2
	a, err := Evaluate(p)
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]float64{"base": 96, "a": 48, "b": 48} {
		if got := a.find(name).ServerCPU; got == nil || math.Abs(*got-want) > 1e-9 {
			t.Errorf("%s: server CPU %v, want %v%% of its own CPUs", name, got, want)
		}
	}
	p.Candidates[0].Runs[1].HostCores = 0
	a, err = Evaluate(p)
	if err != nil {
		t.Fatal(err)
	}
	if m := a.find("base"); m.ServerCPU != nil || !strings.Contains(m.NoServerCPU, "how many CPUs its host has") {
		t.Errorf("a run without the host's CPU count: server CPU %v (%q), want missing with the reason", m.ServerCPU, m.NoServerCPU)
	}
}

// TestCalibrateByCPU calibrates the seed's users at 80% of the baseline's
// server CPU: the baseline sustained 8,000 ops/s at 70% of its CPUs, so
// 80% is 9,143 ops/s for 25,000 users. Without the baseline's CPU the
// plan says it cannot calibrate and why, and answers no stage in users.
func TestCalibrateByCPU(t *testing.T) {
	p := seedPlan(t, nil)
	p.Demand.By = ByCPU
	a, err := Evaluate(p)
	if err != nil {
		t.Fatal(err)
	}
	want := 8000 * 0.8 / 0.7 / 25000
	if math.Abs(a.OpsPerUser-want) > 1e-9 || a.Users == nil || a.Users.Problem != "" {
		t.Fatalf("ops/s per user: got %v (%+v), want %v", a.OpsPerUser, a.Users, want)
	}
	if got := a.Stages[0].Required; math.Abs(got-50000*want) > 1e-6 {
		t.Errorf("stage 1 needs %v ops/s, want %v", got, 50000*want)
	}
	if line := UserModelLine(a); !strings.Contains(line, "at 70% of its CPUs, so 9,143 ops/s at 80%") {
		t.Errorf("user model line: %q", line)
	}

	p.Candidates[0].Runs[2].ServerCPU = nil
	a, err = Evaluate(p)
	if err != nil {
		t.Fatal(err)
	}
	if a.OpsPerUser != 0 || a.Users == nil || !strings.Contains(a.Users.Problem, "cannot calibrate the demand by server CPU: the baseline's run seed-base-2 has no server CPU figures") {
		t.Fatalf("without the baseline's CPU: ops/s per user %v, model %+v; want no calibration and why", a.OpsPerUser, a.Users)
	}
	for _, s := range a.Stages {
		if s.NotCalibrated == "" || s.Choice != "" || s.Required != 0 {
			t.Errorf("stage %s: %+v, want no rate and no choice", s.Stage.Name, s)
		}
	}
	var b strings.Builder
	if err := Write(&b, a, false); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "stage 1 (50,000 users): no answer: cannot calibrate the demand by server CPU") {
		t.Errorf("the answer does not say it cannot calibrate:\n%s", b.String())
	}
}

// TestServerCPUFromNodeExporter reads a remote server's CPU from its
// host's CPU series when they came from the host's node exporter (which
// has no per-process figures), and calibrates on it, saying so; a local
// host CPU series without a process CPU does not stand in for it.
func TestServerCPUFromNodeExporter(t *testing.T) {
	pts := func(vs ...float64) []result.DataPoint {
		var out []result.DataPoint
		for _, v := range vs {
			out = append(out, result.DataPoint{Value: result.F(v)})
		}
		return out
	}
	doc := func(source string) *result.Doc {
		d := &result.Doc{RunID: "r1", Schedule: result.Schedule{AchievedRate: 4000}}
		d.Metrics.Measurements = []result.Series{
			{Name: result.CPUUser, Source: source, DataPoints: pts(50, 60)},
			{Name: result.CPUKernel, Source: source, DataPoints: pts(10, 10)},
		}
		return d
	}
	r := RunOf(doc("node_exporter"))
	if r.ServerCPU == nil || *r.ServerCPU != 65 || !r.CPUFromHost || r.OnHost {
		t.Fatalf("node exporter: server CPU %v, from host %v, on the tool's host %v; want 65%%, true, false", r.ServerCPU, r.CPUFromHost, r.OnHost)
	}
	if r := RunOf(doc("local")); r.ServerCPU != nil {
		t.Errorf("local host CPU without a process CPU: got server CPU %v, want missing", *r.ServerCPU)
	}

	p := seedPlan(t, nil)
	p.Demand.By = ByCPU
	for i := range p.Candidates[0].Runs {
		p.Candidates[0].Runs[i].CPUFromHost = true
	}
	a, err := Evaluate(p)
	if err != nil {
		t.Fatal(err)
	}
	if a.Users == nil || a.Users.Problem != "" || !strings.Contains(a.Users.Note, "host's node exporter") || a.OpsPerUser <= 0 {
		t.Errorf("calibration on a remote host's CPU: %+v, ops/s per user %v; want it calibrated, with a note", a.Users, a.OpsPerUser)
	}
}

// TestWhatLimitedEachCandidate says each candidate's runs' diagnoses once
// each, and that a candidate whose runs have none was not diagnosed.
func TestWhatLimitedEachCandidate(t *testing.T) {
	p := seedPlan(t, nil)
	for i := range p.Candidates[0].Runs {
		p.Candidates[0].Runs[i].Limited = "limited by: server CPU, 0.97 of 1 core (97%)"
	}
	p.Candidates[0].Runs[0].Limited = "limited by: disk throughput, 212 of 225 MB/s (94%)"
	a, err := Evaluate(p)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := Write(&b, a, false); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"base: limited by: disk throughput, 212 of 225 MB/s (94%) | limited by: server CPU, 0.97 of 1 core (97%)\n",
		"a: not diagnosed",
	} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the answer lacks %q:\n%s", want, b.String())
		}
	}
}
