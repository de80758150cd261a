package validity

import (
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/mongobench/mongobench/internal/result"
)

// The interval figures the rules read (telemetry's keys, as stored).
const (
	keySteal     = "cpuStealPct"
	keySwapIn    = "swapInPagesPerSec"
	keySwapOut   = "swapOutPagesPerSec"
	keyCache     = "cacheBytes"
	keyCacheMax  = "cacheMaxBytes"
	uptimeMillis = "uptimeMillis"
	uptimeSecs   = "uptime"
)

func clientSaturated(d *result.Doc) (float64, string, bool) {
	c := d.Client
	switch {
	case c.NotJudged != "":
		return 0, "the client's headroom was not judged: " + c.NotJudged, false
	case c.ClientBound:
		return 1, "client-bound: " + strings.Join(c.Reasons, "; "), true
	}
	return 0, fmt.Sprintf("the client kept its schedule (client CPU %s%% of its cores)", num(c.CPUPercent)), true
}

func clientStarved(d *result.Doc) (float64, string, bool) {
	w := d.Client.CPUWait
	if w == nil {
		return 0, "the client's time waiting for a CPU is not known (no /proc/self/task/*/schedstat)", false
	}
	return 100 * *w, fmt.Sprintf("the client's threads spent %s%% of the time they were ready to run waiting for a CPU (client CPU %s%% of its %d cores)",
		num(100**w), num(d.Client.CPUPercent), d.Client.Cores), true
}

func clientImprecise(d *result.Doc) (float64, string, bool) {
	p := d.Schedule.Precision
	if p == nil || !p.Judged || p.Share == nil || p.SendLagP99 == nil {
		if p != nil && p.Note != "" {
			return 0, "the client's precision was not judged: " + p.Note, false
		}
		return 0, "the client's precision was not judged (a closed loop, or nothing succeeded)", false
	}
	ev := fmt.Sprintf("send lag p99 %s ms is %s%% of %s's p50", num(*p.SendLagP99), num(100**p.Share), p.Op)
	if !p.Flagged {
		if p.Note != "" {
			ev += " (" + p.Note + ")"
		}
		return 0, ev, true
	}
	return 1, ev, true
}

// intervalMean is the mean of an interval figure over the intervals that
// hold it, and how many do.
func intervalMean(d *result.Doc, host bool, keys ...string) (float64, int) {
	var sum float64
	n := 0
	for _, iv := range d.Intervals {
		m := iv.Server
		if host {
			m = iv.Host
		}
		var v float64
		ok := true
		for _, k := range keys {
			x, has := m[k]
			ok = ok && has
			v += x
		}
		if ok {
			sum += v
			n++
		}
	}
	if n == 0 {
		return 0, 0
	}
	return sum / float64(n), n
}

func cpuSteal(d *result.Doc) (float64, string, bool) {
	m, n := intervalMean(d, true, keySteal)
	if n == 0 {
		return 0, "the run has no host CPU steal figure (no host telemetry of the server's host)", false
	}
	return m, fmt.Sprintf("mean CPU steal %s%% over %d intervals", num(m), n), true
}

func swapping(d *result.Doc) (float64, string, bool) {
	m, n := intervalMean(d, true, keySwapIn, keySwapOut)
	if n == 0 {
		if _, hosts := intervalMean(d, true, keySteal); hosts > 0 {
			return 0, "the host's figures carry no swap counters (" + hostSource(d) + ")", false
		}
		return 0, "the run has no swap figures (no host telemetry of the server's host)", false
	}
	return m, fmt.Sprintf("%s pages swapped in and out per second on average over %d intervals, from %s", num(m), n, hostSource(d)), true
}

// hostSource words where the run's host figures came from, by the source
// of its host CPU series.
func hostSource(d *result.Doc) string {
	src := ""
	if s := d.Metrics.Series(result.CPUUser); s != nil {
		src = s.Source
	}
	switch src {
	case "local":
		return "this host's /proc (/proc/vmstat's pswpin and pswpout): the server shares the client's host"
	case "node_exporter":
		return "the server host's node exporter (node_vmstat_pswpin and _pswpout)"
	case "":
		return "the server's host figures"
	}
	return "the server's host figures, source " + src
}

