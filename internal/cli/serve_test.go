package cli_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/testsupport/chromium"
	"github.com/mongobench/mongobench/internal/testsupport/prometheus"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// syncBuffer is a buffer a running command writes while the test reads.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// background runs a command line until the test stops it (the returned
// func cancels it and returns its exit code) and returns its stderr.
func background(t *testing.T, args ...string) (*syncBuffer, func() int) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var out, errOut syncBuffer
	done := make(chan int, 1)
	go func() { done <- cli.Main(ctx, args, &out, &errOut) }()
	var once sync.Once
	var code int
	stop := func() int {
		once.Do(func() {
			cancel()
			select {
			case code = <-done:
			case <-time.After(time.Minute):
				t.Errorf("%v did not stop within a minute of its cancel", args)
			}
		})
		return code
	}
	t.Cleanup(func() { stop() })
	return &errOut, stop
}

// startServe starts 'mongobench serve' on a free loopback port, waits
// until it answers, and returns its base URL.
func startServe(t *testing.T, args ...string) (string, func() int) {
	t.Helper()
	addr := prometheus.FreeAddr(t)
	stderr, stop := background(t, append([]string{"serve", "--listen", addr}, args...)...)
	base := "http://" + addr
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.Get(base + "/sweeps")
		if err == nil {
			_ = resp.Body.Close()
			return base, stop
		}
		if time.Now().After(deadline) {
			t.Fatalf("serve did not answer on %s within 30s: %v\n%s", addr, err, stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// get fetches a page and returns its status and body.
func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return resp.StatusCode, string(b)
}

// wantPage fetches a page that must answer 200 and hold every want.
func wantPage(t *testing.T, url string, want ...string) string {
	t.Helper()
	code, body := get(t, url)
	if code != http.StatusOK {
		t.Fatalf("GET %s: %d, want 200\n%s", url, code, body)
	}
	for _, w := range want {
		if !strings.Contains(body, w) {
			t.Errorf("GET %s: no %q in the page", url, w)
		}
	}
	return body
}

// storedRun makes one short real run into the results file and returns its id.
func storedRun(t *testing.T, uri, db, results string, args ...string) string {
	t.Helper()
	o := mb(t, append([]string{"run", "--uri", uri, "--database", db, "--rate", "100", "--duration", "1s",
		"--results-file", results, "--no-report", "--json"}, args...)...)
	wantCode(t, o, cli.ExitOK)
	var d struct {
		RunID string `json:"runId"`
	}
	if err := json.Unmarshal([]byte(o.stdout), &d); err != nil || d.RunID == "" {
		t.Fatalf("no run id in the run's JSON: %v\n%s", err, o.stdout)
	}
	return d.RunID
}

type fileState struct {
	sum  [32]byte
	size int64
	mod  time.Time
}

func stateOf(t *testing.T, path string) fileState {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	return fileState{sum: sha256.Sum256(b), size: fi.Size(), mod: fi.ModTime()}
}

// TestServeBrowsesAResultsFile stores real runs and a sweep in a results
// file, serves it, fetches every kind of page over HTTP, and checks that
// the file is unchanged after browsing.
func TestServeBrowsesAResultsFile(t *testing.T) {
	uri := testenv.URI(t)
	c := connect(t, uri)
	db := testenv.DBName(t)
	dropAfter(t, c, db)
	results := filepath.Join(t.TempDir(), "results.jsonl")
	a := storedRun(t, uri, db, results, "--label", "alpha", "--tags", "nightly,x", "-p", "records=200")
	b := storedRun(t, uri, db, results, "--label", "beta", "--tags", "nightly", "-p", "records=200")
	cc := storedRun(t, uri, db, results, "--label", "gamma", "--workload", "insert")
	o := mb(t, "sweep", "--workload", "kv", "--uri", uri, "--database", db, "--rate", "50,100", "--duration", "1s",
		"-p", "records=200", "--results-file", results, "--label", "sw", "--report-dir", t.TempDir())
	wantCode(t, o, cli.ExitOK)
	before := stateOf(t, results)

	base, stop := startServe(t, "--results-file", results)
	list := wantPage(t, base+"/", a, b, cc, "5 of 5 runs", "Compare selected")
	if !strings.Contains(list, `<option>alpha</option>`) || !strings.Contains(list, `<option>nightly</option>`) {
		t.Errorf("the list's filters offer no label alpha or tag nightly")
	}
	filtered := wantPage(t, base+"/?label=beta", b, "1 of 5 runs")
	if strings.Contains(filtered, a) {
		t.Errorf("?label=beta lists run %s of label alpha", a)
	}
	wantPage(t, base+"/?tag=nightly", a, b, "2 of 5 runs")
	wantPage(t, base+"/?workload=insert", cc, "1 of 5 runs")
	wantPage(t, base+"/?test=kv&from=2000-01-01&to=2000-01-02", "0 of 5 runs")
	if code, _ := get(t, base+"/?from=yesterday"); code != http.StatusBadRequest {
		t.Errorf("?from=yesterday: %d, want 400", code)
	}

	wantPage(t, base+"/run/"+a, a, "alpha", "<nav", "uPlot", "read", "update")
	cmp := wantPage(t, fmt.Sprintf("%s/compare?run=%s&run=%s", base, a, b), a, b, "merged (exact)", "latency by percentile", "<svg")
	if n := strings.Count(cmp, `class="merged"`); n != 2 {
		t.Errorf("compare of two kv runs: %d merged rows, want one per operation type (read, update)", n)
	}
	// An operation type one run lacks has no merge, and says why.
	wantPage(t, fmt.Sprintf("%s/compare?run=%s&run=%s", base, a, cc), "has no such operation")

	sweeps := wantPage(t, base+"/sweeps", `label &#34;sw&#34;, 2 steps`)
	m := regexp.MustCompile(`href="/sweep/([^"]+)"`).FindStringSubmatch(sweeps)
	if m == nil {
		t.Fatalf("no sweep link in /sweeps")
	}
	// the sweep's own page, as its report: judged by the verdicts stored with its steps
	wantPage(t, base+"/sweep/"+m[1], "<nav", "target/s", "holds", "A step holds when achieved ≥ 95% of target, errors ≤ 1%", `id="headline"`, "uPlot")
	wantPage(t, base+"/sla", "No SLA runs stored", "<nav", `id="headline"`)
	wantPage(t, base+"/plans", "No plans stored")
	if code, _ := get(t, base+"/run/20000101T000000Z-000000"); code != http.StatusNotFound {
		t.Errorf("an unknown run: %d, want 404", code)
	}
	if code, _ := get(t, base+"/compare?run="+a); code != http.StatusBadRequest {
		t.Errorf("compare of one run: %d, want 400", code)
	}

	if code := stop(); code != cli.ExitOK {
		t.Errorf("serve stopped with exit %d, want 0", code)
	}
	if after := stateOf(t, results); after != before {
		t.Errorf("browsing changed the results file: %+v, want %+v", after, before)
	}
}

// TestServeReadsAResultsCollectionOnly browses a MongoDB results store
// and checks that its collections hold the same documents afterwards.
func TestServeReadsAResultsCollectionOnly(t *testing.T) {
	uri := testenv.URI(t)
	c := connect(t, uri)
	db := testenv.DBName(t)
	dropAfter(t, c, db)
	id := storedRun(t, uri, db, "", "--results-file", "", "--results", uri, "--label", "served", "-p", "records=200")
	snapshot := func() string {
		var all bytes.Buffer
		for _, coll := range []string{"results", "history"} {
			cur, err := c.Database("mongobench").Collection(coll).Find(context.Background(), bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
			if err != nil {
				t.Fatal(err)
			}
			var docs []bson.Raw
			if err := cur.All(context.Background(), &docs); err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&all, "%s %d\n", coll, len(docs))
			for _, d := range docs {
				all.Write(d)
			}
		}
		return fmt.Sprintf("%x", sha256.Sum256(all.Bytes()))
	}
	before := snapshot()
	base, stop := startServe(t, "--results", uri)
	wantPage(t, base+"/?label=served", id)
	wantPage(t, base+"/run/"+id, id, "uPlot")
	wantPage(t, base+"/sweeps")
	wantPage(t, base+"/plans")
	if code := stop(); code != cli.ExitOK {
		t.Errorf("serve stopped with exit %d, want 0", code)
	}
	if after := snapshot(); after != before {
		t.Errorf("browsing changed the results collections")
	}
}

// TestServeShowsARunAsItGoes starts a long run with --metrics-addr, serves
// the results file with --live on that address, sees the run's page
// update from its feed, stops the run, and sees its stored page.
func TestServeShowsARunAsItGoes(t *testing.T) {
	uri := testenv.URI(t)
	c := connect(t, uri)
	db := testenv.DBName(t)
	dropAfter(t, c, db)
	results := filepath.Join(t.TempDir(), "results.jsonl")
	addr := prometheus.FreeAddr(t)
	_, stopRun := background(t, "run", "--uri", uri, "--database", db, "--rate", "100", "--duration", "10m", "-p", "records=200",
		"--results-file", results, "--no-report", "--metrics-addr", addr, "--label", "going")
	base, _ := startServe(t, "--results-file", results, "--live", addr)

	// The run's id and its first intervals, from the list's "Running now".
	var id string
	rowsSeen := 0
	deadline := time.Now().Add(90 * time.Second)
	for id == "" || rowsSeen < 2 {
		if time.Now().After(deadline) {
			t.Fatalf("the run did not show on the list with two intervals within 90s")
		}
		time.Sleep(200 * time.Millisecond)
		_, body := get(t, base+"/")
		if m := regexp.MustCompile(`href="/run/([^"]+)">[^<]+</a> <span class="running">running</span>`).FindStringSubmatch(body); m != nil {
			id = m[1]
			_, page := get(t, base+"/run/"+id+"/live")
			rowsSeen = strings.Count(page, "<tr><td class=\"n\">")
		}
	}
	wantPage(t, base+"/run/"+id, "(running)", `<div id="live">`, "going", "fetch(")
	_, first := get(t, base+"/run/"+id+"/live")
	// The fragment grows: a later fetch has more intervals.
	deadline = time.Now().Add(60 * time.Second)
	for {
		_, later := get(t, base+"/run/"+id+"/live")
		if strings.Count(later, "<tr><td class=\"n\">") > strings.Count(first, "<tr><td class=\"n\">") {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the live page gained no interval within 60s")
		}
		time.Sleep(200 * time.Millisecond)
	}

	if code := stopRun(); code != cli.ExitInterrupted {
		t.Fatalf("the stopped run: exit %d, want %d (partial, stored)", code, cli.ExitInterrupted)
	}
	if code, _ := get(t, base+"/run/"+id+"/live"); code != http.StatusResetContent {
		t.Errorf("the live part of a stored run: %d, want 205 (reload as the stored run)", code)
	}
	wantPage(t, base+"/run/"+id, id, "uPlot")
}

// Bad addresses are usage errors naming the flag and the value, found
// before anything connects.
func TestServeAndMetricsAddressErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"serve", "--results-file", "x.jsonl", "--listen", "8080"}, `--listen: "8080" is not valid: want HOST:PORT`},
		{[]string{"serve", "--results-file", "x.jsonl", "--live", "nowhere"}, `--live: "nowhere" is not valid: want the HOST:PORT`},
		{[]string{"run", "--uri", unreachable, "--metrics-addr", "9464"}, `--metrics-addr: "9464" is not valid: want HOST:PORT`},
		{[]string{"sweep", "--workload", "kv", "--rate", "100", "--uri", unreachable, "--metrics-addr", "x"}, `--metrics-addr: "x" is not valid`},
	} {
		o := mb(t, c.args...)
		wantCode(t, o, cli.ExitUsage)
		if !strings.Contains(o.stderr, c.want) {
			t.Errorf("%v: stderr %q, want %q", c.args, o.stderr, c.want)
		}
	}
}

