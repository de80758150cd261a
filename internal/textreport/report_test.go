package textreport

import (
	"bytes"
	"io"
	"os"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/testsupport/golden"
)

func TestSummaryGolden(t *testing.T) {
	for name, d := range fixtures() {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := Summary(&buf, d); err != nil {
				t.Fatalf("Summary: got error %v, want nil", err)
			}
			golden.Check(t, name+".txt", buf.Bytes())
		})
	}
}

func TestMarkdownGolden(t *testing.T) {
	for name, d := range fixtures() {
		t.Run(name, func(t *testing.T) {
			md, charts, err := renderMarkdown(d, "charts")
			if err != nil {
				t.Fatalf("Markdown: got error %v, want nil", err)
			}
			golden.Check(t, name+".md", md)
			for file := range charts {
				if !bytes.Contains(md, []byte("("+file+")")) {
					t.Errorf("Markdown: got no link to %s", file)
				}
			}
		})
	}
}

// TestTelemetryChartNone checks that a run without any of the plotted
// telemetry keys has no telemetry chart, link or caption.
func TestTelemetryChartNone(t *testing.T) {
	d := checkpointDoc()
	for i := range d.Intervals {
		d.Intervals[i].Server = map[string]float64{"connections": 66, "netInBytesPerSec": 2e6}
		d.Intervals[i].Host = map[string]float64{"cpuKernelPct": 7}
	}
	md, charts, err := renderMarkdown(d, "charts")
	if err != nil {
		t.Fatal(err)
	}
	if len(charts) != 2 || bytes.Contains(md, []byte("telemetry")) {
		t.Errorf("got %d charts, telemetry in the Markdown %v; want 2 and none", len(charts), bytes.Contains(md, []byte("telemetry")))
	}
}

func TestChartsWithoutIntervals(t *testing.T) {
	d := closedDoc()
	d.Intervals = nil
	md, charts, err := renderMarkdown(d, "charts")
	if err != nil {
		t.Fatal(err)
	}
	if len(charts) != 0 || bytes.Contains(md, []byte("## Charts")) {
		t.Errorf("got %d charts and a Charts section %v, want none", len(charts), bytes.Contains(md, []byte("## Charts")))
	}
}

func TestChartPaths(t *testing.T) {
	d := openDoc()
	d.RunID = "run 1/x"
	_, charts, err := renderMarkdown(d, "out/charts")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"out/charts/run-1-x-throughput.svg", "out/charts/run-1-x-latency.svg"} {
		if _, ok := charts[want]; !ok {
			t.Errorf("got charts %v, want one at %s", keys(charts), want)
		}
	}
}

// TestMissingPercentiles checks that an operation without successes shows
// "—" in the terminal and empty cells in Markdown, never 0.
func TestMissingPercentiles(t *testing.T) {
	d := zeroSuccessDoc()
	var buf bytes.Buffer
	if err := Summary(&buf, d); err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"latency", "service"} {
		fields := rowWith(t, buf.String(), "update", kind, strings.Fields)
		if got, want := fields[2:], []string{"—", "—", "—", "—", "—"}; strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("terminal %s row: got %q, want %q", kind, got, want)
		}
	}
	md, _, err := renderMarkdown(d, "charts")
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{"latency", "service"} {
		cells := rowWith(t, string(md), "| update", kind, func(s string) []string {
			parts := strings.Split(strings.Trim(s, "| "), "|")
			for i := range parts {
				parts[i] = strings.TrimSpace(parts[i])
			}
			return parts
		})
		for i, c := range cells[2:] {
			if c != "" {
				t.Errorf("Markdown %s row, cell %d: got %q, want empty", kind, i+2, c)
			}
		}
	}
}