// uptime is a serverStatus document's uptime in seconds.
func uptime(doc map[string]any) (float64, bool) {
	if v, ok := number(doc[uptimeMillis]); ok {
		return v / 1000, true
	}
	return number(doc[uptimeSecs])
}

func serverRestarted(d *result.Doc) (float64, string, bool) {
	secs := d.Duration / 1000
	before, ok1 := uptime(d.BeforeStatus)
	after, ok2 := uptime(d.AfterStatus)
	if !ok1 || !ok2 {
		// A server that reports no uptime still counts its operations
		// from its start: a counter that fell is a restart, whose uptime
		// lost is unknown, so the whole phase counts as lost.
		fell, ok := countersFell(d.BeforeStatus, d.AfterStatus)
		switch {
		case !ok:
			return 0, "the server's serverStatus has neither uptime nor opcounters before and after the run", false
		case fell != "":
			return secs, "the server reports no uptime, and its opcounters fell (" + fell + "): it restarted during the run", true
		}
		return 0, "the server reports no uptime; its opcounters only grew", true
	}
	lost := max(before+secs-after, 0)
	return lost, fmt.Sprintf("uptime %ss before the measured phase, %ss after it, %ss apart", num(before), num(after), num(secs)), true
}

// countersFell names the first opcounter lower after the run than
// before it ("" when none fell); ok is false when either document has no
// opcounters.
func countersFell(before, after map[string]any) (string, bool) {
	b, ok1 := before["opcounters"].(map[string]any)
	a, ok2 := after["opcounters"].(map[string]any)
	if !ok1 || !ok2 || len(b) == 0 {
		return "", false
	}
	for _, k := range slices.Sorted(maps.Keys(b)) {
		x, okb := number(b[k])
		y, oka := number(a[k])
		if okb && oka && y < x {
			return fmt.Sprintf("%s %s → %s", k, num(x), num(y)), true
		}
	}
	return "", true
}

func memberLag(d *result.Doc) (float64, string, bool) {
	worst, who := math.NaN(), ""
	for _, s := range d.Metrics.Members {
		if s.Name != result.ReplicationLag {
			continue
		}
		for _, p := range s.DataPoints {
			if p.Value != nil && (math.IsNaN(worst) || *p.Value > worst) {
				worst, who = *p.Value, s.Member
			}
		}
	}
	if math.IsNaN(worst) {
		return 0, "the run has no replication lag series (a standalone, a set of one member, or no member's telemetry)", false
	}
	return worst, fmt.Sprintf("largest lag %s s, of %s", num(worst), who), true
}

// stateName is a member state's name, "state N" for one the server
// does not name.
func stateName(v float64) string {
	if n, ok := result.MemberStateName(int64(v)); ok && float64(int64(v)) == v {
		return n
	}
	return "state " + num(v)
}

// memberStateChanged counts the members whose state in the run's
// replSetGetStatus samples (the MemberState series) differs from the one
// it had at the first sample that read it, and says each change and
// whether the primary changed.
func memberStateChanged(d *result.Doc) (float64, string, bool) {
	var changes, primaries []string // primaries: in the order of the samples that name one
	members, samples, changed := 0, 0, 0
	type at struct {
		t      time.Time
		member string
	}
	var prim []at
	for _, s := range d.Metrics.Members {
		if s.Name != result.MemberState {
			continue
		}
		members++
		samples = max(samples, len(s.DataPoints))
		moved := false
		var prev *float64 // the last state read before this point
		for _, p := range s.DataPoints {
			if p.Value == nil {
				continue
			}
			if *p.Value == 1 {
				prim = append(prim, at{p.Timestamp, s.Member})
			}
			if prev != nil && *prev != *p.Value {
				moved = true
				changes = append(changes, fmt.Sprintf("%s %s → %s %s into the run", s.Member, stateName(*prev), stateName(*p.Value),
					num(p.Timestamp.Sub(s.DataPoints[0].Timestamp).Seconds())+" s"))
			}
			prev = p.Value
		}
		if moved {
			changed++
		}
	}
	if members == 0 {
		return 0, "the run has no member state series (not a replica set, or replSetGetStatus was not read)", false
	}
	slices.SortStableFunc(prim, func(a, b at) int { return a.t.Compare(b.t) })
	for _, p := range prim {
		if len(primaries) == 0 || primaries[len(primaries)-1] != p.member {
			primaries = append(primaries, p.member)
		}
	}
	if changed == 0 {
		who := "no primary"
		if len(primaries) > 0 {
			who = "primary " + primaries[0]
		}
		return 0, fmt.Sprintf("%d member(s) kept their state over %d samples (%s)", members, samples, who), true
	}
	ev := strings.Join(changes, "; ")
	if len(primaries) > 1 {
		ev += "; the primary changed: " + strings.Join(primaries, " → ")
	}
	return float64(changed), ev, true
}

