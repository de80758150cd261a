package merge

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/hist"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/validity"
)

// Group is what the merge knows of the group beyond its clients'
// results: its id, how many clients it has, and the bounds its merged
// result's validity is judged by (nil: the documented defaults).
type Group struct {
	ID       string
	Clients  int
	Validity validity.Bounds
}

// ErrNoClients is the merge of a group none of whose clients stored a
// result.
var ErrNoClients = errors.New("no client of the group stored a result")

// RunID is the run id of a group's merged result: its start, then the
// group's id, so merging again rewrites the same history row.
func RunID(start time.Time, group string) string {
	return start.UTC().Format("20060102T150405Z") + "-group-" + group
}

// Results merges the clients' results of group g into the group's
// result. A run stored more than once counts once, with its complete
// row; distinct runs under one client index all count. The result is partial when a client is missing or
// stopped early, and says which.
func Results(g Group, clients []result.Doc) (*result.Doc, error) {
	docs, err := pick(g, clients)
	if err != nil {
		return nil, err
	}
	base := docs[0]
	d := &result.Doc{
		SchemaVersion: result.SchemaVersion, TestName: base.TestName, Label: base.Label,
		Tags: base.Tags, Repetition: base.Repetition,
		Variant: dropClient(base.Variant), TestConfig: dropClient(base.TestConfig), BenchConfig: maps.Clone(base.BenchConfig),
		BeforeStatus: base.BeforeStatus, AfterStatus: base.AfterStatus, Metrics: base.Metrics,
		Target: base.Target, Generator: base.Generator,
	}
	d.ID = slices.DeleteFunc(slices.Clone(base.ID), func(kv result.KV) bool { return kv.Key == "clientIndex" })
	d.Start, d.End = span(docs)
	d.Duration = float64(d.End.Sub(d.Start)) / float64(time.Millisecond)
	d.RunID = RunID(d.Start, g.ID)
	d.Group = members(g, docs)
	d.Partial, d.PartialReason = partial(d.Group, docs)
	d.Notes = notes(d.Group, docs)
	if d.Ops, err = ops(docs, d.End.Sub(d.Start)); err != nil {
		return nil, err
	}
	if d.Resolution = resolution(docs); d.Resolution == nil {
		if d.Intervals, err = intervals(docs); err != nil {
			return nil, err
		}
	}
	if d.Schedule, err = schedule(docs, d); err != nil {
		return nil, err
	}
	d.Client = client(docs, d)
	d.TestResults = testResults(docs, d)
	d.Canary = base.Canary // the first client's, as its telemetry is the group's; every client's in its member
	v := validity.Judge(d, g.Validity)
	d.Validity = &v
	return d, nil
}

// pick checks the clients' results and orders them by client index. A
// run stored more than once (a partial row, then the complete one) counts
// once, with its complete row. Distinct runs under one index (processes
// started with the same --client-index before the index was claimed
// atomically, or imported) all count: each one's operations reached the
// server, and the notes name them.
func pick(g Group, clients []result.Doc) ([]*result.Doc, error) {
	if g.Clients < 1 {
		return nil, fmt.Errorf("group %s: %d clients, want at least 1", g.ID, g.Clients)
	}
	byRun := map[string]*result.Doc{}
	var order []string
	for i := range clients {
		c := &clients[i]
		if c.Group == nil || c.Group.ClientIndex == nil || c.Group.ID != g.ID {
			return nil, fmt.Errorf("run %s: not a client result of group %s", c.RunID, g.ID)
		}
		idx := *c.Group.ClientIndex
		if idx < 0 || idx >= g.Clients {
			return nil, fmt.Errorf("run %s: client index %d outside the group's %d clients", c.RunID, idx, g.Clients)
		}
		have, ok := byRun[c.RunID]
		if !ok {
			order = append(order, c.RunID)
		}
		if !ok || have.Partial && !c.Partial {
			byRun[c.RunID] = c
		}
	}
	if len(byRun) == 0 {
		return nil, fmt.Errorf("group %s: %w", g.ID, ErrNoClients)
	}
	docs := make([]*result.Doc, 0, len(byRun))
	for _, id := range order {
		docs = append(docs, byRun[id])
	}
	slices.SortStableFunc(docs, func(a, b *result.Doc) int { return index(a) - index(b) })
	return docs, nil
}

