package report

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/texttable"
	"github.com/mongobench/mongobench/internal/threshold"
	"github.com/mongobench/mongobench/internal/validity"
)

// RunView is one run as every report shows it, the answer first: what
// stands out (a partial run, a client-bound or imprecise client), the
// headline (achieved against target, each operation's p50, p99 and
// errors, the thresholds' verdicts, what limited the run), the charts
// over the measured phase (latency first), then the details: the run's
// description and configuration, the per-operation tables, the schedule,
// the client, the diagnosis's evidence, the intervals and the telemetry.
// NewRunView builds it once from a result document; the terminal and the
// Markdown report (textreport) and the HTML page (htmlreport.Run) render
// it.
type RunView struct {
	TestName, RunID string
	Notices         []Notice
	Headline        Headline
	// Charts are the run's series over time, one value per interval:
	// latency, throughput, then a chart per telemetry panel recorded.
	Charts []TimeChart
	// Dists are each operation type's stored distributions, for plots
	// by percentile.
	Dists    []OpDists
	Sections []Section

	doc *result.Doc // for the SVG charts
}

// Notice is something the reader must know before reading the figures.
type Notice struct {
	Kind NoticeKind
	Text string
}

// NoticeKind says how loud a notice is.
type NoticeKind string

const (
	NoticeInvalid NoticeKind = "Invalid run"
	NoticeSuspect NoticeKind = "Suspect run"
	NoticePartial NoticeKind = "Partial run"
	NoticeWarning NoticeKind = "Warning"
	NoticeNote    NoticeKind = "Note"
)

// Headline is the answer: the run's figures at a glance.
type Headline struct {
	// TargetRate is the rate asked for in ops/s (open loop), else nil;
	// Achieved and Failed are the rates of operations that succeeded and
	// that failed.
	TargetRate, Achieved, Failed *float64
	// Figures are the headline's figures as text, in order.
	Figures []Figure
	// Ops has a row per operation type that ran: its rate, latency p50
	// and p99, and errors.
	Ops *texttable.Table
	// Thresholds are the verdicts of the thresholds judged on the run.
	Thresholds []Verdict
	// Tail says where the run's p99 tail fell ("p99 tail: …"), and Limit
	// what limited the run ("limited by: …"); "" when not diagnosed.
	Tail, Limit string
}

// Figure is one headline figure: "achieved", "497.3 ops/s", "of 500.0
// ops/s target, 99.5%". Bad marks a figure that says something went
// wrong (errors, a rate short of its target).
type Figure struct {
	Label, Value, Detail string
	Bad                  bool
}

// Verdict is one threshold's verdict.
type Verdict struct {
	Pass                 bool
	Expression, Measured string
}

// OpDists are an operation type's latency and service-time
// distributions over the measured phase.
type OpDists struct {
	Name             string
	Latency, Service result.Dist
}

// Section is a titled part of the details.
type Section struct {
	Title  string
	Blocks []Block
	// Brief is what the terminal's summary shows of the section, nil when
	// it leaves the section to the reports: the section's tables with a
	// missing figure as "—", or the section said in a line or two
	// ("schedule  intended 600, late 0, …").
	Brief []Block
}

// Block is one paragraph, table or list of a section: the field that is
// set says which. Text is plain text, never markup.
type Block struct {
	Text   string
	Strong bool // the paragraph is the section's verdict
	Table  *texttable.Table
	Bare   bool // the table is a list of fields, shown without its header row
	Items  []string
}

// shortfall is how far below its target an achieved rate may be and
// still not be marked.
const shortfall = 0.99

// NewRunView builds the view of a run.
func NewRunView(d *result.Doc) (*RunView, error) {
	if d == nil {
		return nil, errNoDoc
	}
	v := &RunView{TestName: d.TestName, RunID: d.RunID, doc: d, Notices: notices(d), Headline: headline(d), Charts: timeCharts(d)}
	for _, o := range d.Ops {
		v.Dists = append(v.Dists, OpDists{Name: o.Name, Latency: o.Latency, Service: o.Service})
	}
	v.Sections = sections(d)
	return v, nil
}

// Title is the report's title: "test — run id".
func (v *RunView) Title() string { return v.TestName + " — " + v.RunID }

