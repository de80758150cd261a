package browse_test

import (
	"bytes"
	"errors"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/browse"
	"github.com/mongobench/mongobench/internal/hist"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/testsupport/plantest"
)

func histOf(t *testing.T, us ...int64) (*hist.H, result.Dist) {
	t.Helper()
	h := hist.New()
	for _, u := range us {
		hist.Record(h, time.Duration(u)*time.Microsecond)
	}
	d, err := hist.Summarize(h)
	if err != nil {
		t.Fatal(err)
	}
	return h, d
}

func doc(t *testing.T, id, label string, start time.Time, tags []string, reads ...int64) result.Doc {
	_, d := histOf(t, reads...)
	return result.Doc{RunID: id, TestName: "kv", Label: label, Tags: tags, Start: start,
		TestConfig: map[string]any{"workload": "kv"}, Schedule: result.Schedule{Mode: "open", AchievedRate: float64(len(reads))},
		Ops: []result.OpStats{{Name: "read", Count: int64(len(reads)), Rate: float64(len(reads)), Latency: d, Service: d}}}
}

var day = time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)

// TestFilterParse reads the list's filter from a query; the store
// applies it (store's TestListRunsFilters).
func TestFilterParse(t *testing.T) {
	q, _ := url.ParseQuery("label=a&tag=x&from=2026-03-05&to=2026-03-05")
	f, err := browse.ParseFilter(q)
	if err != nil {
		t.Fatal(err)
	}
	if f.Label != "a" || f.Tag != "x" || !f.From.Equal(day.Truncate(24*time.Hour).Add(24*time.Hour)) || !f.To.Equal(f.From.Add(24*time.Hour)) {
		t.Errorf("got %+v, want label a, tag x, the day of 2026-03-05", f)
	}
	if _, err := browse.ParseFilter(url.Values{"from": {"tuesday"}}); err == nil || !strings.Contains(err.Error(), `from: "tuesday"`) {
		t.Errorf("from=tuesday: got %v, want an error naming the field and value", err)
	}
	runs := []result.Doc{doc(t, "r3", "b", day, nil, 1), doc(t, "r2", "a", day, nil, 1)}
	if p := browse.List(runs, browse.Choices{Labels: []string{"a", "b"}}, 3, 5, browse.Filter{}); len(p.Runs) != 2 || !p.Truncated || p.Total != 5 {
		t.Errorf("2 of 3 runs selected of 5: got %d runs, truncated %v, total %d", len(p.Runs), p.Truncated, p.Total)
	}
}

// The merged row is the exact merge of the runs' histograms: its
// percentiles are those of one histogram holding every recording.
func TestCompareMergesExactly(t *testing.T) {
	a := doc(t, "a", "x", day, nil, 100, 200, 300, 400, 50000)
	b := doc(t, "b", "y", day, nil, 1000, 1100, 1200)
	all, _ := histOf(t, 100, 200, 300, 400, 50000, 1000, 1100, 1200)
	c, err := browse.Compare([]result.Doc{a, b})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Ops) != 1 || c.Ops[0].Merged == nil {
		t.Fatalf("got %+v, want read with a merged row", c.Ops)
	}
	m := c.Ops[0].Merged
	if m.Count != 8 {
		t.Errorf("merged count: got %d, want 8", m.Count)
	}
	for p, got := range map[float64]*float64{50: m.Latency.P50, 95: m.Latency.P95, 99: m.Latency.P99} {
		want := float64(all.ValueAtPercentile(p)) / 1000
		if got == nil || *got != want {
			t.Errorf("merged p%v: got %v, want %v (the union's histogram)", p, got, want)
		}
	}
	if len(c.Charts) != 1 || !strings.Contains(string(c.Charts[0].SVG), "merged (exact)") {
		t.Errorf("charts: want one percentile distribution with the merged line")
	}

	// A run without the operation type, or without its histogram: no
	// merge, and the page says why.
	noHist := doc(t, "c", "z", day, nil, 10)
	noHist.Ops[0].Latency.Hist = ""
	c, err = browse.Compare([]result.Doc{a, noHist})
	if err != nil {
		t.Fatal(err)
	}
	if c.Ops[0].Merged != nil || !strings.Contains(c.Ops[0].Missing, "no stored histogram") {
		t.Errorf("a run without histogram: got merged %v, missing %q", c.Ops[0].Merged, c.Ops[0].Missing)
	}
}