// shared names the client indexes more than one run gave results under.
func shared(docs []*result.Doc) []string {
	runs := map[int][]string{}
	for _, c := range docs {
		runs[index(c)] = append(runs[index(c)], c.RunID)
	}
	var out []string
	for _, i := range slices.Sorted(maps.Keys(runs)) {
		if len(runs[i]) > 1 {
			out = append(out, fmt.Sprintf("client %d ran in %d processes (runs %s): every one's operations are counted", i, len(runs[i]), strings.Join(runs[i], ", ")))
		}
	}
	return out
}

func dropClient(m map[string]any) map[string]any {
	out := maps.Clone(m)
	delete(out, "clientIndex")
	return out
}

// span is the group's measured phase: from the earliest client's start to
// the latest client's end.
func span(docs []*result.Doc) (start, end time.Time) {
	start, end = docs[0].Start, docs[0].End
	for _, c := range docs[1:] {
		if c.Start.Before(start) {
			start = c.Start
		}
		if c.End.After(end) {
			end = c.End
		}
	}
	return start, end
}

func index(c *result.Doc) int { return *c.Group.ClientIndex }

// members lists each client's part and health, and the missing clients.
func members(g Group, docs []*result.Doc) *result.Group {
	out := &result.Group{ID: g.ID, Clients: g.Clients, StartAt: docs[0].Group.StartAt, TargetRate: docs[0].Group.TargetRate}
	have := map[int]bool{}
	for _, c := range docs {
		have[index(c)] = true
		m := result.GroupMember{
			ClientIndex: index(c), RunID: c.RunID, Host: c.Generator.Host, Partial: c.Partial, PartialReason: c.PartialReason,
			Intended: c.Schedule.Intended, Completed: completed(c), AchievedRate: c.Schedule.AchievedRate,
			TargetRate: c.Schedule.TargetRate, ClientBound: c.Client.ClientBound, Reasons: c.Client.Reasons,
			CPUSeconds: c.Client.CPUSeconds, CPUPercent: c.Client.CPUPercent, Cores: c.Client.Cores,
			ClockOffsetMs: c.Group.ClockOffsetMs, Canary: c.Canary,
		}
		if c.Schedule.SendLag != nil {
			m.SendLagP99 = c.Schedule.SendLag.P99
		}
		out.Members = append(out.Members, m)
	}
	for i := range g.Clients {
		if !have[i] {
			out.Missing = append(out.Missing, i)
		}
	}
	return out
}

func completed(c *result.Doc) int64 {
	var n int64
	for _, op := range c.Ops {
		n += op.Count + op.Errors.Total
	}
	return n
}

func partial(g *result.Group, docs []*result.Doc) (bool, string) {
	var why []string
	if len(g.Missing) > 0 {
		why = append(why, fmt.Sprintf("client %s of %d stored no result", list(g.Missing), g.Clients))
	}
	for _, c := range docs {
		if c.Partial {
			why = append(why, fmt.Sprintf("client %d stopped early (%s)", index(c), c.PartialReason))
		}
	}
	return len(why) > 0, strings.Join(why, "; ")
}

func list(xs []int) string {
	s := make([]string, len(xs))
	for i, x := range xs {
		s[i] = fmt.Sprint(x)
	}
	return strings.Join(s, ", ")
}