// notices are the partial run, the client's and the server's bounds and
// the precision warning.
func notices(d *result.Doc) []Notice {
	var out []Notice
	if v := d.Validity; v != nil && (v.State == result.Invalid || v.State == result.Suspect) {
		kind, what := NoticeSuspect, "it counts, with this warning"
		if v.State == result.Invalid {
			kind, what = NoticeInvalid, "comparisons, change points, SLAs and plans leave it out unless asked to include invalid runs"
		}
		out = append(out, Notice{kind, validity.Line(*v) + " (" + what + ")."})
	}
	if d.Partial {
		out = append(out, Notice{NoticePartial, d.PartialReason})
	}
	if d.Client.ClientBound {
		out = append(out, Notice{NoticeWarning, clientBoundWarning(d.Client) + "."})
	}
	if d.Client.ServerBound {
		out = append(out, Notice{NoticeNote, serverBoundNote(d.Client) + "."})
	}
	if d.Client.NotJudged != "" {
		out = append(out, Notice{NoticeNote, d.Client.NotJudged + "."})
	}
	if p := d.Schedule.Precision; p != nil && p.Flagged {
		out = append(out, Notice{NoticeWarning, precisionWarning(p) + "."})
	}
	if r := d.Resolution; r != nil {
		where := "every interval at full resolution is in collection " + r.Collection + " of the results database"
		if r.Collection == "" {
			where = "not all of them are in the results store at full resolution (the notes say more)"
		}
		out = append(out, Notice{NoticeNote, fmt.Sprintf("A long run: its %d intervals of %g s are shown merged into intervals of %g s (histograms merged exactly); %s.",
			r.FullIntervals, r.FullIntervalSec, r.IntervalSec, where)})
	}
	return out
}

// headline gathers the run's answer.
func headline(d *result.Doc) Headline {
	s := d.Schedule
	h := Headline{Achieved: result.F(s.SuccessRate), Failed: result.F(s.FailedRate)}
	if s.SuccessRate == 0 && s.FailedRate == 0 { // stored before the two were kept apart
		h.Achieved, h.Failed = result.F(s.AchievedRate), nil
	}
	if isOpen(d) {
		h.TargetRate = s.TargetRate
	}
	achieved := Figure{Label: "achieved", Value: perSec(*h.Achieved) + " ops/s"}
	if t := h.TargetRate; t != nil && *t > 0 {
		share := *h.Achieved / *t
		achieved.Detail = fmt.Sprintf("of %s ops/s target, %s%%", perSec(*t), sig3(100*share))
		achieved.Bad = share < shortfall
	} else {
		achieved.Detail = modeText(s)
	}
	h.Figures = append(h.Figures, achieved)
	var ops, failed int64
	var classes result.Errors
	for _, o := range d.Ops {
		ops += o.Count
		failed += o.Errors.Total
		classes = classes.Add(o.Errors)
	}
	errs := Figure{Label: "errors", Value: count(failed), Bad: failed > 0}
	if all := ops + failed; all > 0 {
		errs.Detail = sig3(100*float64(failed)/float64(all)) + "% of operations"
		if c := errorClasses(classes); c != "" {
			errs.Detail += ": " + c
		}
	}
	h.Figures = append(h.Figures, errs, Figure{Label: "duration", Value: seconds(d.Duration), Detail: fmt.Sprintf("%s workers", count(int64(s.Workers)))})
	if len(d.Thresholds) > 0 {
		pass := 0
		for _, t := range d.Thresholds {
			if t.Pass {
				pass++
			}
			h.Thresholds = append(h.Thresholds, Verdict{Pass: t.Pass, Expression: t.Expression, Measured: threshold.Measured(t)})
		}
		h.Figures = append(h.Figures, Figure{Label: "thresholds", Value: fmt.Sprintf("%d of %d pass", pass, len(d.Thresholds)), Bad: pass < len(d.Thresholds)})
	}
	h.Ops = headlineOps(d)
	if dg := d.Diagnosis; dg != nil {
		h.Limit = dg.Line
		if dg.Tail != nil {
			h.Tail = dg.Tail.Line
		}
	}
	return h
}

// headlineOps has a row per operation type that ran: successes per
// second, latency p50 and p99 from the intended start, and errors.
func headlineOps(d *result.Doc) *table {
	t := newTable("op", ">ops/s", ">p50 ms", ">p99 ms", ">errors")
	for _, o := range ranOps(d) {
		t.Add(o.Name, perSec(o.Rate), mdCells.Num(o.Latency.P50), mdCells.Num(o.Latency.P99), count(o.Errors.Total))
	}
	return t
}

