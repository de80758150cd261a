package ftdcwindow

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/texttable"
)

// Window is a window of a server's FTDC samples as figures: each
// interval between two consecutive samples, its server and host figures
// under the keys of internal/telemetry, folded in as it is added. Its
// memory is bounded whatever the window's length: each figure keeps its
// values exactly up to ftdcExact of them, then to three significant
// figures (its minimum and maximum exact); the charts keep at most
// 2 × maxChartPoints points, each the highest of its intervals.
type Window struct {
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
	// Torn says where files end early (their documents before are read).
	Torn []string
	// Samples counts the samples read in the window; First and Last are
	// the first's and the last's times.
	Samples     int
	First, Last time.Time
	// Stale counts the samples at or before the previous one's time:
	// read, but no interval.
	Stale int

	intervals   int
	stats       map[string]*figureStats
	ckpt        figureStats
	longest     []Checkpoint
	periods     map[float64]int // spacing (s, two significant figures) → intervals
	gaps        int
	longestGaps []Gap
	chart       chartBuckets
	spans       [][2]time.Time // when a checkpoint ran
	tooMany     bool           // more spans than maxShaded
	peaks       map[string]peak
	exhausted   int       // intervals with every ticket out
	exhaustedAt time.Time // the first of them
}

// peak is a figure's highest value in the window and the end of the
// interval that had it.
type peak struct {
	v  float64
	at time.Time
}

// Finding is one thing that stands out in the window: what, its
// evidence with its time, and how far above the window's own normal it
// is (Score: the peak over the window's median, or over its threshold).
type Finding struct {
	What     string    `json:"what"`
	At       time.Time `json:"at"`
	Evidence string    `json:"evidence"`
	Score    float64   `json:"score"`
}

// Checkpoint is one checkpoint completed in the window: its duration
// as the server timed it, when it completed (by End, the sample that saw
// it complete) and when it started (End less its duration).
type Checkpoint struct {
	Start time.Time `json:"start"`
	End   time.Time `json:"end"`
	Ms    float64   `json:"ms"`
}

// Gap is a pause between two consecutive samples too long to be one
// interval: the host asleep, the server down, its collector stalled.
type Gap struct {
	From time.Time `json:"from"`
	To   time.Time `json:"to"`
}

// Period is a sampling period found in the window and how many
// intervals had it.
type Period struct {
	Seconds   float64 `json:"seconds"`
	Intervals int     `json:"intervals"`
}

// How much of the window is listed.
const (
	maxLongest = 5
	maxGaps    = 5
	// ftdcExact is how many values of a figure are kept exactly: two
	// days of one-second intervals.
	ftdcExact = 172_800
)

// figureStats are one figure's values: exact while they are few, then
// counted to three significant figures.
type figureStats struct {
	n        int
	min, max float64
	exact    []float64
	counts   map[float64]int
}

func (f *figureStats) add(v float64) {
	if f.n == 0 || v < f.min {
		f.min = v
	}
	if f.n == 0 || v > f.max {
		f.max = v
	}
	f.n++
	if f.counts == nil && len(f.exact) < ftdcExact {
		f.exact = append(f.exact, v)
		return
	}
	if f.counts == nil {
		f.counts = map[float64]int{}
		for _, x := range f.exact {
			f.counts[sigFigures(x)]++
		}
		f.exact = nil
	}
	f.counts[sigFigures(v)]++
}

// sigFigures rounds v to three significant figures.
func sigFigures(v float64) float64 {
	if v == 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return v
	}
	p := math.Pow(10, 2-math.Floor(math.Log10(math.Abs(v))))
	return math.Round(v*p) / p
}