// notes keeps each client's notes once, naming the clients that gave a
// note not all of them gave.
func notes(g *result.Group, docs []*result.Doc) []string {
	var order []string
	who := map[string][]int{}
	for _, c := range docs {
		for _, n := range c.Notes {
			if _, ok := who[n]; !ok {
				order = append(order, n)
			}
			who[n] = append(who[n], index(c))
		}
	}
	out := []string{fmt.Sprintf("run group %s: %d of %d clients merged exactly (histograms per operation type and per interval)",
		g.ID, g.Clients-len(g.Missing), g.Clients)}
	out = append(out, shared(docs)...)
	for _, n := range order {
		if len(who[n]) == len(docs) {
			out = append(out, n)
		} else {
			out = append(out, fmt.Sprintf("client %s: %s", list(who[n]), n))
		}
	}
	return out
}

// ops merges each operation type over the clients: counts and errors
// summed, latency and service time histograms merged exactly.
func ops(docs []*result.Doc, phase time.Duration) ([]result.OpStats, error) {
	var all [][]result.OpStats
	for _, c := range docs {
		all = append(all, c.Ops)
	}
	out, err := mergeOps(all, hist.Summarize)
	if err != nil {
		return nil, err
	}
	for i := range out {
		if phase > 0 {
			out[i].Rate = float64(out[i].Count) / phase.Seconds()
		}
	}
	return out, nil
}

// mergeOps merges lists of operation types by name, in first-seen order;
// summarize makes each merged histogram's summary.
func mergeOps(lists [][]result.OpStats, summarize func(*hist.H) (result.Dist, error)) ([]result.OpStats, error) {
	var names []string
	byName := map[string][]result.OpStats{}
	for _, l := range lists {
		for _, op := range l {
			if _, ok := byName[op.Name]; !ok {
				names = append(names, op.Name)
			}
			byName[op.Name] = append(byName[op.Name], op)
		}
	}
	out := make([]result.OpStats, 0, len(names))
	for _, name := range names {
		op := result.OpStats{Name: name}
		lat, svc := hist.New(), hist.New()
		for _, o := range byName[name] {
			op.Count += o.Count
			op.Errors = op.Errors.Add(o.Errors)
			if o.Parts != nil {
				if op.Parts == nil {
					op.Parts = &result.PartCounts{}
				}
				op.Parts.Count += o.Parts.Count
				op.Parts.Errors += o.Parts.Errors
			}
			if err := hist.AddDist(lat, o.Latency); err != nil {
				return nil, fmt.Errorf("%s latency: %w", name, err)
			}
			if err := hist.AddDist(svc, o.Service); err != nil {
				return nil, fmt.Errorf("%s service time: %w", name, err)
			}
		}
		var err error
		if op.Latency, err = summarize(lat); err != nil {
			return nil, fmt.Errorf("%s latency: %w", name, err)
		}
		if op.Service, err = summarize(svc); err != nil {
			return nil, fmt.Errorf("%s service time: %w", name, err)
		}
		out = append(out, op)
	}
	return out, nil
}

// intervals merges the clients' intervals that start at the same instant
// (the group's intervals are aligned: every client's measured phase starts
// at the same wall-clock instant). A client's closing interval that
// absorbed a short tail overlaps the next interval of another: such an
// interval is folded into the one it overlaps.
func intervals(docs []*result.Doc) ([]result.Interval, error) {
	next := make([]func() (result.Interval, bool, error), len(docs))
	cores := make([]int, len(docs))
	for i, c := range docs {
		next[i], cores[i] = Each(c.Intervals), c.Client.Cores
	}
	var out []result.Interval
	err := Stream(next, cores, func(iv result.Interval) error {
		out = append(out, iv)
		return nil
	})
	return out, err
}

// Each hands ivs one at a time, as Stream reads a client's intervals.
func Each(ivs []result.Interval) func() (result.Interval, bool, error) {
	return func() (result.Interval, bool, error) {
		if len(ivs) == 0 {
			return result.Interval{}, false, nil
		}
		iv := ivs[0]
		ivs = ivs[1:]
		return iv, true, nil
	}
}