func TestPagesEscapeStoredText(t *testing.T) {
	evil := `<script>alert(1)</script>`
	docs := []result.Doc{doc(t, "r1", evil, day, []string{evil}, 100, 200), doc(t, "r2", "ok", day, nil, 300)}
	var b bytes.Buffer
	if err := browse.Render(&b, "list", browse.Page{Title: "Runs", Where: evil, Data: browse.List(docs, browse.Choices{Labels: []string{evil}, Tags: []string{evil}}, len(docs), len(docs), browse.Filter{})}); err != nil {
		t.Fatal(err)
	}
	c, err := browse.Compare(docs)
	if err != nil {
		t.Fatal(err)
	}
	if err := browse.Render(&b, "compare", browse.Page{Title: "compare", Data: c}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), evil) {
		t.Errorf("a stored label reaches the page unescaped")
	}
}

func TestLiveView(t *testing.T) {
	_, d := histOf(t, 100, 200)
	iv := func(i int, n int64) browse.LiveInterval {
		return browse.LiveInterval{Interval: result.Interval{Start: day.Add(time.Duration(i) * time.Second), Seconds: 1,
			Ops: []result.OpStats{{Name: "read", Count: n, Rate: float64(n), Latency: d}}}}
	}
	v, err := browse.Live(browse.LiveRun{RunID: "r", Test: "kv", Running: true, Intervals: []browse.LiveInterval{iv(0, 10), iv(1, 20)}})
	if err != nil {
		t.Fatal(err)
	}
	if len(v.Rows) != 2 || v.Rows[0].At != 2 || v.Rows[0].Rate != 20 || len(v.Charts) != 2 {
		t.Errorf("got rows %+v and %d charts, want the newest first (at 2 s, 20 ops/s) and two charts", v.Rows, len(v.Charts))
	}
	var b bytes.Buffer
	if err := browse.RenderLive(&b, v); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "running") || strings.Count(b.String(), `<tr><td class="n">`) != 2 {
		t.Errorf("live body: want the state and two interval rows:\n%s", b.String())
	}
	// An interval without a target or lag shows them as missing.
	if !strings.Contains(b.String(), "—") {
		t.Errorf("live body: a missing target or lag is not shown as —")
	}
}

// slaDoc is a stored SLA run of stage at tps, with the verdict its study
// stored under spec.
func slaDoc(t *testing.T, id, stage, mode string, tps float64, start time.Time, spec string, pass bool, p99us int64) result.Doc {
	_, d := histOf(t, 100, 200, p99us)
	v := &result.SLAVerdict{Spec: spec, Pass: pass}
	if !pass {
		v.Reasons = []string{"p99 " + "too high"}
	}
	return result.Doc{RunID: id, TestName: "txn_sla", Start: start,
		Variant:     map[string]any{"stage": stage, "mode": mode, "targetRate": tps},
		Schedule:    result.Schedule{Mode: "open", TargetRate: &tps, AchievedRate: tps},
		Ops:         []result.OpStats{{Name: "txn", Count: 3, Latency: d, Service: d}},
		TestResults: result.TestResults{SLA: v}}
}

// The SLA journey and a stage's page are the SLA study's view of the
// stored runs: every run passes or fails by the verdict stored with it
// (a stored pass is shown as a pass whatever its figures), never judged
// again, and no form asks for an SLA.
func TestSLAPagesShowStoredVerdicts(t *testing.T) {
	spec := "p99 ≤ 20 ms, ≥ 99% of the target rate, no failed transactions"
	docs := []result.Doc{
		slaDoc(t, "r1", "baseline", "per-op", 100, day, spec, true, 90000), // a p99 of 90 ms, stored as a pass
		slaDoc(t, "r2", "baseline", "per-op", 100, day.Add(time.Minute), spec, false, 300),
		slaDoc(t, "r3", "tuned", "per-op", 100, day.Add(time.Hour), spec, true, 300),
	}
	var b bytes.Buffer
	if err := browse.SLA(&b, docs, "the test store"); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"<nav", "SLA journey", "baseline", "tuned", "1/2", `href="/sla?sla=p99`, "stage=baseline", "testResults.sla"} {
		if !strings.Contains(page, want) {
			t.Errorf("journey page lacks %q", want)
		}
	}
	if strings.Contains(page, "<form") {
		t.Errorf("journey page has a form: an SLA is not given to the browser, the stored verdicts judge")
	}
	if strings.Index(page, "baseline") > strings.Index(page, "tuned") {
		t.Errorf("stages out of the order they were run")
	}
	b.Reset()
	if err := browse.SLAStage(&b, docs, "baseline", "p99 <= 20ms, rate >= 99%, errors == 0", "the test store"); err != nil { // the thresholds the stored verdicts judged
		t.Fatal(err)
	}
	stage := b.String()
	for _, want := range []string{"<nav", "Transactions at a fixed rate: p99 ≤ 20 ms", "PASS", "FAIL: p99 too high", `href="/run/r1"`, `href="/run/r2"`, `id="headline"`, "uPlot"} {
		if !strings.Contains(stage, want) {
			t.Errorf("stage page lacks %q", want)
		}
	}
	if strings.Contains(stage, `href="/run/r3"`) {
		t.Errorf("stage baseline's page links run r3 of stage tuned")
	}
	if err := browse.SLAStage(&b, docs, "baseline", "p99 ≤ 5 ms", "x"); !errors.Is(err, browse.ErrNotFound) {
		t.Errorf("an SLA no run was judged under: got %v, want ErrNotFound", err)
	}
	b.Reset()
	if err := browse.SLA(&b, nil, "the test store"); err != nil || !strings.Contains(b.String(), "No SLA runs stored in the test store") {
		t.Errorf("no SLA runs: got %v, want the page to say so", err)
	}
}

