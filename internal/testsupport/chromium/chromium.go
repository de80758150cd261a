// Package chromium opens a page in a real headless Chromium (Debian's
// package, which 'make setup' installs through
// scripts/install-chromium.sh) and checks it as a person would see it:
// no console errors, no network requests, every chart drawn, legend
// toggles and hover values working. A test that needs it fails, never
// skips, when Chromium cannot be started, unless it runs with -short.
package chromium

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/input"
	cdplog "github.com/chromedp/cdproto/log"
	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// Bin is Chromium's program: $MONGOBENCH_CHROMIUM_BIN, else chromium on
// PATH (Debian's name), else chromium-browser.
func Bin() (string, error) {
	if b := os.Getenv("MONGOBENCH_CHROMIUM_BIN"); b != "" {
		return b, nil
	}
	for _, name := range []string{"chromium", "chromium-browser"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", fmt.Errorf("no chromium: install Debian's chromium ('make setup' runs scripts/install-chromium.sh) or set MONGOBENCH_CHROMIUM_BIN")
}

// The first screen a page is judged by: what a reader sees on opening it.
const (
	ScreenWidth  = 1400
	ScreenHeight = 900
)

// Browser is a headless Chromium for one test.
type Browser struct {
	ctx context.Context
}

// Start starts a headless Chromium that lives until the test ends.
func Start(t testing.TB) *Browser {
	t.Helper()
	if testing.Short() {
		t.Skip("needs Chromium; -short skips it")
	}
	bin, err := Bin()
	if err != nil {
		t.Fatal(err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(bin),
		chromedp.NoSandbox, // tests may run as root
		chromedp.WindowSize(ScreenWidth, ScreenHeight),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("disable-background-networking", true),
	)
	actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(func() { cancel(); cancelAlloc() })
	if err := chromedp.Run(ctx); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	return &Browser{ctx: ctx}
}

// Tab opens a new tab for a test's own steps (clicks, navigation);
// cancel closes it.
func (b *Browser) Tab() (context.Context, context.CancelFunc) { return chromedp.NewContext(b.ctx) }

// Report is what a page showed.
type Report struct {
	Errors   []string // console errors, uncaught exceptions, failed loads
	Requests []string // URLs requested other than the page itself and data: URLs
	Charts   []ChartState
	// Screenshot is a PNG of the whole page after the checks;
	// FirstScreen is one of the first screen (ScreenWidth ×
	// ScreenHeight), as the page opens.
	Screenshot, FirstScreen []byte
	// HeadlineTop and FirstChartTop are where the page's headline
	// (#headline) and its first chart (.mb-chart) start, in pixels from
	// the top of the page; -1 when the page has none.
	HeadlineTop, FirstChartTop float64
}

// ChartState is one drawn chart: its canvas size and series names.
type ChartState struct {
	Title  string   `json:"title"`
	Width  int      `json:"width"`
	Height int      `json:"height"`
	Series []string `json:"series"`
}

// Open loads the HTML file at path in a new tab, waits for it to draw,
// and returns what it showed.
func (b *Browser) Open(t testing.TB, path string) *Report {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		t.Fatal(err)
	}
	return b.OpenURL(t, (&url.URL{Scheme: "file", Path: abs}).String())
}

// OpenURL loads the page at an address (a served page) as Open loads a
// file; requests to the page's own address other than the page itself
// count as requests.
func (b *Browser) OpenURL(t testing.TB, page string) *Report {
	t.Helper()
	path := page
	ctx, cancel := chromedp.NewContext(b.ctx)
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, time.Minute)
	defer cancelT()
	r := &Report{}
	var mu sync.Mutex
	chromedp.ListenTarget(ctx, func(ev any) {
		mu.Lock()
		defer mu.Unlock()
		switch e := ev.(type) {
		case *runtime.EventConsoleAPICalled:
			if e.Type == runtime.APITypeError || e.Type == runtime.APITypeAssert {
				var args []string
				for _, a := range e.Args {
					args = append(args, string(a.Value)+a.Description)
				}
				r.Errors = append(r.Errors, "console: "+strings.Join(args, " "))
			}
		case *runtime.EventExceptionThrown:
			msg := e.ExceptionDetails.Text
			if e.ExceptionDetails.Exception != nil {
				msg += " " + e.ExceptionDetails.Exception.Description
			}
			r.Errors = append(r.Errors, "exception: "+msg)
		case *cdplog.EventEntryAdded:
			if e.Entry.Level == cdplog.LevelError {
				r.Errors = append(r.Errors, "log: "+e.Entry.Text+" "+e.Entry.URL)
			}
		case *network.EventRequestWillBeSent:
			u := e.Request.URL
			if u != page && !strings.HasPrefix(u, "data:") {
				r.Requests = append(r.Requests, u)
			}
		}
	})
	var charts []ChartState
	err := chromedp.Run(ctx,
		network.Enable(), cdplog.Enable(), runtime.Enable(),
		chromedp.EmulateViewport(ScreenWidth, ScreenHeight),
		chromedp.Navigate(page),
		chromedp.WaitReady("body"),
		chromedp.Evaluate(`Array.from(document.querySelectorAll('.mb-chart')).map(el => {
			const c = el.querySelector('canvas');
			const u = (window.mongobenchCharts || []).find(u => u.root.parentNode === el);
			return {title: u ? u.root.querySelector('.u-title')?.textContent || '' : '',
				width: c ? c.width : 0, height: c ? c.height : 0,
				series: u ? u.series.slice(1).map(s => s.label) : []};
		})`, &charts),
	)
	if err != nil {
		t.Fatalf("open %s: %v", path, err)
	}
	r.Charts = charts
	var tops []float64
	if err := chromedp.Run(ctx,
		chromedp.Evaluate(`['#headline', '.mb-chart'].map(q => { const el = document.querySelector(q); return el ? el.getBoundingClientRect().top + window.scrollY : -1; })`, &tops),
		chromedp.CaptureScreenshot(&r.FirstScreen),
	); err != nil {
		t.Fatalf("first screen of %s: %v", path, err)
	}
	r.HeadlineTop, r.FirstChartTop = tops[0], tops[1]
	if err := chromedp.Run(ctx, chromedp.FullScreenshot(&r.Screenshot, 100)); err != nil {
		t.Fatalf("screenshot of %s: %v", path, err)
	}
	mu.Lock()
	defer mu.Unlock()
	return r
}