func cacheOverfull(d *result.Doc) (float64, string, bool) {
	worst, n := math.NaN(), 0
	for _, iv := range d.Intervals {
		c, ok1 := iv.Server[keyCache]
		m, ok2 := iv.Server[keyCacheMax]
		if !ok1 || !ok2 || m <= 0 {
			continue
		}
		n++
		if v := 100 * c / m; math.IsNaN(worst) || v > worst {
			worst = v
		}
	}
	if n == 0 {
		return 0, "the run has no cache figures (the server does not report its storage engine's cache)", false
	}
	return worst, fmt.Sprintf("the cache held at most %s%% of its configured size over %d intervals", num(worst), n), true
}

// telemetrySilent is the largest share of intervals a source that
// answered at least once left without figures.
func telemetrySilent(d *result.Doc) (float64, string, bool) {
	if len(d.Intervals) == 0 {
		return 0, "the run has no intervals", false
	}
	worst, which, judged := 0.0, "", false
	for _, src := range []struct {
		name string
		has  func(result.Interval) bool
	}{
		{"the host's", func(iv result.Interval) bool { return len(iv.Host) > 0 }},
		{"the server's", func(iv result.Interval) bool { return len(iv.Server) > 0 }},
	} {
		n := 0
		for _, iv := range d.Intervals {
			if src.has(iv) {
				n++
			}
		}
		if n == 0 {
			continue
		}
		judged = true
		if s := 100 * float64(len(d.Intervals)-n) / float64(len(d.Intervals)); s > worst {
			worst, which = s, src.name
		}
	}
	if !judged {
		return 0, "no telemetry source answered during the run", false
	}
	if which == "" {
		return 0, "every source that answered did so in every interval", true
	}
	return worst, fmt.Sprintf("%s figures are missing from %s%% of the intervals", which, num(worst)), true
}

// fewOperations counts the operation types whose successes are too few
// for a p99 other than their maximum.
func fewOperations(d *result.Doc) (float64, string, bool) {
	var few []string
	n := 0
	for _, op := range d.Ops {
		if op.Count == 0 {
			continue
		}
		n++
		if op.Count < minOpsForP99 {
			few = append(few, fmt.Sprintf("%s %d", op.Name, op.Count))
		}
	}
	if n == 0 {
		return 0, "no operation succeeded", false
	}
	if len(few) == 0 {
		return 0, fmt.Sprintf("every operation type has at least %d successes", minOpsForP99), true
	}
	return float64(len(few)), "too few successes for a p99: " + strings.Join(few, ", "), true
}

func number(v any) (float64, bool) {
	switch x := v.(type) {
	case float64:
		return x, true
	case int32:
		return float64(x), true
	case int64:
		return float64(x), true
	case int:
		return float64(x), true
	}
	return 0, false
}

func num(v float64) string {
	switch {
	case v == math.Trunc(v) && math.Abs(v) < 1e15:
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 100:
		return fmt.Sprintf("%.0f", v)
	case math.Abs(v) >= 10:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.2f", v)
}