// Serving beyond this machine is said, once, before serving.
func TestServeWarnsOffLoopback(t *testing.T) {
	results := filepath.Join(t.TempDir(), "results.jsonl")
	stderr, stop := background(t, "serve", "--results-file", results, "--listen", "0.0.0.0:0")
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(stderr.String(), "serving the results") {
		if time.Now().After(deadline) {
			t.Fatalf("serve did not start within 30s:\n%s", stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if !strings.Contains(stderr.String(), "warning: --listen 0.0.0.0:0: other machines") || !strings.Contains(stderr.String(), "no authentication") {
		t.Errorf("stderr %q: want a warning that other machines can read the results", stderr.String())
	}
	if code := stop(); code != cli.ExitOK {
		t.Errorf("serve stopped with exit %d, want 0", code)
	}
	if _, err := os.Stat(results); err == nil {
		t.Errorf("serve created the results file it only reads")
	}
}

// TestServeInBrowser opens serve's pages in a real headless Chromium:
// each loads with no error and no request beyond itself, the run's
// charts draw, and a person's path works: the list, a click on a run,
// the list again, three runs ticked, "Compare selected", the comparison with its
// merged rows. Screenshots go to $MONGOBENCH_SCREENSHOT_DIR (else a
// temporary directory).
func TestServeInBrowser(t *testing.T) {
	browser := chromium.Start(t)
	uri := testenv.URI(t)
	c := connect(t, uri)
	db := testenv.DBName(t)
	dropAfter(t, c, db)
	results := filepath.Join(t.TempDir(), "results.jsonl")
	var ids []string
	for _, label := range []string{"one", "two", "three"} {
		ids = append(ids, storedRun(t, uri, db, results, "--label", label, "-p", "records=200"))
	}
	base, _ := startServe(t, "--results-file", results)
	shots := screenshotDir
	if shots == "" {
		shots = t.TempDir()
	}
	for name, page := range map[string]string{
		"serve-list":    "/",
		"serve-run":     "/run/" + ids[0],
		"serve-compare": "/compare?run=" + strings.Join(ids, "&run="),
		"serve-sweeps":  "/sweeps",
	} {
		r := browser.OpenURL(t, base+page)
		if len(r.Errors) > 0 {
			t.Errorf("%s: errors in the browser: %q", page, r.Errors)
		}
		if len(r.Requests) > 0 {
			t.Errorf("%s: requests beyond the page: %q", page, r.Requests)
		}
		if name == "serve-run" {
			if len(r.Charts) == 0 {
				t.Errorf("%s: no chart drawn", page)
			}
			for _, ch := range r.Charts {
				if ch.Width <= 0 || ch.Height <= 0 || len(ch.Series) == 0 {
					t.Errorf("%s: chart %q drew a %d×%d canvas with series %q", page, ch.Title, ch.Width, ch.Height, ch.Series)
				}
			}
		}
		shot := filepath.Join(shots, name+".png")
		if err := os.WriteFile(shot, r.Screenshot, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("%s: %d charts, screenshot %s", page, len(r.Charts), shot)
	}

	ctx, cancel := browser.Tab()
	defer cancel()
	ctx, cancelT := context.WithTimeout(ctx, 2*time.Minute)
	defer cancelT()
	var runURL, compareURL, compared string
	for _, step := range []struct {
		name    string
		actions []chromedp.Action
	}{
		{"open the list", []chromedp.Action{chromedp.Navigate(base + "/"), chromedp.WaitReady(`#runs`)}},
		{"click the first run", []chromedp.Action{chromedp.Click(`#runs a[href^="/run/"]`, chromedp.ByQuery),
			chromedp.WaitReady(`.mb-chart canvas`, chromedp.ByQuery), chromedp.Location(&runURL)}},
		{"back to the list", []chromedp.Action{chromedp.Navigate(base + "/"), chromedp.WaitReady(`#runs`)}},
		{"tick three runs", []chromedp.Action{
			chromedp.Click(`#runs tr:nth-child(2) input[name=run]`, chromedp.ByQuery),
			chromedp.Click(`#runs tr:nth-child(3) input[name=run]`, chromedp.ByQuery),
			chromedp.Click(`#runs tr:nth-child(4) input[name=run]`, chromedp.ByQuery)}},
		{"compare them", []chromedp.Action{chromedp.Click(`#compare-selected`, chromedp.ByQuery),
			chromedp.WaitReady(`table.op`, chromedp.ByQuery), chromedp.Location(&compareURL), chromedp.Text(`main`, &compared, chromedp.ByQuery)}},
	} {
		if err := chromedp.Run(ctx, step.actions...); err != nil {
			t.Fatalf("list → run → compare: %s: %v", step.name, err)
		}
	}
	if !strings.Contains(runURL, "/run/"+ids[2]) {
		t.Errorf("the first run link led to %s, want the newest run %s", runURL, ids[2])
	}
	for _, id := range ids {
		if !strings.Contains(compareURL, "run="+id) || !strings.Contains(compared, id) {
			t.Errorf("the comparison (%s) lacks run %s", compareURL, id)
		}
	}
	if !strings.Contains(compared, "merged (exact)") {
		t.Errorf("the comparison has no merged row")
	}
}

// --metrics-addr on every interface (an empty host, 0.0.0.0) says the
// warning serve says off loopback; on loopback it says nothing.
func TestMetricsAddrWarnsOffLoopback(t *testing.T) {
	uri := testenv.URI(t)
	db := testenv.DBName(t)
	dropAfter(t, connect(t, uri), db)
	for addr, warn := range map[string]bool{":0": true, "0.0.0.0:0": true, "127.0.0.1:0": false} {
		o := mb(t, "run", "--uri", uri, "--database", db, "--ops", "20", "-p", "records=20", "--metrics-addr", addr,
			"--results-file", filepath.Join(t.TempDir(), "r.jsonl"), "--no-report")
		wantCode(t, o, cli.ExitOK)
		want := "warning: --metrics-addr " + addr + ": other machines can read the run's live figures (no authentication)"
		if got := strings.Contains(o.stderr, want); got != warn {
			t.Errorf("%s: warned %v, want %v:\n%s", addr, got, warn, o.stderr)
		}
	}
}