// sections are the details, in the order the reports show them.
func sections(d *result.Doc) []Section {
	var out []Section
	add := func(title string, blocks ...Block) { out = append(out, Section{Title: title, Blocks: blocks}) }
	brief := func(blocks ...Block) { out[len(out)-1].Brief = blocks }
	add("Run", Block{Table: headerTable(d, mdCells)})
	brief(Block{Table: headerTable(d, textCells), Bare: true})
	if len(d.TestConfig) > 0 {
		add("Configuration", Block{Table: settingsTable(d.TestConfig)})
	}
	if len(d.Notes) > 0 {
		add("Notes", Block{Items: d.Notes})
	}
	add("Operations", Block{Table: opsTable(d)})
	brief(Block{Table: opsTable(d)})
	if blocks := replayBlocks(d); blocks != nil {
		add("Query shapes (replay)", blocks...)
	}
	add("Latency (ms)", Block{Text: "Latency counts from each operation's intended start, service time from its send."},
		Block{Table: latencyTable(d, mdCells)})
	brief(Block{Text: "milliseconds: latency from intended start, service time from send"}, Block{Table: latencyTable(d, textCells)})
	if isOpen(d) {
		add("Schedule", Block{Table: scheduleTable(d.Schedule)})
	} else {
		blocks := []Block{{Text: "Closed loop: operations are not paced, so none are late or dropped."}}
		if r := d.Schedule.ReceiveLag; r != nil {
			blocks = append(blocks, Block{Text: fmt.Sprintf("%s operations were timed at their reply's arrival; receive lag (not in the latencies) p50 %s ms, p99 %s ms.",
				count(r.Count), mdCells.Num(r.P50), mdCells.Num(r.P99))})
		}
		add("Schedule", blocks...)
	}
	brief(Block{Text: "schedule  " + scheduleText(d.Schedule)})
	client := []Block{{Table: clientTable(d.Client)}}
	clientBrief := []Block{{Text: "client    " + clientText(d.Client)}}
	if p := d.Schedule.Precision; p != nil {
		client = append(client, Block{Text: "Precision: " + precisionText(p) + "."})
		clientBrief = append(clientBrief, Block{Text: "precision " + precisionText(p)})
	}
	if c := d.Canary; c != nil {
		if t := canaryTable(c); t != nil {
			client = append(client, Block{Text: "The client host's noise canary, just before and just after the run (docs/validity.md):"}, Block{Table: t})
		}
	}
	add("Client", client...)
	brief(clientBrief...)
	if v := d.Validity; v != nil {
		add("Validity", Block{Text: "The run is " + v.State + "."}, Block{Table: validityTable(v)})
	}
	if dg := d.Diagnosis; dg != nil {
		add("What limited the run", diagnosisBlocks(dg)...)
		if dg.Tail != nil && len(dg.Tail.Causes) > 0 {
			add("Where the p99 tail fell", tailBlocks(dg.Tail)...)
		}
	}
	if len(d.Intervals) > 0 {
		bs, size := buckets(d)
		var blocks []Block
		if size > 1 {
			blocks = append(blocks, Block{Text: fmt.Sprintf("Each row merges %d intervals of the %d; p99 is the worst interval's p99 latency.", size, len(d.Intervals))})
		}
		add("Intervals", append(blocks, Block{Table: intervalTable(d, bs)})...)
	}
	for _, s := range []struct {
		title string
		t     *table
	}{
		{"Server (per interval, from serverStatus)", telemetryTable(d.Intervals, func(iv result.Interval) map[string]float64 { return iv.Server })},
		{"Host (per interval)", telemetryTable(d.Intervals, func(iv result.Interval) map[string]float64 { return iv.Host })},
		{"Measurements", seriesTable(d.Metrics.Measurements)},
		{"Disk", seriesTable(d.Metrics.DiskMetrics)},
		{"Hosts of the replica set's members (means over the measured phase)", memberHosts(d.Metrics)},
	} {
		if s.t != nil {
			add(s.title, Block{Table: s.t})
		}
	}
	return out
}

