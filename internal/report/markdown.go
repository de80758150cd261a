package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"path"
	"slices"
	"strconv"

	"github.com/mongobench/mongobench/internal/texttable"

	"github.com/mongobench/mongobench/internal/result"
)

// Markdown renders a run as a Markdown report with its charts. The charts
// map holds each SVG under the slash-separated path the report links it
// by, chartDir/<run id>-<chart>.svg; the caller writes them next to the
// report. Missing values are empty cells.
func Markdown(d *result.Doc, chartDir string) (md []byte, charts map[string][]byte, err error) {
	if d == nil {
		return nil, nil, errNoDoc
	}
	rendered, err := Charts(d)
	if err != nil {
		return nil, nil, err
	}
	charts = map[string][]byte{}
	var links []string
	for _, c := range rendered {
		file := path.Join(chartDir, fileSafe(d.RunID)+"-"+c.Name+".svg")
		charts[file] = c.SVG
		link := fmt.Sprintf("![%s](%s)", c.Name, file)
		if caption := chartCaptions[c.Name]; caption != "" {
			link += "\n\n" + caption
		}
		links = append(links, link)
	}
	var buf bytes.Buffer
	ew := &errWriter{w: &buf}
	mdSummary(ew, d)
	mdDiagnosis(ew, d)
	mdCharts(ew, links)
	mdIntervals(ew, d)
	mdTelemetry(ew, d)
	return buf.Bytes(), charts, ew.err
}

// chartCaptions says under a chart what to look for in it.
var chartCaptions = map[string]string{
	"telemetry": "*p99 latency per second (top, log scale) over the server and host telemetry on the same time axis; " +
		"CPU is a percent of all cores; shaded bands are intervals with a WiredTiger checkpoint running. " +
		"Look for p99 tails that line up with a checkpoint, a build-up of dirty cache, or a rise in iowait or disk writes.*",
}

// mdSummary writes the run's description and its measured-phase results.
func mdSummary(ew *errWriter, d *result.Doc) {
	ew.line("# %s — %s", texttable.Escape(d.TestName), texttable.Escape(d.RunID))
	if d.Partial {
		ew.line("\n> **Partial run:** %s", texttable.Escape(d.PartialReason))
	}
	if d.Client.ClientBound {
		ew.line("\n> **Warning:** %s.", texttable.Escape(clientBoundWarning(d.Client)))
	}
	if d.Client.ServerBound {
		ew.line("\n> **Note:** %s.", texttable.Escape(serverBoundNote(d.Client)))
	}
	if p := d.Schedule.Precision; p != nil && p.Flagged {
		ew.line("\n> **Warning:** %s.", texttable.Escape(precisionWarning(p)))
	}
	if len(d.Thresholds) > 0 {
		ew.section("Thresholds", thresholdTable(d))
	}
	ew.section("Run", headerTable(d, mdCells))
	mdSettings(ew, d)
	ew.section("Operations", opsTable(d))
	ew.line("\n## Latency (ms)\n")
	ew.line("Latency counts from each operation's intended start, service time from its send.\n")
	ew.md(latencyTable(d, mdCells))
	ew.line("\n## Schedule\n")
	if isOpen(d) {
		ew.md(scheduleTable(d.Schedule))
	} else {
		ew.line("Closed loop: operations are not paced, so none are late or dropped.")
		if r := d.Schedule.ReceiveLag; r != nil {
			ew.line("\n%s operations were timed at their reply's arrival; receive lag (not in the latencies) p50 %s ms, p99 %s ms.",
				count(r.Count), mdCells.Num(r.P50), mdCells.Num(r.P99))
		}
	}
	ew.section("Client", clientTable(d.Client))
	if p := d.Schedule.Precision; p != nil {
		ew.line("\nPrecision: %s.", texttable.Escape(precisionText(p)))
	}
}

