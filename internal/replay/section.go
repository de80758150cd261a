package replay

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/mongobench/mongobench/internal/hist"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/texttable"
)

// Replayed is what the replay counted per shape: requests sent, and the
// documents their replies' cursors returned (-1: none carried a cursor).
type Replayed struct {
	Sent []int64
	Docs []int64
}

// Section is the result's replay section of a run of plan p.
func Section(name string, p *Plan, o Options, m Mapped, got Replayed) *result.Replay {
	total := int64(len(p.Requests))
	r := &result.Replay{
		Recording: name, Layout: p.Layout, Speed: o.Speed, Connections: p.Conns, Requests: total,
		SpanMs: float64(p.Span.Microseconds()) / 1000, AllowWrites: o.AllowWrites,
		Mapped: result.ReplayMapped(m),
	}
	if rate := p.RecordedRate(); rate > 0 {
		r.RecordedRate = result.F(rate)
	}
	for _, rule := range o.MapNS {
		r.MapNS = append(r.MapNS, rule.From+"="+rule.To)
	}
	reasons := make([]string, 0, len(p.Skipped))
	for k := range p.Skipped {
		reasons = append(reasons, k)
	}
	sort.Strings(reasons)
	for _, k := range reasons {
		r.Skipped = append(r.Skipped, result.ReplaySkip{Reason: k, Count: p.Skipped[k]})
	}
	for i, s := range p.Shapes {
		rs := result.ReplayShape{Op: s.Op, Shape: s.Key, Command: s.Command, Namespace: s.Namespace,
			Requests: s.Requests, Share: float64(s.Requests) / float64(total), Write: s.Write,
			RecordedFailed: s.RecordedFailed}
		if d, err := hist.Summarize(s.Recorded); err == nil {
			rs.Recorded = d
		}
		if s.RecordedDocs >= 0 {
			rs.RecordedDocs = result.Ptr(s.RecordedDocs)
		}
		if i < len(got.Docs) && got.Docs[i] >= 0 {
			rs.ReplayedDocs = result.Ptr(got.Docs[i])
		}
		if i < len(got.Sent) {
			rs.Sent = got.Sent[i]
		}
		r.Shapes = append(r.Shapes, rs)
	}
	return r
}

// ShapeRow is a shape of a replayed run beside its recording.
type ShapeRow struct {
	result.ReplayShape
	Replayed result.Dist
	Errors   result.Errors
	// Slower is the replayed p99 over the recorded p99 (NaN: either is
	// missing).
	Slower float64
}

// Rows are a replayed run's shapes, the ones that got slower first (by
// how much their p99 grew), then those without both figures, by
// requests.
func Rows(d *result.Doc) []ShapeRow {
	if d.Replay == nil {
		return nil
	}
	ops := map[string]result.OpStats{}
	for _, o := range d.Ops {
		ops[o.Name] = o
	}
	rows := make([]ShapeRow, 0, len(d.Replay.Shapes))
	for _, s := range d.Replay.Shapes {
		o := ops[s.Op]
		row := ShapeRow{ReplayShape: s, Replayed: o.Latency, Errors: o.Errors, Slower: math.NaN()}
		if rec, got := s.Recorded.P99, o.Latency.P99; rec != nil && got != nil && *rec > 0 {
			row.Slower = *got / *rec
		}
		rows = append(rows, row)
	}
	slices.SortStableFunc(rows, func(a, b ShapeRow) int {
		an, bn := math.IsNaN(a.Slower), math.IsNaN(b.Slower)
		switch {
		case an && bn:
			return cmp.Compare(b.Requests, a.Requests)
		case an:
			return 1
		case bn:
			return -1
		}
		return cmp.Compare(b.Slower, a.Slower)
	})
	return rows
}

// View is the per-shape table of a replayed run: the shapes that got
// slower first, the recording's latency against the replay's, documents
// returned recorded against replayed, errors by class.
func View(d *result.Doc, top int) string {
	rows := Rows(d)
	if rows == nil {
		return ""
	}
	rp := d.Replay
	var b strings.Builder
	rate := "—"
	if rp.RecordedRate != nil {
		rate = fmt.Sprintf("%.1f/s", *rp.RecordedRate)
	}
	fmt.Fprintf(&b, "replay of %s at ×%g: %d requests on %d connections (recorded %s over %.3fs)\n",
		rp.Recording, rp.Speed, rp.Requests, rp.Connections, rate, rp.SpanMs/1000)
	for _, s := range rp.Skipped {
		fmt.Fprintf(&b, "  not replayed: %d %s\n", s.Count, s.Reason)
	}
	m := rp.Mapped
	fmt.Fprintf(&b, "  changed: %d cursor ids, %d sessions, %d transaction numbers, %d $clusterTime and %d afterClusterTime dropped, %d namespaces mapped; %d requests not sent (their cursor closed on the candidate)\n",
		m.Cursors, m.Sessions, m.TxnNumbers, m.ClusterTimes, m.AfterClusterTimes, m.Namespaces, m.CursorsGone)
	t := texttable.New("shape", "requests", "share", "p50 rec", "p50 now", "p99 rec", "p99 now", "p99 ×", "docs rec", "docs now", "errors")
	shown := rows
	if top > 0 && len(shown) > top {
		shown = shown[:top]
	}
	for _, r := range shown {
		t.Add(r.Op, fmt.Sprint(r.Requests), fmt.Sprintf("%.1f%%", 100*r.Share),
			ms(r.Recorded.P50), ms(r.Replayed.P50), ms(r.Recorded.P99), ms(r.Replayed.P99),
			ratio(r.Slower), count(r.RecordedDocs), count(r.ReplayedDocs), errorsText(r.Errors))
	}
	_ = t.WriteText(&b, true)
	if len(rows) > len(shown) {
		fmt.Fprintf(&b, "… %d more shapes (in the result's replay.shapes)\n", len(rows)-len(shown))
	}
	for _, r := range rows {
		if r.Plan != "" {
			fmt.Fprintf(&b, "plan of %s on the candidate: %s\n", r.Op, clip(r.Plan, 240))
		}
	}
	return b.String()
}

func ms(v *float64) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprintf("%.3fms", *v)
}

func ratio(v float64) string {
	if math.IsNaN(v) {
		return "—"
	}
	return fmt.Sprintf("%.2f", v)
}

func count(v *int64) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprint(*v)
}

func errorsText(e result.Errors) string {
	if e.Total == 0 {
		return "0"
	}
	var parts []string
	for _, c := range []struct {
		n    int64
		name string
	}{{e.Timeout, "timeout"}, {e.Network, "network"}, {e.WriteConflict, "writeConflict"}, {e.DuplicateKey, "duplicateKey"}, {e.Overload, "overload"}, {e.Other, "other"}} {
		if c.n > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", c.n, c.name))
		}
	}
	return strings.Join(parts, ", ")
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