// stat summarises the values: nearest-rank percentiles over them (over
// their three-significant-figure values beyond ftdcExact), the minimum
// and maximum exact.
func (f *figureStats) stat(name, unit string) Stat {
	st := Stat{Name: name, Unit: unit}
	if f == nil || f.n == 0 {
		return st
	}
	st.Values = f.n
	lo, hi := f.min, f.max
	st.Min, st.Max = &lo, &hi
	rank := func(p float64) int { return min(max(int(math.Ceil(p/100*float64(f.n)))-1, 0), f.n-1) }
	if f.counts == nil {
		vals := slices.Clone(f.exact)
		slices.Sort(vals)
		med, p99 := vals[rank(50)], vals[rank(99)]
		st.Median, st.P99 = &med, &p99
		return st
	}
	st.Rounded = true
	keys := slices.Sorted(maps.Keys(f.counts))
	at := func(r int) *float64 {
		seen := 0
		for _, k := range keys {
			if seen += f.counts[k]; seen > r {
				v := k
				return &v
			}
		}
		v := keys[len(keys)-1]
		return &v
	}
	st.Median, st.P99 = at(rank(50)), at(rank(99))
	return st
}

// chartBuckets are the charts' points, folded as intervals come: each
// bucket the highest value of step intervals; when there are more than
// 2 × maxChartPoints buckets, neighbours merge and step doubles.
type chartBuckets struct {
	step int
	end  []time.Time // each bucket's last interval's end
	n    []int       // intervals in each bucket
	gap  []bool      // a gap follows the bucket
	cols map[string][]float64
}

func (c *chartBuckets) add(end time.Time, vals map[string]float64) {
	if c.step == 0 {
		c.step, c.cols = 1, map[string][]float64{}
	}
	last := len(c.end) - 1
	if last < 0 || c.n[last] >= c.step || c.gap[last] {
		c.end, c.n, c.gap = append(c.end, end), append(c.n, 0), append(c.gap, false)
		for k, col := range c.cols {
			c.cols[k] = append(col, math.NaN())
		}
		last++
	}
	c.end[last] = end
	c.n[last]++
	for k, v := range vals {
		col, ok := c.cols[k]
		if !ok {
			col = make([]float64, last+1)
			for i := range col {
				col[i] = math.NaN()
			}
			c.cols[k] = col
		}
		if math.IsNaN(col[last]) || v > col[last] {
			col[last] = v
		}
	}
	if len(c.end) > 2*maxChartPoints {
		c.halve()
	}
}

