package report

import (
	"cmp"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/mongobench/mongobench/internal/texttable"
)

// FTDCWindow is a window of a server's FTDC samples as per-second
// figures: each interval between two consecutive samples, its server and
// host figures under the keys of internal/telemetry, kept as columns.
type FTDCWindow struct {
	// Path is the directory (or file) read.
	Path string
	// Versions are the server versions its metadata names, or its
	// samples' serverStatus when no metadata does (VersionsFromSamples).
	Versions            []string
	VersionsFromSamples bool
	// Roles are the roles the figures come from (mongos router, shard
	// member, config server, replica-set member, standalone); Layouts
	// the sample layouts read (flat, role-split).
	Roles, Layouts []string
	// Samples counts the samples read in the window.
	Samples int
	// Start is the first interval's start; ends[i] is interval i's end.
	Start time.Time
	ends  []time.Time
	secs  []float64
	cols  map[string][]float64 // figure → value per interval, NaN where missing
	// checkpointMs are the durations of the checkpoints completed in the
	// window, as the server reported each.
	checkpointMs []float64
}

// FTDCFigure is one figure of an FTDC window: its name, how it is read
// from an interval's server and host figures, its unit and scale.
type FTDCFigure struct {
	Name  string // as the table and --metric name it
	Group string // the chart it is drawn in
	Unit  string
	value func(server, host map[string]float64) (float64, bool)
}

func figureKey(k string, scale float64, host bool) func(server, host map[string]float64) (float64, bool) {
	return func(s, h map[string]float64) (float64, bool) {
		m := s
		if host {
			m = h
		}
		v, ok := m[k]
		return v * scale, ok
	}
}

func cacheShare(k string) func(server, host map[string]float64) (float64, bool) {
	return func(s, _ map[string]float64) (float64, bool) {
		v, ok := s[k]
		m, ok2 := s["cacheMaxBytes"]
		if !ok || !ok2 || m <= 0 {
			return 0, false
		}
		return 100 * v / m, true
	}
}

func figureSum(keys ...string) func(server, host map[string]float64) (float64, bool) {
	return func(s, _ map[string]float64) (float64, bool) {
		var t float64
		found := false
		for _, k := range keys {
			if v, ok := s[k]; ok {
				t, found = t+v, true
			}
		}
		return t, found
	}
}

const perMiB = 1.0 / (1 << 20)

// checkpointDurations names the figure of the checkpoints' own
// durations: one value per checkpoint completed, not per second.
const checkpointDurations = "checkpoint duration"

// FTDCFigures are the figures an FTDC window summarises, those the
// diagnosis reads: operations, server-side latency from opLatencies,
// tickets, the cache's fill and dirty share, checkpoints, eviction by
// application threads, the host's CPU and its data disk.
var FTDCFigures = []FTDCFigure{
	{"operations", "operations/s", "ops/s", figureSum("insertPerSec", "queryPerSec", "updatePerSec", "deletePerSec", "getmorePerSec", "commandPerSec")},
	{"inserts", "operations/s", "ops/s", figureKey("insertPerSec", 1, false)},
	{"queries", "operations/s", "ops/s", figureKey("queryPerSec", 1, false)},
	{"updates", "operations/s", "ops/s", figureKey("updatePerSec", 1, false)},
	{"deletes", "operations/s", "ops/s", figureKey("deletePerSec", 1, false)},
	{"getMores", "operations/s", "ops/s", figureKey("getmorePerSec", 1, false)},
	{"commands", "operations/s", "ops/s", figureKey("commandPerSec", 1, false)},
	{"read latency", "server latency (mean of each second's operations)", "ms", figureKey("readLatencyMs", 1, false)},
	{"write latency", "server latency (mean of each second's operations)", "ms", figureKey("writeLatencyMs", 1, false)},
	{"command latency", "server latency (mean of each second's operations)", "ms", figureKey("commandLatencyMs", 1, false)},
	{"tickets out", "tickets and queue", "", figureKey("ticketsOut", 1, false)},
	{"tickets", "tickets and queue", "", figureKey("ticketsTotal", 1, false)},
	{"operations queued", "tickets and queue", "", figureKey("queuedOps", 1, false)},
	{"cache fill", "cache (% of its maximum)", "%", cacheShare("cacheBytes")},
	{"cache dirty", "cache (% of its maximum)", "%", cacheShare("cacheDirtyBytes")},
	{"app-thread eviction", "eviction by application threads", "pages/s", figureKey("appEvictionPagesPerSec", 1, false)},
	{"checkpoint running", "", "1 = yes", figureKey("checkpointRunning", 1, false)},
	{"checkpoints completed", "", "per s", figureKey("checkpoints", 1, false)},
	{checkpointDurations, "", "ms", nil},
	{"host CPU user", "host CPU (% of all cores)", "%", figureKey("cpuUserPct", 1, true)},
	{"host CPU kernel", "host CPU (% of all cores)", "%", figureKey("cpuKernelPct", 1, true)},
	{"host iowait", "host CPU (% of all cores)", "%", figureKey("cpuIowaitPct", 1, true)},
	{"host steal", "host CPU (% of all cores)", "%", figureKey("cpuStealPct", 1, true)},
	{"disk reads", "disk MB/s", "MB/s", figureKey("diskReadBytesPerSec", perMiB, true)},
	{"disk writes", "disk MB/s", "MB/s", figureKey("diskWriteBytesPerSec", perMiB, true)},
	{"disk IOPS", "disk IOPS", "IOPS", figureKey("diskIops", 1, true)},
	{"disk utilisation", "disk utilisation and queue", "%", figureKey("diskUtilPct", 1, true)},
	{"disk queue", "disk utilisation and queue", "", figureKey("diskQueue", 1, true)},
	{"disk wait per I/O", "disk wait per I/O", "ms", figureKey("diskWaitMsPerIO", 1, true)},
	{"memory available", "", "MB", figureKey("memAvailableBytes", perMiB, true)},
}

