package cli_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/testsupport/chromium"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// TestCompareRunsAA measures two labels of five short runs each, the
// same configuration, interleaved, against the real server, and checks
// that compare --runs says first that no metric is worse, calls every
// metric likely noise, writes its report, and that
// --fail-on-regression passes.
func TestCompareRunsAA(t *testing.T) {
	uri := testenv.URI(t)
	c := connect(t, uri)
	db := testenv.DBName(t)
	dropAfter(t, c, db)
	results := filepath.Join(t.TempDir(), "results.jsonl")
	for i := range 5 { // a b, b a, a b, …: a drift of the machine falls on both alike
		order := []string{"a", "b"}
		if i%2 == 1 {
			order = []string{"b", "a"}
		}
		for _, label := range order {
			o := mb(t, "run", "--uri", uri, "--database", db, "--workload", "kv", "--rate", "300/s", "--duration", "1s", "--warmup", "200ms",
				"-p", "records=200", "--results-file", results, "--label", label, "--no-report")
			if o.code != cli.ExitOK {
				t.Fatalf("run %d of %s: %s", i, label, o)
			}
		}
	}
	reports := t.TempDir()
	// Every run counts (--include-invalid): a busy host may judge one
	// invalid, and this test is about the statistics, not the gates.
	// At α 0.05 an A/A comparison has a false verdict in up to one trial
	// of twenty by design, and more often here: a run's p99 and p99.9 of
	// about 150 updates are its top two or three latencies, so they move
	// together, and two metrics at the exact test's smallest p (2/252,
	// five runs a side all above the other five) pass Benjamini–Hochberg
	// over ten (adjusted 0.040). At α 0.01 eight of the ten must, which
	// noise does not do; a broken test or correction still would.
	o := mb(t, "compare", "--runs", "--label", "a", "--label", "b", "--results-file", results, "--fail-on-regression", "--include-invalid", "--alpha", "0.01", "--report-dir", reports)
	wantCode(t, o, cli.ExitOK)
	t.Logf("A/A:\n%s", o.stdout)
	if !strings.HasPrefix(o.stdout, "No metric is significantly worse than a's.\n") {
		t.Errorf("A/A: the verdict does not come first:\n%s", o.stdout)
	}
	// The table: from its header to the line on how its figures were found.
	lines := strings.Split(strings.TrimSpace(o.stdout), "\n")
	head := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "metric ") })
	legend := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "median [interval] (runs)") })
	if head < 0 || legend < head {
		t.Fatalf("A/A: no table:\n%s", o.stdout)
	}
	rows := 0
	for _, l := range lines[head+1 : legend] {
		if l == "" {
			continue
		}
		f := strings.Fields(l)
		rows++
		if f[len(f)-1] != "~" {
			t.Errorf("A/A: %q is not judged likely noise", l)
		}
	}
	// The same view is the report, Markdown and HTML.
	for _, name := range []string{"compare-runs-a-vs-b.md", "compare-runs-a-vs-b.html"} {
		if b, err := os.ReadFile(filepath.Join(reports, name)); err != nil || !strings.Contains(string(b), "b (5 runs) against a (5 runs)") {
			t.Errorf("report %s: %v\n%.400s", name, err, b)
		}
	}
	if rows < 4 {
		t.Errorf("A/A: %d metrics compared, want throughput, errors and each operation type's percentiles:\n%s", rows, o.stdout)
	}
	// A label with no single run is refused, by name.
	o = mb(t, "compare", "--runs", "--label", "a", "--label", "nosuch", "--results-file", results)
	wantCode(t, o, cli.ExitUsage)
}