// mdSettings writes the run's effective configuration (test_config: the
// variant's parameters, the pacing and what the workload decided at
// setup, e.g. the ledger's transaction mode, read and write concern) and
// its notes, which say where a setting differs from the one asked for.
func mdSettings(ew *errWriter, d *result.Doc) {
	if len(d.TestConfig) > 0 {
		t := newTable("setting", "value")
		keys := slices.Sorted(maps.Keys(d.TestConfig))
		for _, k := range keys {
			t.Add(k, settingText(d.TestConfig[k]))
		}
		ew.section("Configuration", t)
	}
	if len(d.Notes) > 0 {
		ew.line("\n## Notes\n")
		for _, n := range d.Notes {
			ew.line("- %s", texttable.Escape(n))
		}
	}
}

// settingText prints a configuration value: numbers as short as they
// go, documents and lists as JSON.
func settingText(v any) string {
	switch x := v.(type) {
	case float64:
		return strconv.FormatFloat(x, 'f', -1, 64)
	case string:
		return x
	case map[string]any, []any:
		if b, err := json.Marshal(x); err == nil {
			return string(b)
		}
	}
	return fmt.Sprint(v)
}

// mdCharts links the rendered charts.
func mdCharts(ew *errWriter, links []string) {
	if len(links) == 0 {
		return
	}
	ew.line("\n## Charts")
	for _, l := range links {
		ew.line("\n%s", l)
	}
}

// mdIntervals writes the per-interval table, condensed for long runs.
func mdIntervals(ew *errWriter, d *result.Doc) {
	if len(d.Intervals) == 0 {
		return
	}
	bs, size := buckets(d)
	ew.line("\n## Intervals\n")
	if size > 1 {
		ew.line("Each row merges %d intervals of the %d; p99 is the worst interval's p99 latency.\n", size, len(d.Intervals))
	}
	ew.md(intervalTable(d, bs))
}

// mdTelemetry writes the server, host and monitoring readings that the
// run recorded, and nothing for those it did not.
func mdTelemetry(ew *errWriter, d *result.Doc) {
	server := telemetryTable(d.Intervals, func(iv result.Interval) map[string]float64 { return iv.Server })
	host := telemetryTable(d.Intervals, func(iv result.Interval) map[string]float64 { return iv.Host })
	for _, s := range []struct {
		title string
		t     *table
	}{
		{"Server (per interval, from serverStatus)", server},
		{"Host (per interval)", host},
		{"Measurements", seriesTable(d.Metrics.Measurements)},
		{"Disk", seriesTable(d.Metrics.DiskMetrics)},
		{"Hosts of the replica set's members (means over the measured phase)", memberHosts(d.Metrics)},
	} {
		if s.t != nil {
			ew.section(s.title, s.t)
		}
	}
}

// scheduleTable states how well an open-loop schedule was kept.
func scheduleTable(s result.Schedule) *table {
	t := newTable(">intended", ">late", ">dropped", ">send lag p50 ms", ">send lag p99 ms", ">receive lag p50 ms", ">receive lag p99 ms", ">max lag ms", ">late threshold ms", ">drop bound ms")
	var p50, p99, r50, r99 *float64
	if s.SendLag != nil {
		p50, p99 = s.SendLag.P50, s.SendLag.P99
	}
	if s.ReceiveLag != nil {
		r50, r99 = s.ReceiveLag.P50, s.ReceiveLag.P99
	}
	t.Add(count(s.Intended), count(s.Late), count(s.Dropped), mdCells.Num(p50), mdCells.Num(p99), mdCells.Num(r50), mdCells.Num(r99),
		sig3(s.MaxLag), sig3(s.LateThreshold), sig3(s.DropBound))
	return t
}

// clientTable states the load generator's own cost.
func clientTable(c result.Client) *table {
	t := newTable(">CPU per op µs", ">client CPU %", ">cores", ">CPU seconds", "client-bound")
	bound := "no"
	if c.ClientBound {
		bound = "yes"
	}
	cores := ""
	if c.Cores > 0 {
		cores = count(int64(c.Cores))
	}
	t.Add(mdCells.Num(c.CPUPerOp), sig3(c.CPUPercent), cores, sig3(c.CPUSeconds), bound)
	return t
}

// section writes a level-two heading followed by a Markdown table.
func (e *errWriter) section(title string, t *table) {
	e.line("\n## %s\n", title)
	e.md(t)
}

// md writes t as a Markdown table.
func (e *errWriter) md(t *table) {
	if e.err == nil {
		e.err = t.WriteMarkdown(e.w)
	}
}
