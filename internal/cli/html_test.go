package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/testsupport/chromium"
	"github.com/mongobench/mongobench/internal/testsupport/plantest"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// TestHTMLReportsInBrowser makes a run, two labelled sweeps (one with an
// SLA), a comparison, an SLA study, a capacity plan and the Performance
// Tables, and opens each HTML report in headless Chromium: no console
// error, no request beyond the file itself, every chart drawn on a canvas
// of non-zero size with the expected series, a legend click that hides
// and shows a series, and values on hover. The run, sweep, compare, SLA
// and plan pages put the answer first: the run's headline and each
// page's first chart start within the first screen (chromium.ScreenWidth × ScreenHeight). A
// screenshot of each page's first screen is written to
// $MONGOBENCH_SCREENSHOT_DIR when set (else the test's temporary
// directory); docs/screenshots holds the run's, the sweep's and the
// SLA's.
func TestHTMLReportsInBrowser(t *testing.T) {
	browser := chromium.Start(t)
	uri := testenv.URI(t)
	dir := t.TempDir()
	file := filepath.Join(dir, "results.jsonl")
	reports := filepath.Join(dir, "reports")
	db := testenv.DBName(t)
	dropAfter(t, connect(t, uri), db)

	wantCode(t, mb(t, "run", "--uri", uri, "--database", db, "--workload", "kv", "-p", "records=500", "--rate", "300",
		"--duration", "3s", "--warmup", "1s", "--results-file", file, "--report-dir", reports), cli.ExitOK)
	for _, s := range []struct{ label, rates string }{{"fast", "100,300"}, {"slow", "100,200"}} {
		wantCode(t, mb(t, "sweep", "--uri", uri, "--database", db, "--workload", "kv", "-p", "records=500",
			"--rate", s.rates, "--duration", "1s", "--warmup", "1s", "--label", s.label, "--p99", "500ms",
			"--results-file", file, "--report-dir", reports), cli.ExitOK)
	}
	wantCode(t, mb(t, "compare", "--label", "fast", "--label", "slow", "--workload", "kv", "--results-file", file,
		"--report-dir", reports), cli.ExitOK)
	wantCode(t, mb(t, "sla", "--uri", uri, "--database", db, "--rate", "50", "--p99", "500ms", "--repeat", "1",
		"--duration", "1s", "--warmup", "1s", "-p", "accounts=200", "--results-file", file, "--report-dir", reports), cli.ExitOK)
	seed := filepath.Join(dir, "seed.jsonl")
	docs, err := plantest.Docs("seed")
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		if err := store.NewFile(seed).Save(context.Background(), d); err != nil {
			t.Fatal(err)
		}
	}
	wantCode(t, mb(t, "plan", seedPlanFile(t, "1625"), "--from-results", "--results-file", seed, "--report-dir", reports), cli.ExitOK)
	tables := filepath.Join(reports, "performance-tables.md")
	wantCode(t, mb(t, "report", "-o", tables, "--results", uri), cli.ExitOK)

	pages := map[string]string{} // kind → file
	entries, err := os.ReadDir(reports)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		name := e.Name()
		if !strings.HasSuffix(name, ".html") {
			continue
		}
		if _, err := os.Stat(filepath.Join(reports, strings.TrimSuffix(name, ".html")+".md")); err != nil {
			t.Errorf("%s has no Markdown report beside it: %v", name, err)
		}
		kind := "run"
		for _, k := range []string{"sweep-", "compare-", "sla-", "plan-", "performance-tables"} {
			if strings.HasPrefix(name, k) {
				kind = strings.TrimSuffix(k, "-")
			}
		}
		if _, ok := pages[kind]; !ok || kind == "sweep" && strings.Contains(readFile(t, filepath.Join(reports, name)), "Label: fast") {
			pages[kind] = filepath.Join(reports, name)
		}
	}
	// Each page's charts, the series some of them must have, and whether
	// its answer must be on the first screen (headline: the run's figures
	// too).
	want := map[string]struct {
		charts          int
		series          [][]string // series names some chart has, each
		first, headline bool
	}{
		"run":                {charts: 4, series: [][]string{{"read", "update", "total", "target (total)"}, {"read latency", "read service"}}, first: true, headline: true},
		"sweep":              {charts: 2, series: [][]string{{"ideal (achieved = target)", "fast"}, {"fast", "SLA (p99)"}}, first: true, headline: true},
		"compare":            {charts: 2, series: [][]string{{"fast", "slow"}}, first: true, headline: true},
		"sla":                {charts: 1, series: [][]string{{"per-op p99 median", "SLA (p99)"}}, first: true, headline: true},
		"plan":               {charts: 2, series: [][]string{{"base", "a", "b", "c", "d"}}, first: true, headline: true},
		"performance-tables": {charts: 0},
	}
	shots := screenshotDir
	if shots == "" {
		shots = t.TempDir()
	}
	for kind, w := range want {
		path, ok := pages[kind]
		if !ok {
			t.Errorf("no HTML report of a %s among %v", kind, entries)
			continue
		}
		r := browser.Open(t, path)
		if len(r.Errors) > 0 {
			t.Errorf("%s: errors in the browser: %q", kind, r.Errors)
		}
		if len(r.Requests) > 0 {
			t.Errorf("%s: requests beyond the file itself: %q", kind, r.Requests)
		}
		if len(r.Charts) < w.charts {
			t.Errorf("%s: %d charts, want at least %d", kind, len(r.Charts), w.charts)
		}
		for _, c := range r.Charts {
			if c.Width <= 0 || c.Height <= 0 || len(c.Series) == 0 {
				t.Errorf("%s: chart %q drew a %d×%d canvas with series %q", kind, c.Title, c.Width, c.Height, c.Series)
			}
		}
		for _, names := range w.series {
			if !slices.ContainsFunc(r.Charts, func(c chromium.ChartState) bool {
				return !slices.ContainsFunc(names, func(n string) bool { return !slices.Contains(c.Series, n) })
			}) {
				t.Errorf("%s: no chart has the series %q; charts: %+v", kind, names, r.Charts)
			}
		}
		if w.headline && (r.HeadlineTop < 0 || r.HeadlineTop >= chromium.ScreenHeight) {
			t.Errorf("%s: the headline starts at %.0f px, want it within the first screen (%d px)", kind, r.HeadlineTop, chromium.ScreenHeight)
		}
		if w.first && (r.FirstChartTop < 0 || r.FirstChartTop >= chromium.ScreenHeight) {
			t.Errorf("%s: the first chart starts at %.0f px, want it within the first screen (%d px)", kind, r.FirstChartTop, chromium.ScreenHeight)
		}
		shot := filepath.Join(shots, kind+".png")
		if err := os.WriteFile(shot, r.FirstScreen, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d charts, screenshot %s", kind, len(r.Charts), shot)
		if w.charts > 0 {
			if err := browser.Interact(t, path); err != nil {
				t.Errorf("%s: %v", kind, err)
			}
		}
	}
}

// screenshotDir is where TestHTMLReportsInBrowser writes its screenshots:
// $MONGOBENCH_SCREENSHOT_DIR as the tests started (TestMain unsets it).
var screenshotDir string

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