// FTDCFigureNames lists the figures' names, for --metric's help and
// errors.
func FTDCFigureNames() []string {
	out := make([]string, len(FTDCFigures))
	for i, f := range FTDCFigures {
		out[i] = f.Name
	}
	return out
}

// CheckFTDCFigures says which of names is not a figure's name, and
// what is valid.
func CheckFTDCFigures(names []string) error {
	valid := FTDCFigureNames()
	for _, n := range names {
		if !slices.Contains(valid, n) {
			return fmt.Errorf("%q is not a figure; valid: %s", n, strings.Join(valid, ", "))
		}
	}
	return nil
}

// Add appends the interval [start, end] with its figures.
func (w *FTDCWindow) Add(start, end time.Time, server, host map[string]float64) {
	if w.cols == nil {
		w.cols = map[string][]float64{}
	}
	if len(w.ends) == 0 {
		w.Start = start
	}
	n := len(w.ends)
	w.ends = append(w.ends, end)
	w.secs = append(w.secs, end.Sub(start).Seconds())
	for _, f := range FTDCFigures {
		if f.value == nil {
			continue
		}
		v, ok := f.value(server, host)
		col := w.cols[f.Name]
		if !ok {
			if col != nil {
				w.cols[f.Name] = append(col, math.NaN())
			}
			continue
		}
		if col == nil {
			col = make([]float64, n, n+1)
			for i := range col {
				col[i] = math.NaN()
			}
		}
		w.cols[f.Name] = append(col, v)
	}
	if ms, ok := server["checkpointMs"]; ok {
		w.checkpointMs = append(w.checkpointMs, ms)
	}
}

// End is the last interval's end (the zero time when there is none).
func (w *FTDCWindow) End() time.Time {
	if len(w.ends) == 0 {
		return time.Time{}
	}
	return w.ends[len(w.ends)-1]
}

// Intervals is how many intervals the window holds.
func (w *FTDCWindow) Intervals() int { return len(w.ends) }

// FTDCStat is one figure of the window summarised: how many values it
// has (seconds, or checkpoints for their durations), and their minimum,
// median, 99th percentile and maximum (nearest rank over the values:
// the figures of the seconds themselves, never an average of
// percentiles); nil when there is no value.
type FTDCStat struct {
	Name   string   `json:"name"`
	Unit   string   `json:"unit,omitempty"`
	Values int      `json:"values"`
	Min    *float64 `json:"min"`
	Median *float64 `json:"median"`
	P99    *float64 `json:"p99"`
	Max    *float64 `json:"max"`
}

// FTDCSummary is what `mongobench ftdc` prints: the window, the server's
// version, the number of samples and each figure's statistics.
type FTDCSummary struct {
	Path     string    `json:"path"`
	From     time.Time `json:"from"`
	To       time.Time `json:"to"`
	Versions []string  `json:"serverVersions"`
	// VersionsFromSamples: no metadata document named a version, so the
	// samples' serverStatus.version did.
	VersionsFromSamples bool       `json:"versionsFromSamples,omitempty"`
	Roles               []string   `json:"roles"`
	Layouts             []string   `json:"layouts"`
	Samples             int        `json:"samples"`
	Intervals           int        `json:"intervals"`
	Figures             []FTDCStat `json:"figures"`
}

