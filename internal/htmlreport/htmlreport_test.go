package htmlreport

import (
	"bytes"
	"encoding/json"
	"io"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/hist"
	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/textreport"
)

// distOf is the stored summary of n latencies of 1..n ms.
func distOf(t *testing.T, n int) result.Dist {
	t.Helper()
	h := hist.New()
	for i := 1; i <= n; i++ {
		hist.Record(h, time.Duration(i)*time.Millisecond)
	}
	d, err := hist.Summarize(h)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// runDoc is an open-loop run of two operation types (one never
// succeeds) over three intervals, the second without a read p99.
func runDoc(t *testing.T) *result.Doc {
	start := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	read := result.OpStats{Name: "read", Count: 1000, Latency: distOf(t, 1000), Service: distOf(t, 500)}
	d := &result.Doc{RunID: "R1", TestName: "kv", Start: start, Ops: []result.OpStats{read, {Name: "scan"}}}
	d.Schedule.Mode = "open"
	d.Schedule.TargetRate = result.F(100)
	for i := range 3 {
		iv := result.Interval{Start: start.Add(time.Duration(i) * time.Second), Seconds: 1,
			Ops:    []result.OpStats{{Name: "read", Count: 100, Latency: result.Dist{P99: result.F(2)}}, {Name: "scan"}},
			Server: map[string]float64{"queryPerSec": 100, "deletePerSec": 0}}
		if i == 1 {
			iv.Ops[0].Latency.P99 = nil
		}
		d.Intervals = append(d.Intervals, iv)
	}
	return d
}

// chartsOf returns the chart data a page carries.
func chartsOf(t *testing.T, page string) []Chart {
	t.Helper()
	m := regexp.MustCompile(`<script type="application/json" id="mb-charts">(.*?)</script>`).FindStringSubmatch(page)
	if m == nil {
		t.Fatal("page has no chart data")
	}
	var cs []Chart
	if err := json.Unmarshal([]byte(m[1]), &cs); err != nil {
		t.Fatal(err)
	}
	return cs
}

func TestRunPage(t *testing.T) {
	var b bytes.Buffer
	if err := runPage(&b, runDoc(t)); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, ref := range regexp.MustCompile(`(?i)(src|href)\s*=\s*"([^"]*)"`).FindAllStringSubmatch(page, -1) {
		if !strings.HasPrefix(ref[2], "data:") && !strings.HasPrefix(ref[2], "#") {
			t.Errorf("page refers to %q: it must need no other file", ref[2])
		}
	}
	if strings.Contains(page, "charts/R1-") {
		t.Error("page links the SVG charts; it must draw or inline them")
	}
	byTitle := map[string]Chart{}
	for _, c := range chartsOf(t, page) {
		byTitle[c.Title] = c
	}
	thr := byTitle["kv R1: throughput"]
	var labels []string
	for _, s := range thr.Series {
		labels = append(labels, s.Label)
	}
	if strings.Join(labels, ",") != "read,target (total)" {
		t.Errorf("throughput series: got %v, want read and the target (scan never succeeded)", labels)
	}
	lat := byTitle["kv R1: p99 latency and service time"]
	if len(lat.Series) == 0 || lat.Series[0].Y[1] != nil || lat.Series[0].Y[0] == nil {
		t.Errorf("latency: got %+v, want a gap where the interval has no p99", lat.Series)
	}
	ops := byTitle["server ops/s"]
	if len(ops.Series) != 1 || ops.Series[0].Label != "queries/s" {
		t.Errorf("server ops: got %+v, want queries/s alone (deletes are zero throughout)", ops.Series)
	}
	pc, ok := byTitle["read: latency by percentile"]
	if !ok || pc.XAxis != "nines" || len(pc.Series) != 2 {
		t.Fatalf("percentile chart: got %+v", pc)
	}
	ys := pc.Series[0].Y
	if pc.X[0] != 1 || *ys[0] < 0.99 || *ys[0] > 1.01 {
		t.Errorf("percentile chart starts at x %v, %v ms; want x 1 (p0) at the minimum, 1 ms", pc.X[0], *ys[0])
	}
	last := ys[len(ys)-1]
	if last == nil || *last < 999 || *last > 1001 || pc.X[len(pc.X)-1] != 1000 {
		t.Errorf("percentile chart ends at x %v, %v; want x 1000 (the count) at the maximum, 1000 ms", pc.X[len(pc.X)-1], last)
	}
	for i := 1; i < len(ys); i++ {
		if ys[i] != nil && ys[i-1] != nil && *ys[i] < *ys[i-1] {
			t.Fatalf("percentile chart falls at x %v", pc.X[i])
		}
	}
	svc := pc.Series[1].Y // 500 values resolve up to x = 500 only
	for i, x := range pc.X {
		if (x > 500) != (svc[i] == nil) {
			t.Errorf("service line at x %v: got %v, want a value up to x 500 and a gap past it", x, svc[i])
		}
	}
}

func TestDocumentPage(t *testing.T) {
	md := "# Tables\n\n| a | b |\n|---|---|\n| 1 | <script>x</script> |\n\n[run](r1.md) [site](https://example.com/a.md)\n\n![gone](missing.svg)\n"
	var b bytes.Buffer
	if err := Document(&b, "T <1>", []byte(md)); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"<title>T &lt;1&gt;</title>", "<table>", `href="r1.html"`, `href="https://example.com/a.md"`, "<em>gone</em>", `id="mb-charts">[]</script>`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	if strings.Contains(page, "<script>x</script>") {
		t.Error("raw HTML of the document passed through unescaped")
	}
}

// A label, a test name and a note that hold markup are shown as written,
// in the Markdown report (as text: no tag, no link) and in the HTML page
// (literally, not run and not linked).
func TestMarkupInNamesIsText(t *testing.T) {
	d := runDoc(t)
	d.TestName = `"><img src=x onerror=alert(2)>`
	d.Label = `<script>alert(1)</script> [x](javascript:alert(3)) *bold* _em_ ~~del~~`
	d.Notes = []string{"<b>note</b> & more"}
	v, err := report.NewRunView(d)
	if err != nil {
		t.Fatal(err)
	}
	md, _, err := textreport.RunMarkdown(v, "charts")
	if err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"<script", "<img", "[x](javascript", "<b>"} {
		if strings.Contains(string(md), bad) {
			t.Errorf("the Markdown report holds %q:\n%s", bad, md)
		}
	}
	var page bytes.Buffer
	if err := runPage(&page, d); err != nil {
		t.Fatal(err)
	}
	html := page.String()
	for _, want := range []string{
		`&lt;script&gt;alert(1)&lt;/script&gt; [x](javascript:alert(3)) *bold* _em_ ~~del~~`,
		`&#34;&gt;&lt;img src=x onerror=alert(2)&gt;`,
		`&lt;b&gt;note&lt;/b&gt; &amp; more`,
	} {
		if !strings.Contains(html, want) {
			t.Errorf("the HTML report lacks %q", want)
		}
	}
	for _, bad := range []string{"<script>alert", "<img src=x", `href="javascript`, "<b>note", "<em>em", "<strong>bold", "<del>del"} {
		if strings.Contains(html, bad) {
			t.Errorf("the HTML report holds %q", bad)
		}
	}
}

// runPage writes a document's run page, without navigation.
func runPage(w io.Writer, d *result.Doc) error {
	v, err := report.NewRunView(d)
	if err != nil {
		return err
	}
	return Run(w, v, nil)
}
