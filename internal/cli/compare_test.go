package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// TestCompare stores two tiny YCSB-B sweeps under two labels with their
// prices, then compares them: the profiles, the ratio table, the matched
// rates, the verdict, the Markdown report and the JSON.
func TestCompare(t *testing.T) {
	uri := testenv.URI(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "results.jsonl")
	db := testenv.DBName(t)
	dropAfter(t, connect(t, uri), db)
	for _, run := range []struct{ label, rates, cost string }{
		{"fast", "100,300", "3.20 USD/h"}, {"slow", "100,200", "2920 USD/month"},
	} {
		o := mb(t, "sweep", "--uri", uri, "--database", db, "--workload", "ycsb-b", "-p", "recordcount=500",
			"--rate", run.rates, "--duration", "1s", "--warmup", "1s", "--label", run.label, "--price", run.cost,
			"--results-file", file, "--report-dir", "")
		wantEnded(t, o) // a step that misses its target on a loaded machine leaves the sweep without a held rate
		wantVerdict(t, o, !strings.Contains(o.stdout, "No target rate held"))
	}
	reports := filepath.Join(dir, "reports")
	// Every step counts (--include-invalid): a busy host may judge one
	// invalid, and this test is about the comparison's figures.
	o := mb(t, "compare", "--label", "fast", "--label", "slow", "--workload", "ycsb-b", "--include-invalid", "--results-file", file, "--report-dir", reports)
	wantCode(t, o, cli.ExitOK)
	for _, want := range []string{"saturation ops/s", "fast vs slow", "READ ops/s at saturation", "$/hour", "3.20", "4.00",
		"ops per $", "who keeps up", "fast sustains at least", "over slow's", "at 20% lower cost: ", "× the throughput per dollar"} {
		if !strings.Contains(o.stdout, want) {
			t.Errorf("output lacks %q:\n%s", want, o)
		}
	}
	if strings.Contains(o.stdout, "INSERT") {
		t.Errorf("YCSB-B inserts nothing, yet INSERT shows:\n%s", o.stdout)
	}
	md, err := os.ReadFile(filepath.Join(reports, "compare-fast-vs-slow.md"))
	if err != nil || !strings.Contains(string(md), "## fast vs slow") || !strings.Contains(string(md), "| saturation ops/s |") {
		t.Errorf("report: got %v\n%s", err, md)
	}

	for _, chart := range []string{"sweep-throughput", "sweep-p99"} {
		rel := "charts/compare-fast-vs-slow-" + chart + ".svg"
		svg, err := os.ReadFile(filepath.Join(reports, rel))
		if err != nil || !strings.Contains(string(md), "]("+rel+")") || !strings.Contains(string(svg), ">fast<") || !strings.Contains(string(svg), ">slow<") {
			t.Errorf("chart %s: got %v, want a linked SVG with a line per label", rel, err)
		}
	}

	// Prices given on the command line win over the stored ones.
	o = mb(t, "compare", "--label", "fast", "--label", "slow", "--price", "fast=4 USD/h", "--include-invalid", "--results-file", file, "--json", "--report-dir", t.TempDir())
	wantCode(t, o, cli.ExitOK)
	var got struct {
		Profiles []struct {
			Label      string   `json:"label"`
			Cost       *float64 `json:"costPerHour"`
			Saturation float64  `json:"saturationOpsPerSec"`
			Steps      int      `json:"steps"`
		} `json:"profiles"`
		Pairs []struct {
			Matched []struct {
				Target float64 `json:"target"`
			} `json:"matched"`
		} `json:"pairs"`
	}
	if err := json.Unmarshal([]byte(o.stdout), &got); err != nil {
		t.Fatalf("--json: %v\n%s", err, o.stdout)
	}
	if len(got.Profiles) != 2 || *got.Profiles[0].Cost != 4 || *got.Profiles[1].Cost != 4 || got.Profiles[0].Steps != 2 {
		t.Errorf("profiles: got %+v, want fast and slow at $4/h, two steps each", got.Profiles)
	}
	if len(got.Pairs) != 1 || len(got.Pairs[0].Matched) != 1 || got.Pairs[0].Matched[0].Target != 100 {
		t.Errorf("pairs: got %+v, want one pair matched at 100/s", got.Pairs)
	}
}