// TestOpsThatNeverRan: YCSB B's mix draws no inserts, scans or
// read-modify-writes; neither the terminal summary nor the Markdown
// report shows rows for them, while an operation type that only failed
// keeps its rows.
func TestOpsThatNeverRan(t *testing.T) {
	d := closedDoc()
	d.TestName = "ycsb-b"
	d.Ops = append(d.Ops, result.OpStats{Name: "insert"}, result.OpStats{Name: "scan"},
		result.OpStats{Name: "readmodifywrite", Errors: result.Errors{Total: 2, Timeout: 2}})
	var buf bytes.Buffer
	if err := Summary(&buf, d); err != nil {
		t.Fatal(err)
	}
	md, _, err := renderMarkdown(d, "charts")
	if err != nil {
		t.Fatal(err)
	}
	for name, text := range map[string]string{"summary": buf.String(), "Markdown": string(md)} {
		for _, line := range strings.Split(text, "\n") {
			if f := strings.Fields(strings.Trim(line, "| ")); len(f) > 0 && (f[0] == "insert" || f[0] == "scan") {
				t.Errorf("%s: a row for an operation type that never ran: %q", name, line)
			}
		}
		if !strings.Contains(text, "readmodifywrite") {
			t.Errorf("%s: no row for readmodifywrite, which failed twice:\n%s", name, text)
		}
	}
	none := closedDoc()
	none.Ops = []result.OpStats{{Name: "read"}, {Name: "update"}}
	buf.Reset()
	if err := Summary(&buf, none); err != nil {
		t.Fatal(err)
	}
	if rowWith(t, buf.String(), "read", "latency", strings.Fields)[2] != "—" {
		t.Errorf("a run in which nothing ran: want its operation types shown as missing:\n%s", buf.String())
	}
}

func TestNilDoc(t *testing.T) {
	if err := Summary(io.Discard, nil); err == nil {
		t.Errorf("Summary(nil): got nil error, want one")
	}
	if _, _, err := renderMarkdown(nil, "charts"); err == nil {
		t.Errorf("Markdown(nil): got nil error, want one")
	}
}

// failWriter fails every write.
type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, os.ErrClosed }

func TestSummaryWriteError(t *testing.T) {
	if err := Summary(failWriter{}, closedDoc()); err != os.ErrClosed {
		t.Errorf("got error %v, want %v", err, os.ErrClosed)
	}
}

// TestSummaryFollowsView: the terminal's summary is the run's view: the
// notices the reports show, the thresholds' verdicts of the headline,
// and last the headline's two verdict lines, where the p99 tail fell
// and then what limited the run.
func TestSummaryFollowsView(t *testing.T) {
	d := diagnosedDoc()
	d.Client.ClientBound, d.Client.Reasons = true, []string{"client CPU 97% of 4 cores"}
	d.Diagnosis.Tail = &result.Tail{Line: "p99 tail: 80% of the operations above p99 fell in checkpoints"}
	d.Thresholds = []result.ThresholdVerdict{{Expression: "p99 < 5ms", Pass: false, Op: "txn", Value: result.F(7.77)}}
	v, err := report.NewRunView(d)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := Run(&buf, v); err != nil {
		t.Fatal(err)
	}
	var sum bytes.Buffer
	if err := Summary(&sum, d); err != nil || sum.String() != buf.String() {
		t.Fatalf("Summary: got %v and a text other than the view's:\n%s", err, sum.String())
	}
	text := buf.String()
	for _, n := range v.Notices {
		if want := strings.ToUpper(string(n.Kind)) + ": " + strings.TrimSuffix(n.Text, "."); !strings.Contains(text, want+"\n") {
			t.Errorf("summary lacks the view's notice %q:\n%s", want, text)
		}
	}
	if want := "FAIL     p99 < 5ms  7.77 (txn)"; !strings.Contains(text, want) {
		t.Errorf("summary lacks the view's verdict %q:\n%s", want, text)
	}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	if got := lines[len(lines)-2:]; got[0] != v.Headline.Tail || got[1] != v.Headline.Limit {
		t.Errorf("summary ends with %q, want the view's tail and limit lines %q, %q", got, v.Headline.Tail, v.Headline.Limit)
	}
}

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}

// rowWith returns the split fields of the first line of text that starts
// with prefix and contains word.
func rowWith(t *testing.T, text, prefix, word string, split func(string) []string) []string {
	t.Helper()
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(line, prefix) && strings.Contains(line, " "+word+" ") {
			return split(line)
		}
	}
	t.Fatalf("got no row %q … %q in\n%s", prefix, word, text)
	return nil
}