// A plan's page holds what its stored runs measured, each candidate's
// runs combined, and says that the recommendation needs the plan file,
// with the command that gives it: no demand or price is made up.
func TestPlanPageFromStoredRuns(t *testing.T) {
	seed, err := plantest.Docs("seed")
	if err != nil {
		t.Fatal(err)
	}
	var docs []result.Doc
	for _, d := range seed {
		docs = append(docs, *d)
	}
	var b bytes.Buffer
	if err := browse.Plan(&b, docs, "seed", "the test store"); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"<nav", "Capacity plan: seed", "Candidates", "ops/s (median)", "mongobench plan FILE --from-results --report-dir DIR", "not in its runs", `href="/run/` + docs[0].RunID + `"`, "What limited each candidate"} {
		if !strings.Contains(page, want) {
			t.Errorf("plan page lacks %q", want)
		}
	}
	for _, c := range plantest.Seed {
		if !strings.Contains(page, c.Name) {
			t.Errorf("plan page lacks candidate %s", c.Name)
		}
	}
	for _, invented := range []string{"/month", "users carried", "cheapest"} {
		if strings.Contains(page, invented) {
			t.Errorf("plan page shows %q, which needs the plan file", invented)
		}
	}
	if err := browse.Plan(&b, docs, "nope", "x"); !errors.Is(err, browse.ErrNotFound) {
		t.Errorf("an unknown plan: got %v, want ErrNotFound", err)
	}
	// A plan on recorded traffic stores each stage's runs with the
	// stage's name: each candidate's stages are rows of their own.
	for i := range docs {
		docs[i].Variant["stage"] = []string{"today", "far"}[docs[i].Repetition%2]
	}
	b.Reset()
	if err := browse.Plan(&b, docs, "seed", "the test store"); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"base at today", "base at far", "a at far"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("the staged plan's page lacks the row %q", want)
		}
	}
}

// The form of compare --runs lists the labels with whole single runs
// (not sweep steps, not partial runs), and the comparison refuses a label
// without runs as not found.
func TestCompareRunsForm(t *testing.T) {
	doc := func(label string, rate float64) result.Doc {
		return result.Doc{RunID: fmt.Sprintf("%s-%v", label, rate), Label: label, TestConfig: map[string]any{"workload": "kv"},
			Schedule: result.Schedule{AchievedRate: rate, SuccessRate: rate}}
	}
	var docs []result.Doc
	for _, r := range []float64{100, 101, 99, 102, 98} {
		docs = append(docs, doc("a", r), doc("b", r*0.5))
	}
	step := doc("c", 1)
	step.Variant = map[string]any{"sweep": "S"}
	docs = append(docs, step)
	p := browse.RunLabels(docs, browse.CompareQuery{Labels: []string{"a"}}, browse.ErrTooFewLabels.Error())
	if len(p.Labels) != 2 || p.Labels[0] != (browse.LabelRuns{Label: "a", Runs: 5, Workloads: "kv"}) || p.Base != "a" || p.Note == "" {
		t.Errorf("form %+v", p)
	}
	if got := browse.DistinctLabels([]string{"a", "", "b", "a"}); !slices.Equal(got, []string{"a", "b"}) {
		t.Errorf("labels %q", got)
	}
	var b strings.Builder
	if err := browse.CompareRuns(&b, docs, query(t, "label=a&label=b&workload=kv"), "results.jsonl"); err != nil || !strings.Contains(b.String(), "Significantly worse: b throughput") ||
		!strings.Contains(b.String(), `href="/run/b-50"`) {
		t.Errorf("comparison: %v\n%.600s", err, b.String())
	}
	if err := browse.CompareRuns(&b, docs, query(t, "label=a&label=c"), "results.jsonl"); !errors.Is(err, browse.ErrNotFound) {
		t.Errorf("a label with only sweep steps: %v, want not found", err)
	}
}

