package changes

import (
	"slices"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/significance"
	"github.com/mongobench/mongobench/internal/texttable"
)

// Steady is a change's ClientHost when both sides' runs carry the client
// host's canary and no figure of it moved.
const Steady = "steady"

// sides are the runs change c of series s compared (RunsBefore runs
// before its first changed run, RunsAfter from it, at least one each),
// nil when s has not its first changed run.
func (s Series) sides(c Change) (before, after []Run) {
	runs, _ := s.Values(c.Metric)
	i := slices.IndexFunc(runs, func(r Run) bool { return r.ID == c.FirstChanged.ID })
	if i < 0 || c.Series.String() != s.Key.String() {
		return nil, nil
	}
	return runs[max(0, i-max(c.RunsBefore, 1)):i], runs[i:min(len(runs), i+max(c.RunsAfter, 1))]
}

// ClientHost says whether the client host, not the server, moved across
// change c of series s: the canaries of the runs c's medians were taken
// from (RunsBefore runs before its first changed run, RunsAfter from it)
// compared figure by figure (significance.Canaries): Steady when none
// moved, the words of significance.HostMoved when one did, "" when a
// side's runs carry no canary (or c is not of s).
func (s Series) ClientHost(c Change) string {
	b, a := s.sides(c)
	var before, after []result.Canary
	for _, r := range b {
		before = append(before, r.Canary...)
	}
	for _, r := range a {
		after = append(after, r.Canary...)
	}
	if len(before) == 0 || len(after) == 0 {
		return ""
	}
	if moved := significance.HostMoved(significance.Canaries(before, after), "the runs before "+c.FirstChanged.ID, "the runs from "+c.FirstChanged.ID); moved != "" {
		return moved
	}
	return Steady
}

// WithClientHost sets each change's ClientHost from its series.
func WithClientHost(series []Series, cs []Change) {
	for i := range cs {
		for _, s := range series {
			if s.Key.String() == cs[i].Series.String() {
				cs[i].ClientHost = s.ClientHost(cs[i])
			}
		}
	}
}

// CanaryTable is each run of a series beside the client host's canary
// taken around it: per figure, the median of its readings (before and
// after the run), "—" where the run has none.
func CanaryTable(s Series) *texttable.Table {
	return canaryTable(s.Runs, nil)
}

// ChangeCanaryTable is the runs change c of series s compared, each
// beside its canary (CanaryTable), with the side of the change it is on.
func ChangeCanaryTable(s Series, c Change) *texttable.Table {
	b, a := s.sides(c)
	return canaryTable(append(slices.Clone(b), a...), func(i int) string {
		if i < len(b) {
			return "before"
		}
		return "after"
	})
}

func canaryTable(runs []Run, side func(int) string) *texttable.Table {
	var head []string
	if side != nil {
		head = append(head, "side")
	}
	head = append(head, "run", "start")
	for _, f := range result.CanaryFigures {
		head = append(head, ">"+f.Name+" ("+f.Unit+")")
	}
	t := texttable.New(head...)
	for i, r := range runs {
		var row []string
		if side != nil {
			row = append(row, side(i))
		}
		row = append(row, r.ID, r.Start.UTC().Format("2006-01-02 15:04"))
		for _, f := range result.CanaryFigures {
			var v []float64
			for _, c := range r.Canary {
				if x := f.Value(c); x != nil {
					v = append(v, *x)
				}
			}
			cell := "—"
			if len(v) > 0 {
				cell = texttable.Sig3(significance.Median(v))
			}
			row = append(row, cell)
		}
		t.Add(row...)
	}
	return t
}