// settingsTable is the run's effective configuration (test_config: the
// variant's parameters, the pacing and what the workload decided at
// setup, e.g. the ledger's transaction mode, read and write concern),
// each setting once: a document size given in bytes (docSize) is not
// repeated in KB (docSizeKB, which the stored variant keeps to compare
// runs by).
func settingsTable(cfg map[string]any) *table {
	t := newTable("setting", "value")
	for _, k := range slices.Sorted(maps.Keys(cfg)) {
		if _, bytes := cfg["docSize"]; k == "docSizeKB" && bytes {
			continue
		}
		t.Add(k, settingText(cfg[k]))
	}
	return t
}

// scheduleText summarises how well the schedule was kept, on one line.
func scheduleText(s result.Schedule) string {
	if s.Mode != "open" {
		return "closed loop: no pacing, nothing late or dropped" + receiveText(s)
	}
	text := fmt.Sprintf("intended %d, late %d, dropped %d, max lag %s ms (late > %s ms, %s)",
		s.Intended, s.Late, s.Dropped, sig3(s.MaxLag), sig3(s.LateThreshold), dropText(s))
	if s.Abandoned > 0 {
		text += fmt.Sprintf("; %d abandoned by the stop", s.Abandoned)
	}
	if s.SendLag != nil {
		text += fmt.Sprintf("; send lag p50 %s ms, p99 %s ms, p99.9 %s ms", textCells.Num(s.SendLag.P50), textCells.Num(s.SendLag.P99), textCells.Num(s.SendLag.P999))
	}
	if s.WarmupSkipped > 0 {
		text += fmt.Sprintf("; %d warm-up operations not sent", s.WarmupSkipped)
	}
	return text + receiveText(s)
}

// receiveText states the receive lag, which the latencies do not carry:
// the operations timed by their reply's arrival end there.
func receiveText(s result.Schedule) string {
	r := s.ReceiveLag
	if r == nil {
		return ""
	}
	return fmt.Sprintf("; %s ops timed at their reply's arrival, receive lag p50 %s ms, p99 %s ms (not in the latencies)",
		count(r.Count), textCells.Num(r.P50), textCells.Num(r.P99))
}

// clientText states the load generator's CPU cost.
func clientText(c result.Client) string {
	s := fmt.Sprintf("%s µs CPU per op, %s%% CPU", textCells.Num(c.CPUPerOp), sig3(c.CPUPercent))
	if c.Cores > 0 {
		s += fmt.Sprintf(" of %d cores", c.Cores)
	}
	return s
}

var errNoDoc = errors.New("nil result document")

// VerdictWord is how a verdict reads: PASS or FAIL.
func VerdictWord(pass bool) string {
	if pass {
		return "PASS"
	}
	return "FAIL"
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
		sig3(s.MaxLag), sig3(s.LateThreshold), dropBoundText(s))
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

// canaryTable is the client host's noise canary, a row per figure with
// its reading before and after the run; nil when neither was taken.
func canaryTable(n *result.Noise) *table {
	if n.Before == nil && n.After == nil {
		return nil
	}
	t := newTable("figure", ">before", ">after", "unit")
	read := func(c *result.Canary, f result.CanaryFigure) *float64 {
		if c == nil {
			return nil
		}
		return f.Value(*c)
	}
	for _, f := range result.CanaryFigures {
		t.Add(f.Name, mdCells.Num(read(n.Before, f)), mdCells.Num(read(n.After, f)), f.Unit)
	}
	return t
}

// validityTable is each validity rule's judgement: its outcome, the
// figure it read, its bounds and its evidence.
func validityTable(v *result.Validity) *table {
	t := newTable("rule", "outcome", ">value", ">suspect at", ">invalid at", "unit", "evidence")
	for _, r := range v.Rules {
		t.Add(r.Rule, r.Outcome, mdCells.Num(r.Value), mdCells.Num(r.Suspect), mdCells.Num(r.Invalid), r.Unit, r.Evidence)
	}
	return t
}

// dropText states the drop bound: "dropped > 10000 ms", or "never
// dropped" for a schedule that sends every operation however late (a
// replay's, which has no bound).
func dropText(s result.Schedule) string {
	if s.DropBound <= 0 {
		return "never dropped"
	}
	return "dropped > " + sig3(s.DropBound) + " ms"
}

// dropBoundText is the drop bound in milliseconds, or "never" for a
// schedule without one (a replay sends every operation, however late).
func dropBoundText(s result.Schedule) string {
	if s.DropBound <= 0 {
		return "never"
	}
	return sig3(s.DropBound)
}