func query(t *testing.T, raw string) browse.CompareQuery {
	t.Helper()
	v, err := url.ParseQuery(raw)
	if err != nil {
		t.Fatal(err)
	}
	c, err := browse.ParseCompareQuery(v)
	if err != nil {
		t.Fatalf("%s: %v", raw, err)
	}
	return c
}

// The comparison's page takes compare --runs' settings by their flags'
// names: a minimum effect above the difference makes it noise, alpha
// and the correction are said, the runs judged invalid are left out
// unless included (the page says how many), the runs a side a verdict
// needs are said as the command says them, the settings survive the
// link back to the form, and a value that is not valid is ErrBadParam
// naming the parameter.
func TestCompareRunsSettings(t *testing.T) {
	doc := func(label string, i int, rate float64) result.Doc {
		return result.Doc{RunID: fmt.Sprintf("%s-%d", label, i), Label: label, TestConfig: map[string]any{"workload": "kv"},
			Schedule: result.Schedule{AchievedRate: rate, SuccessRate: rate}}
	}
	var docs []result.Doc
	for i, r := range []float64{100, 103, 97, 102, 98} {
		docs = append(docs, doc("a", i, r), doc("b", i, r*0.92), doc("c", i, r*1.01))
	}
	bad := doc("b", 9, 10) // a run judged invalid, far below the others
	bad.Validity = &result.Validity{State: result.Invalid}
	docs = append(docs, bad)
	page := func(raw string) string {
		var b strings.Builder
		if err := browse.CompareRuns(&b, docs, query(t, raw), "results.jsonl"); err != nil {
			t.Fatalf("%s: %v", raw, err)
		}
		return b.String()
	}
	def := page("label=a&label=b")
	for _, want := range []string{"Significantly worse: b throughput", "1 run(s) judged invalid left out", "b (5 runs) against a (5 runs)", "--alpha 0.05, --correction bh, --min-effect the defaults"} {
		if !strings.Contains(def, want) {
			t.Errorf("defaults: the page lacks %q", want)
		}
	}
	effect := page("label=a&label=b&min-effect=throughput=20%25&alpha=0.1&correction=holm")
	for _, want := range []string{"No metric is significantly worse", "--alpha 0.1, --correction holm, --min-effect throughput=20% (the others their defaults)", "Holm–Bonferroni", "below 0.1"} {
		if !strings.Contains(effect, want) {
			t.Errorf("min-effect 20%%, alpha 0.1, holm: the page lacks %q", want)
		}
	}
	if !strings.Contains(effect, "alpha=0.1&amp;correction=holm&amp;edit=1&amp;label=a&amp;label=b&amp;min-effect=throughput%3D20%25") {
		t.Errorf("the link back to the form loses the settings")
	}
	if with := page("label=a&label=b&include-invalid=1"); !strings.Contains(with, "b (6 runs) against a (5 runs)") || !strings.Contains(with, "runs judged invalid counted (--include-invalid)") {
		t.Errorf("include-invalid: the invalid run is not counted")
	}
	if aa := page("label=a&label=c"); !strings.Contains(aa, "Runs a side to decide what is undecided, at α 0.05") {
		t.Errorf("a difference too small for five runs a side: the page does not say how many runs a side a verdict needs")
	}
	for raw, want := range map[string]string{
		"label=a&alpha=2":               "bad parameter: alpha 2 is not valid",
		"label=a&alpha=x":               "bad parameter: alpha NaN is not valid",
		"label=a&correction=bonferroni": "bad parameter: correction",
		"label=a&min-effect=p99=x":      `bad parameter: min-effect "p99=x": want KIND=PERCENT`,
		"label=a&include-invalid=maybe": `bad parameter: include-invalid "maybe": want 1 or 0`,
	} {
		v, _ := url.ParseQuery(raw)
		if _, err := browse.ParseCompareQuery(v); !errors.Is(err, browse.ErrBadParam) || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%s: %v, want %q", raw, err, want)
		}
	}
	form := browse.RunLabels(docs, query(t, "label=a&alpha=0.1&min-effect=p99=5%25,throughput=3%25&include-invalid=1"), "")
	if form.Alpha != "0.1" || form.MinEffect != "p99=5%,throughput=3%" || !form.IncludeInvalid || form.Correction != "bh" {
		t.Errorf("the form keeps the settings given: %+v", form)
	}
}
