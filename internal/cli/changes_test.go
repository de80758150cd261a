package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/testsupport/chromium"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// saveNights stores nights from..to-1 of test into the real results
// store: throughput level(i) with 1% noise, server version version(i),
// the client host's canary as the machine measured it quiet, or loaded
// (two busy loops beside it, bench/RESULTS.md) from night loadedFrom on
// (never when it is 0).
func saveNights(t *testing.T, st *store.Mongo, test string, from, to int, level func(int) float64, version func(int) string, loadedFrom ...int) {
	t.Helper()
	r := rand.New(rand.NewPCG(uint64(from), 9))
	t0 := time.Date(2026, 1, 1, 2, 0, 0, 0, time.UTC)
	for i := from; i < to; i++ {
		rate := level(i) * (1 + 0.01*r.NormFloat64())
		d := &result.Doc{
			SchemaVersion: 1, RunID: fmt.Sprintf("%s-n%03d", test, i), TestName: test, Label: "nightly",
			Start: t0.Add(time.Duration(i) * 24 * time.Hour), End: t0.Add(time.Duration(i)*24*time.Hour + time.Minute),
			Variant: map[string]any{}, TestConfig: map[string]any{"workload": "kv"}, BenchConfig: map[string]any{},
			Schedule: result.Schedule{Mode: "closed", AchievedRate: rate, SuccessRate: rate},
			Target:   result.Target{ServerVersion: version(i)},
		}
		c := &result.Canary{CPUNs: result.F(2.61), MemNs: result.F(157), LoopbackP99Us: result.F(99.5), WakeP99Us: result.F(350)}
		if len(loadedFrom) > 0 && i >= loadedFrom[0] {
			c = &result.Canary{CPUNs: result.F(5.17), MemNs: result.F(434), LoopbackP99Us: result.F(975), WakeP99Us: result.F(1470)}
		}
		d.Canary = &result.Noise{Before: c, After: c}
		if err := st.Save(context.Background(), d); err != nil {
			t.Fatal(err)
		}
	}
}

func step(at int, before, after float64) func(int) float64 {
	return func(i int) float64 {
		if i >= at {
			return after
		}
		return before
	}
}

type listedChange struct {
	ID           string `json:"id"`
	Status       string `json:"status"`
	Metric       string `json:"metric"`
	Direction    string `json:"direction"`
	FirstChanged struct {
		RunID string `json:"runId"`
	} `json:"firstChanged"`
	ConfigChanges []string `json:"configChanges"`
	ClientHost    string   `json:"clientHost"`
}

func listChanges(t *testing.T, uri, test string, extra ...string) []listedChange {
	t.Helper()
	o := mb(t, append([]string{"changes", "--results", uri, "--test", test, "--json", "--report-dir", ""}, extra...)...)
	wantCode(t, o, cli.ExitOK)
	var cs []listedChange
	if err := json.Unmarshal([]byte(o.stdout), &cs); err != nil {
		t.Fatalf("changes --json: %v\n%s", err, o)
	}
	return cs
}