// TestCompareRunsFindsARealChange measures three labels of seven short
// runs each (five a side cannot reach an adjusted p below 0.05 when ties
// in the runs' percentiles take the exact test away and twelve metrics
// share the correction), interleaved, through one loopback proxy to the real server:
// "base" and "same" alike (A/A), "slow" with 2 ms added each way by the
// proxy (a slower network, the only difference). compare --runs calls
// slow's read latency worse with an adjusted p-value below 0.05, every
// metric of same likely noise, and exits 99 with --fail-on-regression;
// the results browser's page of the comparison, reached through its
// form in headless Chromium, says the same.
func TestCompareRunsFindsARealChange(t *testing.T) {
	browser := chromium.Start(t)
	uri := testenv.URI(t)
	c := connect(t, uri)
	db := testenv.DBName(t)
	dropAfter(t, c, db)
	proxy := startProxy(t, hostOf(t, uri))
	via := proxied(t, uri, proxy.Addr())
	results := filepath.Join(t.TempDir(), "results.jsonl")
	labels := []string{"base", "same", "slow"}
	for i := range 7 { // the order turns each round: a drift of the machine falls on all alike
		for k := range labels {
			label := labels[(i+k)%len(labels)]
			if label == "slow" {
				proxy.Latency(2 * time.Millisecond)
			}
			o := mb(t, "run", "--uri", via, "--database", db, "--workload", "kv", "-p", "records=200", "-p", "readPercent=100",
				"--rate", "200/s", "--threads", "8", "--duration", "1s", "--warmup", "200ms", "--results-file", results, "--label", label, "--no-report")
			proxy.Pass()
			if o.code != cli.ExitOK {
				t.Fatalf("run %d of %s: %s", i, label, o)
			}
		}
	}
	// Every run counts (--include-invalid), as in the A/A test.
	o := mb(t, "compare", "--runs", "--label", "base", "--label", "same", "--label", "slow", "--results-file", results, "--fail-on-regression", "--include-invalid", "--report-dir", "")
	t.Logf("base, same, slow:\n%s", o.stdout)
	wantCode(t, o, cli.ExitVerdict)
	if !strings.HasPrefix(o.stdout, "Significantly worse: slow p50 read (+") {
		t.Errorf("the verdict does not name slow's p50 read first:\n%s", o.stdout)
	}
	// Each section's table: from its title to the line on how its
	// figures were found (the notes after it are not metrics).
	section := ""
	for _, l := range strings.Split(o.stdout, "\n") {
		switch {
		case strings.Contains(l, "against base (7 runs)"):
			section = strings.Fields(l)[0]
		case strings.HasPrefix(l, "median [interval]"):
			section = ""
		case strings.HasPrefix(l, "metric ") || l == "":
		case section != "":
			f := strings.Fields(l)
			verdict := f[len(f)-1]
			if section == "same" && verdict != "~" {
				t.Errorf("A/A: %q is not judged likely noise", l)
			}
			if section == "slow" && strings.HasPrefix(l, "p50 read ") {
				p, err := strconv.ParseFloat(f[len(f)-4], 64) // the adjusted p, before the ratio interval
				if verdict != "worse" || err != nil || p >= 0.05 {
					t.Errorf("slow's p50 read: %q, want worse with an adjusted p below 0.05", l)
				}
			}
		}
	}

	// --json prints the same comparison as JSON, never the table, and
	// keeps the verdict's exit code.
	o = mb(t, "compare", "--runs", "--label", "base", "--label", "slow", "--results-file", results, "--fail-on-regression", "--include-invalid", "--report-dir", "", "--json")
	wantCode(t, o, cli.ExitVerdict)
	var got struct {
		Base  string
		Pairs []struct {
			Label   string
			Metrics []struct{ Metric, Verdict string }
		}
	}
	if err := json.Unmarshal([]byte(o.stdout), &got); err != nil || got.Base != "base" || len(got.Pairs) != 1 || got.Pairs[0].Label != "slow" {
		t.Fatalf("compare --runs --json: %v\n%s", err, o.stdout)
	}
	worse := false
	for _, m := range got.Pairs[0].Metrics {
		worse = worse || m.Metric == "p50 read" && m.Verdict == "worse"
	}
	if !worse {
		t.Errorf("compare --runs --json: slow's p50 read is not worse:\n%s", o.stdout)
	}

	// The same comparison in the results browser, through its form.
	base, _ := startServe(t, "--results-file", results)
	r := browser.OpenURL(t, base+"/compare-runs")
	if len(r.Errors) > 0 || len(r.Requests) > 0 {
		t.Errorf("the form: errors %q, requests %q", r.Errors, r.Requests)
	}
	ctx, cancel := browser.Tab()
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, time.Minute)
	defer cancelT()
	var page, at string
	if err := chromedp.Run(ctx, chromedp.Navigate(base+"/compare-runs"), chromedp.WaitReady(`#labels`),
		chromedp.SetValue(`#base`, "base", chromedp.ByID),
		chromedp.Click(`#labels input[value="slow"]`, chromedp.ByQuery),
		chromedp.Click(`#compare-labels-submit`, chromedp.ByID),
		chromedp.WaitReady(`#headline`, chromedp.ByID), chromedp.Location(&at), chromedp.Text(`body`, &page, chromedp.ByQuery)); err != nil {
		t.Fatalf("form → comparison: %v", err)
	}
	if u, err := url.Parse(at); err != nil || !slices.Equal(u.Query()["label"], []string{"base", "slow"}) {
		t.Errorf("the form led to %s, want base then slow", at)
	}
	for _, want := range []string{"Significantly worse: slow p50 read", "slow (7 runs) against base (7 runs)", "Benjamini–Hochberg"} {
		if !strings.Contains(page, want) {
			t.Errorf("the browser's comparison lacks %q:\n%.2000s", want, page)
		}
	}
	// The form takes compare --runs' settings too, and the page says
	// them: alpha, a minimum effect, the runs judged invalid counted.
	if err := chromedp.Run(ctx, chromedp.Navigate(base+"/compare-runs"), chromedp.WaitReady(`#labels`),
		chromedp.SetValue(`#base`, "base", chromedp.ByID),
		chromedp.Click(`#labels input[value="slow"]`, chromedp.ByQuery),
		chromedp.SetValue(`#alpha`, "0.1", chromedp.ByID),
		chromedp.SetValue(`#min-effect`, "p50=5%", chromedp.ByID),
		chromedp.SetValue(`#correction`, "holm", chromedp.ByID),
		chromedp.Click(`#include-invalid`, chromedp.ByID),
		chromedp.Click(`#compare-labels-submit`, chromedp.ByID),
		chromedp.WaitReady(`#headline`, chromedp.ByID), chromedp.Location(&at), chromedp.Text(`body`, &page, chromedp.ByQuery)); err != nil {
		t.Fatalf("form with settings → comparison: %v", err)
	}
	if u, err := url.Parse(at); err != nil || u.Query().Get("alpha") != "0.1" || u.Query().Get("min-effect") != "p50=5%" ||
		u.Query().Get("correction") != "holm" || u.Query().Get("include-invalid") != "1" {
		t.Errorf("the form with settings led to %s", at)
	}
	for _, want := range []string{"--alpha 0.1, --correction holm, --min-effect p50=5% (the others their defaults); runs judged invalid counted", "Holm–Bonferroni", "Significantly worse: slow p50 read"} {
		if !strings.Contains(page, want) {
			t.Errorf("the browser's comparison with settings lacks %q:\n%.2000s", want, page)
		}
	}
	if code, body := get(t, base+"/compare-runs?label=base&label=slow&alpha=7"); code != http.StatusBadRequest || !strings.Contains(body, "alpha 7 is not valid") {
		t.Errorf("alpha 7: %d %q, want 400 naming alpha", code, body)
	}
	r = browser.OpenURL(t, base+"/compare-runs?label=base&label=same")
	if len(r.Errors) > 0 || len(r.Requests) > 0 {
		t.Errorf("the A/A page: errors %q, requests %q", r.Errors, r.Requests)
	}
	if code, body := get(t, base+"/compare-runs?label=base&label=nosuch"); code != http.StatusNotFound || !strings.Contains(body, "--label nosuch") {
		t.Errorf("a label without runs: %d %q", code, body)
	}
}