// Stream merges clients' intervals as a group's result does: next[i]
// hands client i's intervals in time order (false when it has no more),
// cores[i] is its client's cores, and emit receives each merged interval
// in time order. It holds one merged interval's parts at a time, so a
// group's full-resolution intervals merge in constant memory whatever
// the run's length.
func Stream(next []func() (result.Interval, bool, error), cores []int, emit func(result.Interval) error) error {
	heads := make([]*result.Interval, len(next))
	advance := func(i int) error {
		iv, ok, err := next[i]()
		heads[i] = nil
		if ok {
			heads[i] = &iv
		}
		return err
	}
	for i := range next {
		if err := advance(i); err != nil {
			return err
		}
	}
	var start, end time.Time
	var ivs []result.Interval
	var cs []int
	flush := func() error {
		if len(ivs) == 0 {
			return nil
		}
		iv, err := mergeInterval(start, end, ivs, cs)
		if err != nil {
			return err
		}
		ivs, cs = ivs[:0], cs[:0]
		return emit(iv)
	}
	for {
		k := -1
		for i, h := range heads {
			if h != nil && (k < 0 || h.Start.Before(heads[k].Start)) {
				k = i
			}
		}
		if k < 0 {
			return flush()
		}
		iv := *heads[k]
		if err := advance(k); err != nil {
			return err
		}
		if len(ivs) == 0 || !iv.Start.Equal(start) && !iv.Start.Before(end) {
			if err := flush(); err != nil {
				return err
			}
			start, end = iv.Start, iv.Start
		}
		if e := iv.Start.Add(seconds(iv.Seconds)); e.After(end) {
			end = e
		}
		ivs, cs = append(ivs, iv), append(cs, cores[k])
	}
}

// resolution is a group's when any client's run coarsened its intervals
// (a long run). The merged document then has no intervals yet: a
// coarsened client's document holds its intervals without histograms
// (Coarsen), so the group's are merged from the clients' full-resolution
// records (Stream, the store's MergeGroupRecords) and kept on a Ladder,
// which sets IntervalSec, FullIntervals and Collection.
func resolution(docs []*result.Doc) *result.Resolution {
	var r *result.Resolution
	for _, c := range docs {
		if c.Resolution == nil {
			continue
		}
		if r == nil {
			r = &result.Resolution{FullIntervalSec: c.Resolution.FullIntervalSec}
		}
		r.IntervalSec = max(r.IntervalSec, c.Resolution.IntervalSec)
		r.FullIntervals = max(r.FullIntervals, c.Resolution.FullIntervals)
	}
	return r
}

// larger is the larger of two figures, a missing one left out; nil when
// both are missing.
func larger(a, b *float64) *float64 {
	switch {
	case b == nil:
		return a
	case a == nil || *b > *a:
		return result.F(*b)
	}
	return a
}

func seconds(s float64) time.Duration { return time.Duration(s * float64(time.Second)) }

// mergeInterval merges the clients' parts of one interval. The server's
// and host's readings are the first client's (they describe the server,
// which every client sampled); the client CPU is the clients' CPU time
// over all their cores.
func mergeInterval(start, end time.Time, ivs []result.Interval, cores []int) (result.Interval, error) {
	out := result.Interval{Start: start, Seconds: end.Sub(start).Seconds(), Server: ivs[0].Server, Host: ivs[0].Host}
	var lists [][]result.OpStats
	var cpu float64 // core-seconds
	var allCores int
	cpuKnown := true
	for i, iv := range ivs {
		out.Late += iv.Late
		out.Dropped += iv.Dropped
		out.MaxLag = max(out.MaxLag, iv.MaxLag)
		out.MaxReceiveLag = larger(out.MaxReceiveLag, iv.MaxReceiveLag)
		lists = append(lists, iv.Ops)
		if iv.ClientCPU == nil {
			cpuKnown = false
		} else {
			cpu += *iv.ClientCPU / 100 * iv.Seconds * float64(cores[i])
		}
		allCores += cores[i]
	}
	ops, err := mergeOps(lists, hist.Summarize)
	if err != nil {
		return out, err
	}
	for i := range ops {
		if out.Seconds > 0 {
			ops[i].Rate = float64(ops[i].Count) / out.Seconds
		}
	}
	out.Ops = ops
	if cpuKnown && allCores > 0 && out.Seconds > 0 {
		out.ClientCPU = result.F(100 * cpu / (out.Seconds * float64(allCores)))
	}
	return out, nil
}