// halve merges each two neighbouring buckets.
func (c *chartBuckets) halve() {
	n := (len(c.end) + 1) / 2
	for i := range n {
		j := min(2*i+1, len(c.end)-1)
		c.end[i], c.n[i], c.gap[i] = c.end[j], c.n[2*i]+c.n[j]*b2i(j != 2*i), c.gap[2*i] || c.gap[j]
		for _, col := range c.cols {
			a, b := col[2*i], col[j]
			if math.IsNaN(a) || b > a {
				a = b
			}
			col[i] = a
		}
	}
	c.end, c.n, c.gap = c.end[:n], c.n[:n], c.gap[:n]
	for k, col := range c.cols {
		c.cols[k] = col[:n]
	}
	c.step *= 2
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// StaleSample counts a sample at or before the previous one's time.
func (w *Window) StaleSample(time.Time) { w.Stale++ }

// Sample counts a sample of the window at its time.
func (w *Window) Sample(at time.Time) {
	if w.Samples == 0 {
		w.First = at
	}
	w.Samples++
	w.Last = at
}

// Gap notes a pause between two consecutive samples too long to be an
// interval: it is no value of any figure, and the charts break there.
func (w *Window) Gap(from, to time.Time) {
	w.gaps++
	w.longestGaps = append(w.longestGaps, Gap{From: from, To: to})
	slices.SortStableFunc(w.longestGaps, func(a, b Gap) int { return cmp.Compare(b.To.Sub(b.From), a.To.Sub(a.From)) })
	if len(w.longestGaps) > maxGaps {
		w.longestGaps = w.longestGaps[:maxGaps]
	}
	if n := len(w.chart.gap); n > 0 {
		w.chart.gap[n-1] = true
	}
}

// Figure is one figure of an FTDC window: its name, how it is read
// from an interval's server and host figures, its unit and scale.
type Figure struct {
	Name  string // as the table and --metric name it
	Group string // the chart it is drawn in
	Unit  string
	value func(server, host map[string]float64) (float64, bool)
	// Absent says why a window has no value of it, when more than
	// "not in these files" can be the reason.
	Absent string
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

// noOps is why a latency has no value: no such operation, or no
// opLatencies (absent in some roles).
const noOps = "no such operation, or not in these files"

// checkpointDurations names the figure of the checkpoints' own
// durations: one value per checkpoint completed, not per second.
const checkpointDurations = "checkpoint duration"

// FTDCFigures are the figures an FTDC window summarises, those the
// diagnosis reads: operations, server-side latency from opLatencies,
// tickets, the cache's fill and dirty share, checkpoints, eviction by
// application threads, the host's CPU and its data disk.
var FTDCFigures = []Figure{
	{"operations", "operations/s", "ops/s", figureSum("insertPerSec", "queryPerSec", "updatePerSec", "deletePerSec", "getmorePerSec", "commandPerSec"), ""},
	{"inserts", "operations/s", "ops/s", figureKey("insertPerSec", 1, false), ""},
	{"queries", "operations/s", "ops/s", figureKey("queryPerSec", 1, false), ""},
	{"updates", "operations/s", "ops/s", figureKey("updatePerSec", 1, false), ""},
	{"deletes", "operations/s", "ops/s", figureKey("deletePerSec", 1, false), ""},
	{"getMores", "operations/s", "ops/s", figureKey("getmorePerSec", 1, false), ""},
	{"commands", "operations/s", "ops/s", figureKey("commandPerSec", 1, false), ""},
	{"read latency", "server latency (mean of each second's operations)", "ms", figureKey("readLatencyMs", 1, false), noOps},
	{"write latency", "server latency (mean of each second's operations)", "ms", figureKey("writeLatencyMs", 1, false), noOps},
	{"command latency", "server latency (mean of each second's operations)", "ms", figureKey("commandLatencyMs", 1, false), noOps},
	{"tickets out", "tickets and queue", "", figureKey("ticketsOut", 1, false), ""},
	{"tickets", "tickets and queue", "", figureKey("ticketsTotal", 1, false), ""},
	{"operations queued", "tickets and queue", "", figureKey("queuedOps", 1, false), ""},
	{"cache fill", "cache (% of its maximum)", "%", cacheShare("cacheBytes"), ""},
	{"cache dirty", "cache (% of its maximum)", "%", cacheShare("cacheDirtyBytes"), ""},
	{"app-thread eviction", "eviction by application threads", "pages/s", figureKey("appEvictionPagesPerSec", 1, false), ""},
	{"checkpoint running", "", "1 = yes", figureKey("checkpointRunning", 1, false), ""},
	{"checkpoints completed", "", "per s", figureKey("checkpoints", 1, false), ""},
	{checkpointDurations, "", "ms", nil, "no checkpoint completed in the window, or not in these files"},
	{"host CPU user", "host CPU (% of all cores)", "%", figureKey("cpuUserPct", 1, true), ""},
	{"host CPU kernel", "host CPU (% of all cores)", "%", figureKey("cpuKernelPct", 1, true), ""},
	{"host iowait", "host CPU (% of all cores)", "%", figureKey("cpuIowaitPct", 1, true), ""},
	{"host steal", "host CPU (% of all cores)", "%", figureKey("cpuStealPct", 1, true), ""},
	{"disk reads", "disk MB/s", "MB/s", figureKey("diskReadBytesPerSec", perMiB, true), ""},
	{"disk writes", "disk MB/s", "MB/s", figureKey("diskWriteBytesPerSec", perMiB, true), ""},
	{"disk IOPS", "disk IOPS", "IOPS", figureKey("diskIops", 1, true), ""},
	{"disk utilisation", "disk utilisation and queue", "%", figureKey("diskUtilPct", 1, true), ""},
	{"disk queue", "disk utilisation and queue", "", figureKey("diskQueue", 1, true), ""},
	{"disk wait per I/O", "disk wait per I/O", "ms", figureKey("diskWaitMsPerIO", 1, true), ""},
	{"memory available", "", "MB", figureKey("memAvailableBytes", perMiB, true), ""},
	{"replication lag", "replication lag (the most any secondary lags)", "s", figureKey("replLagSecs", 1, false), "not in these files (a standalone, a mongos), or no primary in the samples"},
}

// FigureNames lists the figures' names, for --metric's help and
// errors.
func FigureNames() []string {
	out := make([]string, len(FTDCFigures))
	for i, f := range FTDCFigures {
		out[i] = f.Name
	}
	return out
}

// CheckFigures says which of names is not a figure's name, and
// what is valid.
func CheckFigures(names []string) error {
	valid := FigureNames()
	for _, n := range names {
		if !slices.Contains(valid, n) {
			return fmt.Errorf("%q is not a figure; valid: %s", n, strings.Join(valid, ", "))
		}
	}
	return nil
}

// Add folds in the interval [start, end] with its figures.
func (w *Window) Add(start, end time.Time, server, host map[string]float64) {
	if w.stats == nil {
		w.stats, w.periods = map[string]*figureStats{}, map[float64]int{}
	}
	w.intervals++
	w.periods[sigFigures2(end.Sub(start).Seconds())]++
	vals := make(map[string]float64, len(FTDCFigures))
	for _, f := range FTDCFigures {
		if f.value == nil {
			continue
		}
		v, ok := f.value(server, host)
		if !ok {
			continue
		}
		st := w.stats[f.Name]
		if st == nil {
			st = &figureStats{}
			w.stats[f.Name] = st
		}
		st.add(v)
		vals[f.Name] = v
	}
	w.chart.add(end, vals)
	if w.peaks == nil {
		w.peaks = map[string]peak{}
	}
	note := func(k string, v float64) {
		if p, ok := w.peaks[k]; !ok || v > p.v {
			w.peaks[k] = peak{v, end}
		}
	}
	for k, v := range vals {
		note(k, v)
	}
	if v, ok := server["connectionsCreatedPerSec"]; ok {
		note("connections created", v)
	}
	if out, ok := server["ticketsOut"]; ok {
		if total, ok := server["ticketsTotal"]; ok && total > 0 && out >= total {
			if w.exhausted == 0 {
				w.exhaustedAt = end
			}
			w.exhausted++
		}
	}
	if on, ok := server["checkpointRunning"]; ok && on >= 0.5 && !w.tooMany {
		if n := len(w.spans); n > 0 && !w.spans[n-1][1].Before(start) {
			w.spans[n-1][1] = end
		} else if n < maxShaded {
			w.spans = append(w.spans, [2]time.Time{start, end})
		} else {
			w.tooMany, w.spans = true, nil
		}
	}
	if ms, ok := server["checkpointMs"]; ok {
		w.ckpt.add(ms)
		c := Checkpoint{Start: end.Add(-time.Duration(ms * float64(time.Millisecond))), End: end, Ms: ms}
		i, _ := slices.BinarySearchFunc(w.longest, c, func(a, b Checkpoint) int { return cmp.Compare(b.Ms, a.Ms) })
		if i < maxLongest {
			w.longest = slices.Insert(w.longest, i, c)
			w.longest = w.longest[:min(len(w.longest), maxLongest)]
		}
	}
}

// What stands out is judged against these: a figure's peak stands out
// when it is standOut times its window's median or more (and above its
// floor); disk utilisation from diskBusy %, replication lag from lagSecs.
const (
	standOut  = 3.0
	diskBusy  = 90.0
	lagSecs   = 10.0
	maxStands = 7
)

// standsOut is what stands out in the window, each with its evidence
// and time, scored against the window's own normal (its median), most
// first: the busiest interval, the longest checkpoint, disk saturation,
// tickets exhausted, eviction by application threads, replication lag,
// a storm of new connections.
func (w *Window) standsOut() []Finding {
	var out []Finding
	median := func(name string) (float64, bool) {
		st := w.stats[name].stat(name, "")
		if st.Median == nil {
			return 0, false
		}
		return *st.Median, true
	}
	ratio := func(v, base float64) float64 {
		if base <= 0 {
			return math.Inf(1)
		}
		return v / base
	}
	if p, ok := w.peaks["operations"]; ok && p.v > 0 {
		m, _ := median("operations")
		if r := ratio(p.v, m); r >= standOut {
			out = append(out, Finding{"the busiest interval", p.at, fmt.Sprintf("%s ops/s at %s, %s× the window's median of %s", texttable.Sig3(p.v), sampleStamp(p.at), texttable.Sig3(min(r, 1e6)), texttable.Sig3(m)), r})
		}
	}
	if len(w.longest) > 0 {
		c := w.longest[0]
		m := *w.ckpt.stat("", "").Median
		if r := ratio(c.Ms, m); r >= standOut || c.Ms >= 1000 {
			out = append(out, Finding{"the longest checkpoint", c.Start, fmt.Sprintf("%s ms from %s (%s)", texttable.Sig3(c.Ms), sampleStamp(c.Start), ckptNorm(w.ckpt.n, m)), max(ratio(c.Ms, m), c.Ms/1000)})
		}
	}
	if p, ok := w.peaks["disk utilisation"]; ok && p.v >= diskBusy {
		out = append(out, Finding{"disk saturated", p.at, fmt.Sprintf("utilisation %s%% at %s", texttable.Sig3(p.v), sampleStamp(p.at)), p.v / diskBusy * standOut})
	}
	if w.exhausted > 0 {
		out = append(out, Finding{"tickets exhausted", w.exhaustedAt, fmt.Sprintf("every execution ticket out in %d intervals, from %s", w.exhausted, sampleStamp(w.exhaustedAt)), standOut + float64(w.exhausted)})
	}
	if p, ok := w.peaks["app-thread eviction"]; ok && p.v > 0 {
		m, _ := median("app-thread eviction")
		out = append(out, Finding{"eviction by application threads", p.at, fmt.Sprintf("%s pages/s at %s (median %s)", texttable.Sig3(p.v), sampleStamp(p.at), texttable.Sig3(m)), max(standOut, ratio(p.v, m))})
	}
	if p, ok := w.peaks["replication lag"]; ok && p.v >= lagSecs {
		out = append(out, Finding{"replication lag", p.at, fmt.Sprintf("a secondary %s s behind at %s", texttable.Sig3(p.v), sampleStamp(p.at)), p.v / lagSecs * standOut})
	}
	if p, ok := w.peaks["connections created"]; ok && p.v >= 10 {
		if r := ratio(p.v, 1); r >= 10*standOut {
			out = append(out, Finding{"a storm of new connections", p.at, fmt.Sprintf("%s connections opened a second at %s", texttable.Sig3(p.v), sampleStamp(p.at)), r / 10})
		}
	}
	slices.SortStableFunc(out, func(a, b Finding) int { return cmp.Compare(b.Score, a.Score) })
	if len(out) > maxStands {
		out = out[:maxStands]
	}
	for i := range out {
		if math.IsInf(out[i].Score, 1) {
			out[i].Score = math.MaxFloat64 // JSON has no infinity
		}
	}
	return out
}

// ckptNorm is the window's normal checkpoint.
func ckptNorm(n int, median float64) string {
	if n == 1 {
		return "the window's only checkpoint"
	}
	return fmt.Sprintf("the window's %d checkpoints: median %s ms", n, texttable.Sig3(median))
}

// sigFigures2 rounds a spacing in seconds to two significant figures:
// a period, whatever the milliseconds of jitter.
func sigFigures2(v float64) float64 {
	if v <= 0 {
		return v
	}
	p := math.Pow(10, 1-math.Floor(math.Log10(v)))
	return math.Round(v*p) / p
}

// Intervals is how many intervals the window holds.
func (w *Window) Intervals() int { return w.intervals }

// Stat is one figure of the window summarised: how many values it
// has (seconds, or checkpoints for their durations), and their minimum,
// median, 99th percentile and maximum (nearest rank over the values:
// the figures of the seconds themselves, never an average of
// percentiles); nil when there is no value.
type Stat struct {
	Name   string   `json:"name"`
	Unit   string   `json:"unit,omitempty"`
	Values int      `json:"values"`
	Min    *float64 `json:"min"`
	Median *float64 `json:"median"`
	P99    *float64 `json:"p99"`
	Max    *float64 `json:"max"`
	// Rounded: the window held more than ftdcExact values, so its
	// median and p99 are to three significant figures.
	Rounded bool `json:"rounded,omitempty"`
	// Absent says why there is no value (Values 0).
	Absent string `json:"absent,omitempty"`
}

// Summary is what `mongobench ftdc` prints: the window, the server's
// version and role, the samples, the sampling periods and gaps, the
// longest checkpoints, and each figure's statistics.
type Summary struct {
	Path     string    `json:"path"`
	From     time.Time `json:"from"`
	To       time.Time `json:"to"`
	Versions []string  `json:"serverVersions"`
	// VersionsFromSamples: no metadata document named a version, so the
	// samples' serverStatus.version did.
	VersionsFromSamples bool     `json:"versionsFromSamples,omitempty"`
	Roles               []string `json:"roles"`
	Layouts             []string `json:"layouts"`
	Samples             int      `json:"samples"`
	StaleSamples        int      `json:"staleSamples,omitempty"`
	Intervals           int      `json:"intervals"`
	Periods             []Period `json:"periods"`
	Gaps                int      `json:"gaps"`
	LongestGaps         []Gap    `json:"longestGaps"`
	// Checkpoints are the window's longest checkpoints, longest first.
	Checkpoints []Checkpoint `json:"longestCheckpoints"`
	Torn        []string     `json:"torn,omitempty"`
	// StandsOut is what stands out in the window, most first.
	StandsOut []Finding `json:"standsOut"`
	Figures   []Stat    `json:"figures"`
}

// Summary summarises the figures named (every figure when none is).
func (w *Window) Summary(names []string) Summary {
	s := Summary{Path: w.Path, From: w.First, To: w.Last, Versions: w.Versions, VersionsFromSamples: w.VersionsFromSamples,
		Roles: w.Roles, Layouts: w.Layouts, Samples: w.Samples, StaleSamples: w.Stale, Intervals: w.intervals, Gaps: w.gaps,
		LongestGaps: w.longestGaps, Checkpoints: w.longest, Torn: w.Torn}
	for _, p := range slices.Sorted(maps.Keys(w.periods)) {
		// a period is one that a hundredth of the intervals have
		if n := w.periods[p]; n*100 >= w.intervals {
			s.Periods = append(s.Periods, Period{Seconds: p, Intervals: n})
		}
	}
	s.StandsOut = w.standsOut()
	for _, f := range FTDCFigures {
		if len(names) > 0 && !slices.Contains(names, f.Name) {
			continue
		}
		var st Stat
		if f.value == nil {
			st = w.ckpt.stat(f.Name, f.Unit)
		} else {
			st = w.stats[f.Name].stat(f.Name, f.Unit)
		}
		if st.Values == 0 {
			st.Absent = cmp.Or(f.Absent, "not in these files")
		}
		s.Figures = append(s.Figures, st)
	}
	return s
}

// window says when the window starts and ends, and how long it is.
func (s Summary) window() string {
	if s.Samples == 0 {
		return "no samples in the window"
	}
	return fmt.Sprintf("%s to %s (%s)", sampleStamp(s.From), sampleStamp(s.To), s.To.Sub(s.From).Round(time.Second))
}

// sampleStamp is a sample's time: year 1 is a time like another.
func sampleStamp(t time.Time) string { return t.UTC().Format("2006-01-02 15:04:05 UTC") }

// standsOutLines are the findings, one a line.
func (s Summary) standsOutLines() []string {
	if len(s.StandsOut) == 0 {
		return []string{"nothing: no figure's peak is " + texttable.Sig3(standOut) + "× its window's median, no checkpoint of a second, no disk at " + texttable.Sig3(diskBusy) + "%, no tickets exhausted, no eviction by application threads, no lag of " + texttable.Sig3(lagSecs) + " s"}
	}
	out := make([]string, len(s.StandsOut))
	for i, f := range s.StandsOut {
		out[i] = f.What + ": " + f.Evidence
	}
	return out
}

// samples says how many samples and intervals the window has.
func (s Summary) samples() string {
	out := fmt.Sprintf("%d (%d intervals)", s.Samples, s.Intervals)
	if s.StaleSamples > 0 {
		out += fmt.Sprintf("; %d more at or before the previous sample's time, no interval", s.StaleSamples)
	}
	return out
}

// periods says the sampling periods found and the gaps.
func (s Summary) periods() string {
	if s.Intervals == 0 {
		return "no two consecutive samples make an interval"
	}
	var parts []string
	for _, p := range s.Periods {
		parts = append(parts, fmt.Sprintf("%s s (%d intervals)", texttable.Sig3(p.Seconds), p.Intervals))
	}
	out := strings.Join(parts, ", ")
	if s.Gaps > 0 {
		var gs []string
		for _, g := range s.LongestGaps {
			gs = append(gs, fmt.Sprintf("%s for %s", sampleStamp(g.From), g.To.Sub(g.From).Round(time.Second)))
		}
		noun := "gaps"
		if s.Gaps == 1 {
			noun = "gap"
		}
		out += fmt.Sprintf("; %d %s, no interval (longest: %s)", s.Gaps, noun, strings.Join(gs, "; "))
	}
	return out
}

// checkpoints lists the longest checkpoints with their start times.
func (s Summary) checkpoints() string {
	if len(s.Checkpoints) == 0 {
		return "none completed in the window, or not in these files"
	}
	var out []string
	for _, c := range s.Checkpoints {
		out = append(out, fmt.Sprintf("%s ms from %s", texttable.Sig3(c.Ms), sampleStamp(c.Start)))
	}
	return strings.Join(out, "; ")
}

func (s Summary) version() string {
	if len(s.Versions) == 0 {
		return "not in the files read"
	}
	if s.VersionsFromSamples {
		return strings.Join(s.Versions, ", ") + " (from the samples' serverStatus; the files hold no metadata)"
	}
	return strings.Join(s.Versions, ", ")
}

// role says which role the figures are from, and in which layout.
func (s Summary) role() string {
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
func (s Summary) table(c texttable.Cells) *texttable.Table {
	t := texttable.New("figure", "unit", ">values", ">min", ">median", ">p99", ">max")
	for _, f := range s.Figures {
		n := fmt.Sprint(f.Values)
		if f.Values == 0 {
			n = f.Absent
		}
		t.Add(f.Name, f.Unit, n, c.Num(f.Min), c.Num(f.Median), c.Num(f.P99), c.Num(f.Max))
	}
	return t
}

// ftdcNote says what the figures are.
const ftdcNote = "Each value is one interval between two consecutive samples (one second as the server samples): " +
	"rates over the samples' own start times, gauges at the interval's end; checkpoint durations are one value per checkpoint completed, " +
	"as the server timed it. Percentiles are by nearest rank over those values; a figure the server or host does not report has no value, never zero."

// WriteText prints the summary for a terminal.
func (s Summary) WriteText(w io.Writer) error {
	fmt.Fprintf(w, "FTDC %s\n", s.Path)
	fmt.Fprintf(w, "window: %s\n", s.window())
	fmt.Fprintf(w, "server version: %s\n", s.version())
	fmt.Fprintf(w, "figures from: %s\n", s.role())
	fmt.Fprintf(w, "samples: %s\n", s.samples())
	fmt.Fprintf(w, "sampling period: %s\n", s.periods())
	fmt.Fprintf(w, "longest checkpoints: %s\n", s.checkpoints())
	for _, t := range s.Torn {
		fmt.Fprintf(w, "file torn: %s\n", t)
	}
	fmt.Fprintf(w, "\nwhat stands out:\n")
	for _, l := range s.standsOutLines() {
		fmt.Fprintf(w, "  %s\n", l)
	}
	fmt.Fprintln(w)
	return s.table(texttable.TextCells).WriteText(w, true)
}

// WriteMarkdown writes the summary as Markdown, the HTML page's text.
func (s Summary) WriteMarkdown(w io.Writer) error {
	fmt.Fprintf(w, "# FTDC: %s\n\n", texttable.Escape(s.Path))
	for _, item := range s.items() {
		fmt.Fprintf(w, "- %s\n", texttable.Escape(item))
	}
	fmt.Fprintf(w, "\n## What stands out\n\n")
	for _, l := range s.standsOutLines() {
		fmt.Fprintf(w, "- %s\n", texttable.Escape(l))
	}
	fmt.Fprintf(w, "\n## Figures\n\n")
	if err := s.table(texttable.MarkdownCells).WriteMarkdown(w); err != nil {
		return err
	}
	fmt.Fprintf(w, "\n%s\n", ftdcNote)
	return nil
}

// items are the summary's lines above its table.
func (s Summary) items() []string {
	out := []string{"window: " + s.window(), "server version: " + s.version(), "figures from: " + s.role(),
		"samples: " + s.samples(), "sampling period: " + s.periods(),
		"longest checkpoints: " + s.checkpoints()}
	for _, t := range s.Torn {
		out = append(out, "file torn: "+t)
	}
	return out
}

// ftdcIntro introduces an FTDC window's charts.
const ftdcIntro = "The same figures second by second, on one time axis (the cursors move together); the seconds in which a checkpoint ran are shaded. " +
	"Drag to zoom, double-click to zoom out, click a legend entry to hide its line."

// View is the summary as a page that answers first: the window in a
// few lines, what stands out with its times, the charts over time (the
// first within the first screen), then the figures' table.
func (s Summary) View(charts []report.TimeChart) *report.StudyView {
	intro := []string{"window: " + s.window() + " · samples: " + s.samples(),
		"server: " + s.version() + " · figures from: " + s.role(),
		"sampling period: " + s.periods()}
	for _, t := range s.Torn {
		intro = append(intro, "file torn: "+t)
	}
	v := &report.StudyView{Title: "FTDC: " + s.Path, Name: "ftdc",
		Intro:        []report.Block{{Items: intro}},
		VerdictTitle: "What stands out",
		Verdict:      []report.Block{{Items: s.standsOutLines()}},
		Sections: []report.Section{{Title: "Figures", Blocks: []report.Block{
			{Text: "longest checkpoints: " + s.checkpoints()}, {Table: s.table(texttable.MarkdownCells)}, {Text: ftdcNote}}}},
	}
	for i := range charts {
		c := report.StudyChart{Name: charts[i].Name, Time: &charts[i]}
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
// that has values, the seconds in which a checkpoint ran shaded, each
// gap a break in the lines. Nil without intervals.
func (w *Window) Charts(names []string) []report.TimeChart {
	c := &w.chart
	if len(c.end) == 0 {
		return nil
	}
	origin := w.First
	var x []float64
	var at []int // bucket of each point, -1 for a gap's break
	for i, e := range c.end {
		x, at = append(x, e.Sub(origin).Seconds()), append(at, i)
		if c.gap[i] && i+1 < len(c.end) {
			x, at = append(x, (e.Sub(origin).Seconds()+c.end[i+1].Sub(origin).Seconds())/2), append(at, -1)
		}
	}
	points := func(col []float64) []*float64 {
		out := make([]*float64, len(x))
		for p, b := range at {
			if b >= 0 && !math.IsNaN(col[b]) {
				v := col[b]
				out[p] = &v
			}
		}
		return out
	}
	var shade [][2]float64
	for _, sp := range w.spans {
		shade = append(shade, [2]float64{sp[0].Sub(origin).Seconds(), sp[1].Sub(origin).Seconds()})
	}
	xlabel := fmt.Sprintf("seconds from %s", sampleStamp(origin))
	if c.step > 1 {
		xlabel += fmt.Sprintf(" (each point the highest of %d intervals)", c.step)
	}
	var out []report.TimeChart
	for _, f := range FTDCFigures {
		if f.Group == "" || (len(names) > 0 && !slices.Contains(names, f.Name)) || c.cols[f.Name] == nil {
			continue
		}
		i := slices.IndexFunc(out, func(c report.TimeChart) bool { return c.Title == f.Group })
		if i < 0 {
			out = append(out, report.TimeChart{Name: "ftdc", Title: f.Group, YLabel: cmp.Or(f.Unit, f.Group), Unit: f.Unit, X: x, Shade: shade, XLabel: xlabel})
			i = len(out) - 1
		}
		out[i].Lines = append(out[i].Lines, report.Line{Label: f.Name, Y: points(c.cols[f.Name]), Color: len(out[i].Lines)})
	}
	return out
}

// maxShaded is the most checkpoint spans a chart shades; a longer
// window's charts shade none rather than bury the lines.
const maxShaded = 500
