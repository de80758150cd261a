package report

import (
	"bytes"
	"encoding/xml"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/testsupport/golden"

	"github.com/mongobench/mongobench/internal/result"
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

// TestChartsGolden pins the SVG of one fixture; the others are checked for
// determinism and content in TestCharts.
func TestChartsGolden(t *testing.T) {
	charts, err := Charts(openDoc())
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range charts {
		golden.Check(t, "open-"+c.Name+".svg", c.SVG)
	}
	golden.Check(t, "checkpoint-telemetry.svg", telemetrySVG(t, checkpointDoc()))
}

func TestCharts(t *testing.T) {
	for name, d := range fixtures() {
		t.Run(name, func(t *testing.T) {
			first, err := Charts(d)
			if err != nil {
				t.Fatalf("Charts: got error %v, want nil", err)
			}
			again, _ := Charts(d)
			want := 2 // latency (on top of the telemetry when there is any) and throughput
			if got := len(first); got != want {
				t.Fatalf("got %d charts, want %d", got, want)
			}
			for i, c := range first {
				if !bytes.Equal(c.SVG, again[i].SVG) {
					t.Errorf("%s: got different bytes on a second render, want identical", c.Name)
				}
				checkXML(t, c)
				for _, want := range seriesNames(d, c.Name) {
					if !bytes.Contains(c.SVG, []byte(">"+want+"<")) {
						t.Errorf("%s: got no series %q in the SVG", c.Name, want)
					}
				}
			}
		})
	}
}

// seriesNames lists the legend entries a chart of d must show.
func seriesNames(d *result.Doc, chart string) []string {
	if chart == "telemetry" {
		return telemetryNames(d)
	}
	var names []string
	succeeded := 0
	for _, o := range d.Ops {
		switch {
		case chart == "throughput":
			if slices.ContainsFunc(d.Intervals, func(iv result.Interval) bool {
				return slices.ContainsFunc(iv.Ops, func(io result.OpStats) bool { return io.Name == o.Name && io.Count > 0 })
			}) {
				names = append(names, o.Name) // a type that never succeeded is no line
				succeeded++
			}
		case o.Latency.P99 != nil:
			names = append(names, o.Name+" latency", o.Name+" service")
		}
	}
	if chart == "throughput" && succeeded > 1 {
		names = append(names, "total")
	}
	if chart == "throughput" && d.Schedule.TargetRate != nil {
		names = append(names, "target (total)")
	}
	return names
}

// telemetryLegends maps each telemetry key the chart plots to its legend
// name.
var telemetryLegends = map[string]string{
	"cacheDirtyBytes": "dirty cache", "checkpointRunning": "checkpoint running",
	"checkpoints": "checkpoint completed", "diskWriteBytesPerSec": "disk write",
	"cpuIowaitPct": "host iowait", "cpuUserPct": "host user", "procCpuUserPct": "server user",
	"commandPerSec": "commands/s", "insertPerSec": "inserts/s", "updatePerSec": "updates/s",
	"queryPerSec": "queries/s", "getmorePerSec": "getMores/s", "deletePerSec": "deletes/s",
}

// telemetryNames lists the legend entries the telemetry chart of d must
// show: one per plotted key some interval records (checkpoints only where
// one completed, checkpointRunning only where one ran), and each
// operation's p99 latency and service time when there is any telemetry.
func telemetryNames(d *result.Doc) []string {
	var names []string
	for _, k := range slices.Sorted(maps.Keys(telemetryLegends)) {
		if slices.ContainsFunc(d.Intervals, func(iv result.Interval) bool {
			v, ok := iv.Server[k]
			if h, hok := iv.Host[k]; hok {
				v, ok = h, true
			}
			opcounter := strings.HasSuffix(k, "PerSec") && !strings.HasPrefix(k, "disk") // zero throughout: left out
			return ok && (v > 0 || (k != "checkpoints" && k != "checkpointRunning" && !opcounter))
		}) {
			names = append(names, telemetryLegends[k])
		}
	}
	if len(names) == 0 {
		return nil
	}
	for _, o := range d.Ops {
		if o.Latency.P99 != nil {
			names = append(names, o.Name+" latency", o.Name+" service")
		}
	}
	return names
}

// TestTelemetryChartOmitsAbsent checks that the telemetry chart draws the
// series the document records and no others: the embedded server's case
// of opcounters and host CPU only.
func TestTelemetryChartOmitsAbsent(t *testing.T) {
	d := checkpointDoc()
	for i := range d.Intervals {
		iv := &d.Intervals[i]
		iv.Server = map[string]float64{"commandPerSec": 1240, "queryPerSec": 200, "connections": 66}
		if iv.Host != nil {
			iv.Host = map[string]float64{"cpuUserPct": 38, "cpuKernelPct": 7}
		}
	}
	svg := telemetrySVG(t, d)
	for _, want := range []string{"commands/s", "queries/s", "host user", "txn latency", "txn service", "read latency", "server ops/s", "CPU %"} {
		if !bytes.Contains(svg, []byte(">"+want+"<")) {
			t.Errorf("got no %q in the SVG, want it", want)
		}
	}
	for _, absent := range []string{"dirty cache", "dirty cache MB", "checkpoint running", "checkpoint completed",
		"disk write", "disk MB/s", "host iowait", "server user", "inserts/s", "updates/s", "getMores/s", "deletes/s"} {
		if bytes.Contains(svg, []byte(">"+absent+"<")) {
			t.Errorf("got %q in the SVG, want it left out: the document has no such series", absent)
		}
	}
}

// telemetrySVG returns the telemetry chart of d, failing unless there is
// exactly one.
func telemetrySVG(t *testing.T, d *result.Doc) []byte {
	t.Helper()
	charts, err := Charts(d)
	if err != nil {
		t.Fatal(err)
	}
	var svg []byte
	for _, c := range charts {
		if c.Name == "telemetry" {
			if svg != nil {
				t.Fatal("got two telemetry charts, want one")
			}
			svg = c.SVG
		}
	}
	if svg == nil {
		t.Fatal("got no telemetry chart, want one")
	}
	return svg
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

// TestTelemetryChartCheckpointOnly checks that checkpoint shading alone
// still makes a chart, with the shading in its legend.
func TestTelemetryChartCheckpointOnly(t *testing.T) {
	d := checkpointDoc()
	for i := range d.Intervals {
		d.Intervals[i].Server = map[string]float64{"checkpointRunning": d.Intervals[i].Server["checkpointRunning"]}
		d.Intervals[i].Host = nil
	}
	svg := telemetrySVG(t, d)
	if !bytes.Contains(svg, []byte(">checkpoint running<")) {
		t.Errorf("got no checkpoint running legend")
	}
}

// TestTelemetryGaps checks that an interval without a reading is a gap,
// never a zero, and that consecutive checkpoint intervals merge into one
// shaded span.
func TestTelemetryGaps(t *testing.T) {
	d := checkpointDoc()
	pts := telemetryPoints(d, "cpuIowaitPct", true, 1)
	if got := len(pts); got != len(d.Intervals) {
		t.Fatalf("got %d points, want one per interval (%d)", got, len(d.Intervals))
	}
	for i, p := range pts {
		if (p == nil) != (i == 12) {
			t.Errorf("interval %d: got point %v, want a gap only at interval 12", i, p)
		}
	}
	if got := len(segments(pts)); got != 2 {
		t.Errorf("got %d line segments, want 2 (broken at the gap)", got)
	}
	d.Intervals[20].Host["cpuIowaitPct"] = math.NaN()
	if telemetryPoints(d, "cpuIowaitPct", true, 1)[20] != nil {
		t.Errorf("got a point for NaN, want a gap")
	}
	s := checkpointSpans(d)
	if s == nil || len(*s) != 1 || (*s)[0] != [2]float64{30, 36} {
		t.Errorf("got checkpoint spans %v, want [[30 36]]", s)
	}
}

// checkXML fails the test unless the chart is well-formed XML.
func checkXML(t *testing.T, c Chart) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(c.SVG))
	for {
		_, err := dec.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("%s: got invalid XML: %v", c.Name, err)
		}
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

func keys(m map[string][]byte) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
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

func TestCellsMissing(t *testing.T) {
	tests := []struct {
		c    cells
		v    *float64
		want string
	}{
		{textCells, nil, "—"},
		{mdCells, nil, ""},
		{textCells, f(0), "0"},
		{mdCells, f(0), "0"},
		{textCells, f(2.345), "2.35"},
	}
	for _, tt := range tests {
		if got := tt.c.Num(tt.v); got != tt.want {
			t.Errorf("num(%v) with missing %q: got %q, want %q", tt.v, tt.c.Missing, got, tt.want)
		}
	}
}

func TestSig3(t *testing.T) {
	tests := []struct {
		v    float64
		want string
	}{
		{0, "0"}, {0.000123456, "0.000123"}, {0.5, "0.500"}, {1.2345, "1.23"},
		{9.996, "10.0"}, {12.34, "12.3"}, {123.4, "123"}, {999.6, "1000"},
		{12345.6, "12346"}, {-4.567, "-4.57"},
	}
	for _, tt := range tests {
		if got := sig3(tt.v); got != tt.want {
			t.Errorf("sig3(%v): got %q, want %q", tt.v, got, tt.want)
		}
	}
}

func TestRunsTable(t *testing.T) {
	var docs []result.Doc
	for _, name := range []string{"closed", "open", "partial", "zero-success", "client-bound"} {
		docs = append(docs, *fixtures()[name])
	}
	now := docs[0].Start.Add(time.Hour)
	running, lost := *fixtures()["open"], *fixtures()["open"]
	running.RunID, lost.RunID = running.RunID+"-running", lost.RunID+"-lost"
	running.Live = &result.Live{State: result.StateRunning, Heartbeat: now.Add(-time.Minute)}
	lost.Live = &result.Live{State: result.StateRunning, Heartbeat: now.Add(-result.LostAfter - time.Second)}
	docs = append(docs, running, lost)
	var buf bytes.Buffer
	if err := RunsTable(&buf, docs, len(docs)+3, now, "the test store"); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "runs.txt", buf.Bytes())
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
	v, err := NewRunView(d)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	if err := v.Text(&buf); err != nil {
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

// TestScheduleWithoutDropBound: a schedule that drops nothing however
// late (a replay's, whose dropBoundMs is absent) says so, and never
// prints a bound.
func TestScheduleWithoutDropBound(t *testing.T) {
	d := openDoc()
	d.Schedule.DropBound, d.Schedule.Dropped = 0, 0
	var text bytes.Buffer
	if err := Summary(&text, d); err != nil {
		t.Fatal(err)
	}
	md, _, err := renderMarkdown(d, "charts")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "never dropped") || strings.Contains(text.String(), "dropped >") {
		t.Errorf("summary: want \"never dropped\" and no bound:\n%s", text.String())
	}
	if !strings.Contains(string(md), "| 10.0 | never |") {
		t.Errorf("Markdown schedule: want the drop bound \"never\":\n%s", md)
	}
}

// TestReportShowsAReplaysShapesSlowerFirst: the report of any run with a
// replay section has its query shapes, the one whose p99 grew most
// first, a shape without a recorded p99 last, missing figures blank.
func TestReportShowsAReplaysShapesSlowerFirst(t *testing.T) {
	d := openDoc()
	d.Ops = []result.OpStats{op("S1 find shop.orders", 900, 40, 1), op("S2 insert shop.orders", 100, 40, 2), op("S3 ping admin", 10, 40, 1)}
	d.Replay = &result.Replay{Recording: "shop.rec", Speed: 2, Connections: 3, Requests: 1010, SpanMs: 80000, RecordedRate: f(12.6),
		Shapes: []result.ReplayShape{
			{Op: "S1 find shop.orders", Requests: 900, Share: 0.891, Recorded: dist(900, 2), RecordedDocs: result.Ptr(int64(1800)), ReplayedDocs: result.Ptr(int64(1800)), Sent: 900},
			{Op: "S2 insert shop.orders", Requests: 100, Share: 0.099, Recorded: dist(100, 0.5), Sent: 100},
			{Op: "S3 ping admin", Requests: 10, Share: 0.0099, Sent: 10},
		}}
	md, _, err := renderMarkdown(d, "charts")
	if err != nil {
		t.Fatal(err)
	}
	text := string(md)
	at := func(s string) int {
		i := strings.Index(text, s)
		if i < 0 {
			t.Fatalf("Markdown: no %q in\n%s", s, text)
		}
		return i
	}
	text = text[at("Query shapes (replay)"):] // the operations table above names the shapes too
	at("A replay of shop.rec at ×2: 1010 requests on 3 connections")
	// S2's p99 went from 1.85 to 7.4 ms (×4.00), S1's from 7.4 to 3.7 (×0.50).
	s2, s1, s3 := at("| S2 insert shop.orders | 100 |"), at("| S1 find shop.orders | 900 |"), at("| S3 ping admin | 10 |")
	if s2 > s1 || s1 > s3 {
		t.Errorf("Markdown: want S2 (×4), S1 (×0.5), S3 (no recorded p99):\n%s", text)
	}
	if !strings.Contains(text, "| 4.00 |") || !strings.Contains(text, "| 1800 | 1800 |") {
		t.Errorf("Markdown: want S2's ratio 4.00 and S1's documents 1800 recorded and replayed:\n%s", text)
	}
	d.Replay = nil
	if md, _, _ := renderMarkdown(d, "charts"); bytes.Contains(md, []byte("Query shapes")) {
		t.Error("Markdown: a run without a replay shows query shapes")
	}
}