// schedule sums the clients' schedules and takes the achieved rate over
// the group's phase against the group's target.
func schedule(docs []*result.Doc, d *result.Doc) (result.Schedule, error) {
	b := docs[0].Schedule
	s := result.Schedule{
		Mode: b.Mode, Pacer: b.Pacer, Pacing: b.Pacing, TargetRate: docs[0].Group.TargetRate,
		LateThreshold: b.LateThreshold, DropBound: b.DropBound,
	}
	if p, _, ok := strings.Cut(b.Pacer, engine.ShareSuffix); ok {
		s.Pacer = p
	}
	var done, failed int64
	for _, c := range docs {
		cs := c.Schedule
		s.Workers += cs.Workers
		s.Intended += cs.Intended
		s.Late += cs.Late
		s.Dropped += cs.Dropped
		s.Abandoned += cs.Abandoned
		s.WarmupSkipped += cs.WarmupSkipped
		s.MaxLag = max(s.MaxLag, cs.MaxLag)
		done += completed(c)
		for _, op := range c.Ops {
			failed += op.Errors.Total
		}
	}
	if secs := scheduledSeconds(docs, d); secs > 0 {
		s.AchievedRate = float64(done) / secs
		s.SuccessRate = float64(done-failed) / secs
		s.FailedRate = float64(failed) / secs
	}
	var err error
	if s.SendLag, err = lags(docs, func(s result.Schedule) *result.Dist { return s.SendLag }); err != nil {
		return s, fmt.Errorf("send lag: %w", err)
	}
	if s.ReceiveLag, err = lags(docs, func(s result.Schedule) *result.Dist { return s.ReceiveLag }); err != nil {
		return s, fmt.Errorf("receive lag: %w", err)
	}
	serverBound := slices.ContainsFunc(docs, func(c *result.Doc) bool { return c.Client.ServerBound })
	s.Precision = precision(s.SendLag, d.Ops, b.Mode, serverBound)
	return s, nil
}

// lags merges one lag distribution of the clients that stored it; nil
// when none did.
func lags(docs []*result.Doc, of func(result.Schedule) *result.Dist) (*result.Dist, error) {
	var ds []result.Dist
	for _, c := range docs {
		if d := of(c.Schedule); d != nil {
			ds = append(ds, *d)
		}
	}
	if len(ds) == 0 {
		return nil, nil
	}
	d, err := hist.MergeDists(ds...)
	if err != nil {
		return nil, err
	}
	return &d, nil
}

// scheduledSeconds is the span the group's rate is taken over: the
// group's phase, and no shorter than the longest span any client took its
// own rate over (an open loop's whole duration, see the runner).
func scheduledSeconds(docs []*result.Doc, d *result.Doc) float64 {
	secs := d.Duration / 1000
	for _, c := range docs {
		if r := c.Schedule.AchievedRate; r > 0 {
			secs = max(secs, float64(completed(c))/r)
		}
	}
	return secs
}