// Summary summarises the figures named (every figure when none is).
func (w *FTDCWindow) Summary(names []string) FTDCSummary {
	s := FTDCSummary{Path: w.Path, From: w.Start, To: w.End(), Versions: w.Versions, VersionsFromSamples: w.VersionsFromSamples,
		Roles: w.Roles, Layouts: w.Layouts, Samples: w.Samples, Intervals: len(w.ends)}
	for _, f := range FTDCFigures {
		if len(names) > 0 && !slices.Contains(names, f.Name) {
			continue
		}
		vals := w.checkpointMs
		if f.value != nil {
			vals = w.cols[f.Name]
		}
		s.Figures = append(s.Figures, ftdcStats(f, vals))
	}
	return s
}

func ftdcStats(f FTDCFigure, col []float64) FTDCStat {
	st := FTDCStat{Name: f.Name, Unit: f.Unit}
	vals := make([]float64, 0, len(col))
	for _, v := range col {
		if !math.IsNaN(v) {
			vals = append(vals, v)
		}
	}
	if len(vals) == 0 {
		return st
	}
	slices.Sort(vals)
	rank := func(p float64) *float64 {
		i := int(math.Ceil(p/100*float64(len(vals)))) - 1
		v := vals[min(max(i, 0), len(vals)-1)]
		return &v
	}
	st.Values = len(vals)
	st.Min, st.Median, st.P99, st.Max = &vals[0], rank(50), rank(99), &vals[len(vals)-1]
	return st
}

// window says when the window starts and ends, and how long it is.
func (s FTDCSummary) window() string {
	if s.Intervals == 0 {
		return "no samples in the window"
	}
	return fmt.Sprintf("%s to %s (%s)", stamp(s.From), stamp(s.To), s.To.Sub(s.From).Round(time.Second))
}

func (s FTDCSummary) version() string {
	if len(s.Versions) == 0 {
		return "not in the files read"
	}
	if s.VersionsFromSamples {
		return strings.Join(s.Versions, ", ") + " (from the samples' serverStatus; the files hold no metadata)"
	}
	return strings.Join(s.Versions, ", ")
}

// role says which role the figures are from, and in which layout.
func (s FTDCSummary) role() string {
	if len(s.Roles) == 0 {
		return "not in the files read"
	}
	out := strings.Join(s.Roles, ", ")
	if slices.Contains(s.Layouts, "role-split") {
		out += " (8.0's role-split layout: its serverStatus under " + map[bool]string{true: "router", false: "shard"}[slices.Contains(s.Roles, "mongos router")] + ", systemMetrics under common)"
	}
	return out
}

// table is the figures' table; the cells say missing as c does.
func (s FTDCSummary) table(c texttable.Cells) *texttable.Table {
	t := texttable.New("figure", "unit", ">values", ">min", ">median", ">p99", ">max")
	for _, f := range s.Figures {
		t.Add(f.Name, f.Unit, fmt.Sprint(f.Values), c.Num(f.Min), c.Num(f.Median), c.Num(f.P99), c.Num(f.Max))
	}
	return t
}

// ftdcNote says what the figures are.
const ftdcNote = "Each value is one interval between two consecutive samples (one second as the server samples): " +
	"rates over the samples' own start times, gauges at the interval's end; checkpoint durations are one value per checkpoint completed, " +
	"as the server timed it. Percentiles are by nearest rank over those values; a figure the server or host does not report has no value, never zero."

// WriteText prints the summary for a terminal.
func (s FTDCSummary) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "FTDC %s\n", s.Path)
	fmt.Fprintf(w, "window: %s\n", s.window())
	fmt.Fprintf(w, "server version: %s\n", s.version())
	fmt.Fprintf(w, "figures from: %s\n", s.role())
	fmt.Fprintf(w, "samples: %d (%d intervals)\n\n", s.Samples, s.Intervals)
	return s.table(texttable.TextCells).WriteText(w, true)
}