// TestChangesTriageWorkflow: against the real results store, a new
// regression fails --fail-on-new (exit 99) once, an acknowledged one
// passes, a later new regression fails again, and a change across a new
// server version is expected and fails nothing.
func TestChangesTriageWorkflow(t *testing.T) {
	uri := testenv.URI(t)
	c := connect(t, uri)
	st := store.NewMongo(c, store.DefaultDatabase, "test")
	test := "changes_" + strings.ToLower(testenv.DBName(t))
	flat := func(int) string { return "8.2.11" }
	reports := t.TempDir()

	saveNights(t, st, test, 0, 40, step(25, 1000, 880), flat)
	o := mb(t, "changes", "--results", uri, "--test", test, "--fail-on-new", "--report-dir", reports)
	wantCode(t, o, cli.ExitVerdict)
	if !strings.Contains(o.stdout, "throughput") || !strings.Contains(o.stdout, test+"-n024 → "+test+"-n025") || !strings.Contains(o.stdout, "regression") {
		t.Errorf("the regression and its suspect range are not listed:\n%s", o)
	}
	cs := listChanges(t, uri, test)
	if len(cs) != 1 || cs[0].Status != "new" || cs[0].FirstChanged.RunID != test+"-n025" || cs[0].ClientHost != "steady" {
		t.Fatalf("changes %+v, want one new at night 25, the client host steady across it", cs)
	}
	first := cs[0].ID
	if !strings.Contains(o.stderr, first) {
		t.Errorf("the failure does not name change %s:\n%s", first, o)
	}

	// Run again: the same change does not alert twice.
	wantCode(t, mb(t, "changes", "--results", uri, "--test", test, "--fail-on-new", "--report-dir", reports), cli.ExitOK)

	// Acknowledge it; it stays acknowledged as nights are appended.
	wantCode(t, mb(t, "changes", "ack", first, "--results", uri), cli.ExitUsage) // --why is required
	o = mb(t, "changes", "ack", first[:6], "--why", "the new checkpoint setting", "--results", uri)
	wantCode(t, o, cli.ExitOK)
	if !strings.Contains(o.stdout, "acknowledged") {
		t.Errorf("ack says:\n%s", o)
	}
	saveNights(t, st, test, 40, 80, step(60, 880, 760), flat, 60) // the client host loaded from night 60
	o = mb(t, "changes", "--results", uri, "--test", test, "--fail-on-new", "--report-dir", reports)
	wantCode(t, o, cli.ExitVerdict)
	cs = listChanges(t, uri, test)
	if len(cs) != 2 || cs[0].ID != first || cs[0].Status != "acknowledged" || cs[1].Status != "new" || cs[1].FirstChanged.RunID != test+"-n060" {
		t.Fatalf("after 80 nights: %+v, want the acknowledged one and a new one at night 60", cs)
	}
	if strings.Contains(o.stderr, first) || !strings.Contains(o.stderr, cs[1].ID) {
		t.Errorf("the second failure names the wrong change:\n%s", o)
	}
	moved := "the client host was noisier for the runs from " + test + "-n060"
	if !strings.HasPrefix(cs[1].ClientHost, moved) || !strings.Contains(o.stdout, cs[1].ID+": "+moved) {
		t.Errorf("the change at night 60: client host %q, output:\n%s\nwant it to say %q", cs[1].ClientHost, o, moved)
	}

	// The report draws the series with both change points marked.
	page := filepath.Join(reports, "changes.html")
	if _, err := os.Stat(page); err != nil {
		t.Fatalf("no HTML report: %v", err)
	}
	checkSeriesPage(t, page, "")

	// The results browser: a run's page links its series, whose page
	// draws every metric with the change points marked.
	base, _ := startServe(t, "--results", uri)
	run := test + "-n030"
	res, err := http.Get(base + "/run/" + run)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(res.Body)
	_ = res.Body.Close()
	if !strings.Contains(string(body), "/series?run="+run) {
		t.Errorf("the run page does not link its series")
	}
	checkSeriesPage(t, "/series?run="+run, base)
	res, err = http.Get(base + "/series?run=" + run)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(res.Body)
	_ = res.Body.Close()
	for _, want := range []string{"The client host&#39;s canary", test + "-n059", "5.17", moved} {
		if !strings.Contains(string(body), want) {
			t.Errorf("the series page does not show %q beside its runs", want)
		}
	}

	// Hide the second: it leaves the list, not the store.
	wantCode(t, mb(t, "changes", "hide", cs[1].ID, "--results", uri), cli.ExitOK)
	if cs := listChanges(t, uri, test); len(cs) != 1 {
		t.Errorf("hidden change still listed: %+v", cs)
	}
	if cs := listChanges(t, uri, test, "--all"); len(cs) != 2 || cs[1].Status != "hidden" {
		t.Errorf("--all: %+v", cs)
	}

	// A step across a new server version is expected: no failure.
	other := test + "_upgrade"
	saveNights(t, st, other, 0, 40, step(20, 1000, 1300), func(i int) string {
		if i >= 20 {
			return "8.3.0"
		}
		return "8.2.11"
	})
	wantCode(t, mb(t, "changes", "--results", uri, "--test", other, "--fail-on-new", "--report-dir", ""), cli.ExitOK)
	cs = listChanges(t, uri, other)
	if len(cs) != 1 || cs[0].Status != "expected" || len(cs[0].ConfigChanges) != 1 || cs[0].ConfigChanges[0] != "server version 8.2.11 → 8.3.0" {
		t.Errorf("upgrade: %+v, want one expected change naming the server version", cs)
	}
}

func TestChangesRefusesAResultsFile(t *testing.T) {
	o := mb(t, "changes", "--results-file", filepath.Join(t.TempDir(), "r.jsonl"))
	wantCode(t, o, cli.ExitUsage)
	if !strings.Contains(o.stderr, "MongoDB results store") {
		t.Errorf("refusal does not say why:\n%s", o)
	}
	wantCode(t, mb(t, "changes", "--results-file", "x.jsonl", "--metric", "p99"), cli.ExitUsage)
}

// checkSeriesPage opens a page of series charts (a file, or a served
// address when base is set) in Chromium: no error, nothing fetched, and
// every chart drawn with the series and its change-point marks.
func checkSeriesPage(t *testing.T, page, base string) {
	t.Helper()
	if testing.Short() {
		return
	}
	browser := chromium.Start(t)
	var r *chromium.Report
	if base != "" {
		r = browser.OpenURL(t, base+page)
	} else {
		r = browser.Open(t, page)
	}
	if len(r.Errors) > 0 || len(r.Requests) > 0 {
		t.Errorf("%s: errors %q, requests %q", page, r.Errors, r.Requests)
	}
	if len(r.Charts) == 0 {
		t.Fatalf("%s: no chart drawn", page)
	}
	for _, c := range r.Charts {
		if c.Width < 300 || c.Height < 200 || len(c.Series) != 2 || c.Series[1] != "first changed run" {
			t.Errorf("%s: chart %+v, want a drawn series and its change points", page, c)
		}
	}
	if screenshotDir != "" {
		_ = os.WriteFile(filepath.Join(screenshotDir, "changes.png"), r.FirstScreen, 0o644)
	}
}