// precision judges the group's send lag against its latencies as the
// engine judges one client's: the merged send lag's p99 against the
// smallest merged latency p50, not blamed on the clients when one of
// them was server-bound (engine.Imprecise).
func precision(lag *result.Dist, ops []result.OpStats, mode string, serverBound bool) *result.Precision {
	p := &result.Precision{Bound: engine.PrecisionBound, FloorMs: ms(engine.PrecisionFloor)}
	switch {
	case mode != "open":
		p.Note = "closed loop: operations have no intended start, so no send lag"
		return p
	case lag == nil || lag.Count == 0 || lag.P99 == nil:
		p.Note = "no operation was sent in the measured phase"
		return p
	}
	for _, op := range ops {
		if op.Latency.P50 != nil && (p.Op == "" || *op.Latency.P50 < *p.LatencyP50) {
			p.Op, p.LatencyP50 = op.Name, op.Latency.P50
		}
	}
	if p.Op == "" {
		p.Note = "no operation succeeded, so there is no latency to compare the send lag with"
		return p
	}
	p.Judged, p.SendLagP99 = true, lag.P99
	p.Share = result.F(*lag.P99 / *p.LatencyP50)
	p.Flagged, p.Note = engine.Imprecise(fromMs(*lag.P99), fromMs(*p.LatencyP50), serverBound)
	return p
}

// client sums the clients' cost and flags the group client-bound when any
// client was, naming it; the share of ready time its threads waited for a
// CPU is the largest of the clients' (the most starved client).
func client(docs []*result.Doc, d *result.Doc) result.Client {
	var out result.Client
	var cpuUs float64
	for _, c := range docs {
		cc := c.Client
		out.CPUSeconds += cc.CPUSeconds
		out.Cores += cc.Cores
		cpuUs += cc.CPUSeconds * 1e6
		if cc.ClientBound {
			out.ClientBound = true
			out.Reasons = append(out.Reasons, prefixed(index(c), cc.Reasons, "client-bound")...)
		}
		if cc.ServerBound {
			out.ServerBound = true
			out.ServerReasons = append(out.ServerReasons, prefixed(index(c), cc.ServerReasons, "server-bound")...)
		}
		if cc.CPUWait != nil && (out.CPUWait == nil || *cc.CPUWait > *out.CPUWait) {
			out.CPUWait = result.F(*cc.CPUWait)
		}
		if cc.NotJudged != "" && out.NotJudged == "" {
			out.NotJudged = fmt.Sprintf("client %d: %s", index(c), cc.NotJudged)
		}
	}
	if secs := d.Duration / 1000; secs > 0 && out.Cores > 0 {
		out.CPUPercent = 100 * out.CPUSeconds / (secs * float64(out.Cores))
	}
	var n int64
	for _, op := range d.Ops {
		n += op.Count + op.Errors.Total
	}
	if n > 0 {
		out.CPUPerOp = result.F(cpuUs / float64(n))
	}
	return out
}

func prefixed(i int, reasons []string, verdict string) []string {
	if len(reasons) == 0 {
		return []string{fmt.Sprintf("client %d: %s", i, verdict)}
	}
	out := make([]string, len(reasons))
	for k, r := range reasons {
		out[k] = fmt.Sprintf("client %d: %s", i, r)
	}
	return out
}

// testResults sums the clients' operations and counts. The server's
// opcounters grew by the whole group's operations, so the operations per
// completed operation are the first client's growth over the group's
// operations; the load rates are over the group's phase.
func testResults(docs []*result.Doc, d *result.Doc) result.TestResults {
	var tr result.TestResults
	var n int64
	for _, c := range docs {
		tr.Add(c.TestResults.Counts)
		if c.TestResults.NOps != nil {
			n += *c.TestResults.NOps
		}
	}
	tr.NOps = &n
	if b := docs[0].TestResults; b.ServerOpsPerOp != nil && b.NOps != nil && n > 0 {
		tr.ServerOpsPerOp = result.F(*b.ServerOpsPerOp * float64(*b.NOps) / float64(n))
	}
	if secs := d.Duration / 1000; secs > 0 && tr.Docs != nil {
		tr.DocsPerSec = result.F(float64(*tr.Docs) / secs)
		if tr.Bytes != nil {
			tr.MBPerSec = result.F(float64(*tr.Bytes) / 1e6 / secs)
		}
	}
	return tr
}

// fromMs is a duration given in milliseconds.
func fromMs(v float64) time.Duration { return time.Duration(v * float64(time.Millisecond)) }

// ms is a duration in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