// WriteMarkdown writes the summary as Markdown, the HTML page's text.
func (s FTDCSummary) WriteMarkdown(w io.Writer) error {
	fmt.Fprintf(w, "# FTDC: %s\n\n", texttable.Escape(s.Path))
	fmt.Fprintf(w, "- window: %s\n- server version: %s\n- figures from: %s\n- samples: %d (%d intervals)\n\n", s.window(), texttable.Escape(s.version()), texttable.Escape(s.role()), s.Samples, s.Intervals)
	if err := s.table(texttable.MarkdownCells).WriteMarkdown(w); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%s\n", ftdcNote)
	return nil
}

// ftdcIntro introduces an FTDC window's charts.
const ftdcIntro = "The same figures second by second, on one time axis (the cursors move together); the seconds in which a checkpoint ran are shaded. " +
	"Drag to zoom, double-click to zoom out, click a legend entry to hide its line."

// View is the summary as a page: the window, the server's version and
// the samples, the figures' table, then its charts over time.
func (s FTDCSummary) View(charts []TimeChart) *StudyView {
	v := &StudyView{Title: "FTDC: " + s.Path, Name: "ftdc",
		Intro:   []Block{{Items: []string{"window: " + s.window(), "server version: " + s.version(), "figures from: " + s.role(), fmt.Sprintf("samples: %d (%d intervals)", s.Samples, s.Intervals)}}},
		Verdict: []Block{{Table: s.table(texttable.MarkdownCells)}, {Text: ftdcNote}},
	}
	for i := range charts {
		c := StudyChart{Name: charts[i].Name, Time: &charts[i]}
		if i == 0 {
			c.Caption = ftdcIntro
		}
		v.Charts = append(v.Charts, c)
	}
	return v
}

// maxChartPoints is the most points a chart of the window draws: a
// longer window is drawn in buckets of whole seconds, each point the
// highest value of its bucket, so a burst is never flattened.
const maxChartPoints = 3000

// Charts are the window's charts over time, one per group of figures
// that has values, the seconds in which a checkpoint ran shaded. Nil
// without intervals.
func (w *FTDCWindow) Charts(names []string) []TimeChart {
	if len(w.ends) == 0 {
		return nil
	}
	step := max(1, (len(w.ends)+maxChartPoints-1)/maxChartPoints)
	var x []float64
	for i := 0; i < len(w.ends); i += step {
		j := min(i+step, len(w.ends)) - 1
		x = append(x, w.ends[j].Sub(w.Start).Seconds())
	}
	bucket := func(col []float64) []*float64 {
		out := make([]*float64, len(x))
		for b := range out {
			for i := b * step; i < min((b+1)*step, len(col)); i++ {
				if v := col[i]; !math.IsNaN(v) && (out[b] == nil || v > *out[b]) {
					out[b] = &v
				}
			}
		}
		return out
	}
	shade := w.checkpointSpans()
	xlabel := fmt.Sprintf("seconds from %s", stamp(w.Start))
	if step > 1 {
		xlabel += fmt.Sprintf(" (each point the highest of %d s)", step)
	}
	var out []TimeChart
	for _, f := range FTDCFigures {
		if f.Group == "" || (len(names) > 0 && !slices.Contains(names, f.Name)) || w.cols[f.Name] == nil {
			continue
		}
		i := slices.IndexFunc(out, func(c TimeChart) bool { return c.Title == f.Group })
		if i < 0 {
			out = append(out, TimeChart{Name: "ftdc", Title: f.Group, YLabel: cmp.Or(f.Unit, f.Group), Unit: f.Unit, X: x, Shade: shade, XLabel: xlabel})
			i = len(out) - 1
		}
		out[i].Lines = append(out[i].Lines, Line{Label: f.Name, Y: bucket(w.cols[f.Name]), Color: len(out[i].Lines)})
	}
	return out
}

// maxShaded is the most checkpoint spans a chart shades; a longer
// window's charts shade none rather than bury the lines.
const maxShaded = 500

// checkpointSpans are the x ranges in which a checkpoint ran.
func (w *FTDCWindow) checkpointSpans() [][2]float64 {
	col := w.cols["checkpoint running"]
	var out [][2]float64
	for i, v := range col {
		if math.IsNaN(v) || v < 0.5 {
			continue
		}
		to := w.ends[i].Sub(w.Start).Seconds()
		from := to - w.secs[i]
		if n := len(out); n > 0 && out[n-1][1] >= from-1e-9 {
			out[n-1][1] = to
			continue
		}
		out = append(out, [2]float64{from, to})
	}
	if len(out) > maxShaded {
		return nil
	}
	return out
}