func TestCompareBadInput(t *testing.T) {
	file := filepath.Join(t.TempDir(), "none.jsonl")
	for _, args := range [][]string{
		{"compare", "--label", "a"},
		{"compare", "--label", "a", "--label", "a"},
		{"compare", "--label", "a", "--label", "b", "--price", "c=3 USD/h"},
		{"compare", "--label", "a", "--label", "b", "--price", "a=cheap"},
		{"compare", "--label", "a", "--label", "b", "--price", "a=3 USD/h", "--price", "b=3 EUR/h"},
		{"compare", "--label", "a", "--label", "b", "--cost-per-hour", "a=cheap"},
		{"compare", "--label", "a", "--label", "b", "--p99", "fast"},
	} {
		o := mb(t, args...)
		wantCode(t, o, cli.ExitUsage)
		wantQuick(t, o, usageFast)
	}
	o := mb(t, "compare", "--label", "a", "--label", "b", "--price", "a=3 USD/h", "--price", "b=2920 EUR/month")
	if want := "mongobench: --price: prices in different currencies cannot be compared: a's 3 USD/h and b's 2920 EUR/month; give every price in one currency (--price LABEL=PRICE)\n"; o.stderr != want {
		t.Errorf("prices in two currencies: got %q, want %q", o.stderr, want)
	}
	o = mb(t, "compare", "--label", "a", "--label", "b", "--results-file", file)
	wantCode(t, o, cli.ExitFailure)
	if !strings.Contains(o.stderr, `no stored sweep has label "a"`) {
		t.Errorf("stderr: got %q, want it to say no sweep has label a", o.stderr)
	}
}

// TestCompareYCSBFPerOperation stores two tiny YCSB-F sweeps, recording
// the read and update inside each READ-MODIFY-WRITE as YCSB does
// (measurerwparts), and compares them: the report draws an
// achieved-vs-target and a p99-vs-target chart per operation type, a line
// per label; each sweep's own report draws its operation types a line
// each.
func TestCompareYCSBFPerOperation(t *testing.T) {
	uri := testenv.URI(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "results.jsonl")
	db := testenv.DBName(t)
	dropAfter(t, connect(t, uri), db)
	reports := filepath.Join(dir, "reports")
	for _, label := range []string{"big", "small"} {
		o := mb(t, "sweep", "--uri", uri, "--database", db, "--workload", "ycsb-f", "-p", "recordcount=500",
			"-p", "measurerwparts=true", "--rate", "100,200", "--duration", "1s", "--warmup", "1s", "--label", label,
			"--results-file", file, "--report-dir", filepath.Join(reports, label))
		wantCode(t, o, cli.ExitOK)
	}
	sweepReports, err := filepath.Glob(filepath.Join(reports, "big", "charts", "sweep-*-ops-*.svg"))
	if err != nil || len(sweepReports) != 2 {
		t.Errorf("the sweep's per-operation charts: got %v (%v), want ops-throughput and ops-p99", sweepReports, err)
	}
	for _, f := range sweepReports {
		svg, err := os.ReadFile(f)
		for _, op := range []string{">READ<", ">UPDATE<", ">READ-MODIFY-WRITE<"} {
			if err != nil || !strings.Contains(string(svg), op) {
				t.Errorf("%s: no line %s (%v)", filepath.Base(f), op, err)
			}
		}
	}

	o := mb(t, "compare", "--label", "big", "--label", "small", "--workload", "ycsb-f", "--results-file", file, "--report-dir", reports)
	wantCode(t, o, cli.ExitOK)
	md, err := os.ReadFile(filepath.Join(reports, "compare-big-vs-small.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, op := range []string{"READ", "UPDATE", "READ-MODIFY-WRITE"} {
		for _, kind := range []string{"throughput", "p99"} {
			rel := "charts/compare-big-vs-small-" + op + "-" + kind + ".svg"
			svg, err := os.ReadFile(filepath.Join(reports, rel))
			if err != nil || !strings.Contains(string(md), "]("+rel+")") || !strings.Contains(string(svg), ">big<") || !strings.Contains(string(svg), ">small<") {
				t.Errorf("chart %s: got %v, want a linked SVG with a line per label", rel, err)
			}
		}
	}
	if n := strings.Count(string(md), "](charts/"); n != 8 {
		t.Errorf("report links %d charts, want 8: the whole sweep's two and two per operation type (READ, UPDATE, READ-MODIFY-WRITE; YCSB F inserts and scans nothing)\n%s", n, md)
	}
}