// Interact checks the first chart of the page at path as a person uses
// it: a click on the first series' legend entry hides that series (and a
// second click shows it again), and the mouse over the plot shows values
// in the legend. It returns what went wrong, if anything.
func (b *Browser) Interact(t testing.TB, path string) error {
	t.Helper()
	abs, err := filepath.Abs(path)
	if err != nil {
		return err
	}
	ctx, cancel := chromedp.NewContext(b.ctx)
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, time.Minute)
	defer cancelT()
	const chart = `[data-chart="0"]`
	const entry = chart + ` .u-legend tr.u-series:nth-child(2)`
	var shown, hidden, again bool
	err = chromedp.Run(ctx,
		chromedp.Navigate((&url.URL{Scheme: "file", Path: abs}).String()),
		chromedp.WaitReady(chart+" canvas"),
		chromedp.ScrollIntoView(chart),
		chromedp.Evaluate(`window.mongobenchCharts[0].series[1].show`, &shown),
		chromedp.Click(entry+` th`, chromedp.ByQuery),
		chromedp.Evaluate(`window.mongobenchCharts[0].series[1].show`, &hidden),
		chromedp.Click(entry+` th`, chromedp.ByQuery),
		chromedp.Evaluate(`window.mongobenchCharts[0].series[1].show`, &again),
	)
	if err != nil {
		return fmt.Errorf("legend click: %w", err)
	}
	if !shown || hidden || !again {
		return fmt.Errorf("legend click: series shown %v, after a click %v, after another %v; want true, false, true", shown, hidden, again)
	}
	// Hover over the middle of the plot area: the legend shows values.
	var box []float64
	if err := chromedp.Run(ctx, chromedp.Evaluate(`(() => { const r = document.querySelector('`+chart+` .u-over').getBoundingClientRect(); return [r.left, r.top, r.width, r.height]; })()`, &box)); err != nil {
		return fmt.Errorf("plot area: %w", err)
	}
	x, y := box[0]+box[2]/2, box[1]+box[3]/2
	var values []string
	err = chromedp.Run(ctx,
		chromedp.MouseEvent(input.MouseMoved, x-5, y),
		chromedp.MouseEvent(input.MouseMoved, x, y, chromedp.ButtonNone),
		chromedp.Poll(`Array.from(document.querySelectorAll('`+chart+` .u-legend tr.u-series td.u-value')).some(td => td.textContent.trim() !== '' && td.textContent.trim() !== '\u2014' && td.textContent.trim() !== '--')`, nil, chromedp.WithPollingTimeout(5*time.Second)),
		chromedp.Evaluate(`Array.from(document.querySelectorAll('`+chart+` .u-legend tr.u-series td.u-value')).map(td => td.textContent.trim())`, &values),
	)
	if err != nil {
		return fmt.Errorf("hover at (%.0f, %.0f) showed no values (legend %q): %w", x, y, values, err)
	}
	t.Logf("%s: hover shows %q", filepath.Base(path), values)
	return nil
}
