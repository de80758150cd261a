package studyview

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/texttable"
)

// sweepTable is the table of steps writeSweepTable writes.
func sweepTable(steps []study.Step, c study.Criteria) *table {
	cl := cells
	sorted := slices.Clone(steps)
	slices.SortStableFunc(sorted, func(a, b study.Step) int {
		return cmp.Or(cmp.Compare(a.Rate, b.Rate), cmp.Compare(a.Rep, b.Rep))
	})
	reps := slices.ContainsFunc(steps, func(s study.Step) bool { return s.Rep > 0 })
	ops := study.OpNames(steps)
	cols := []string{">target/s"}
	if reps {
		cols = append(cols, ">run")
	}
	cols = append(cols, ">achieved/s")
	for _, op := range ops {
		cols = append(cols, ">"+op+" p50 ms", ">"+op+" p95 ms", ">"+op+" p99 ms")
	}
	t := newTable(append(cols, ">errors", ">late", "holds")...)
	for _, s := range sorted {
		row := []string{thousands(s.Rate)}
		if reps {
			row = append(row, strconv.Itoa(s.Rep+1))
		}
		row = append(row, thousands(s.Achieved))
		for _, name := range ops {
			i := slices.IndexFunc(s.Ops, func(o study.OpLatency) bool { return o.Name == name })
			if i < 0 {
				row = append(row, cl.Missing, cl.Missing, cl.Missing)
				continue
			}
			o := s.Ops[i]
			row = append(row, cl.Num(o.P50), cl.Num(o.P95), cl.Num(o.P99))
		}
		row = append(row, count(s.Errors), count(s.Late), holdsCell(s, c))
		t.Add(row...)
	}
	return t
}

// holdsCell is ✅, or ❌ and the reasons.
func holdsCell(s study.Step, c study.Criteria) string {
	ok, reasons := study.Holds(s, c)
	if ok {
		return markPass
	}
	return markFail + " " + strings.Join(reasons, "; ")
}

// kneeLimit is what limited the complete runs at the saturation target:
// each distinct verdict once, in the order of the runs.
func kneeLimit(steps []study.Step, at float64) string {
	var seen []string
	for _, s := range steps {
		if s.Rate == at && !s.Partial && s.Limited != "" && !slices.Contains(seen, s.Limited) {
			seen = append(seen, s.Limited)
		}
	}
	return strings.Join(seen, " | ")
}

// kneeTail is what the p99 tails coincided with in the complete runs of
// the step past the knee (the lowest target above the saturation target
// at), or of the knee itself when no step went past it: each distinct
// tail line once, in the order of the runs, and that step's target.
func kneeTail(steps []study.Step, at float64) (string, float64) {
	past := at
	for _, s := range steps {
		if s.Rate > at && !s.Partial && s.Tail != "" && (past == at || s.Rate < past) {
			past = s.Rate
		}
	}
	var seen []string
	for _, s := range steps {
		if s.Rate == past && !s.Partial && s.Tail != "" && !slices.Contains(seen, s.Tail) {
			seen = append(seen, s.Tail)
		}
	}
	return strings.Join(seen, " | "), past
}

// sweepVerdict is the sweep's answer, a line each: the saturation
// throughput, what limited the knee, the highest target that held.
func sweepVerdict(steps []study.Step, c study.Criteria) []string {
	var lines []string
	if ach, at := study.Saturation(steps); at > 0 && study.Saturated(steps, c) {
		lines = append(lines, fmt.Sprintf("Saturation throughput: %s ops/s achieved (the highest achieved rate, at target %s/s).",
			thousands(ach), thousands(at)))
		if why := kneeLimit(steps, at); why != "" {
			lines = append(lines, fmt.Sprintf("At the knee (target %s/s): %s.", thousands(at), why))
		}
		if tail, rate := kneeTail(steps, at); tail != "" {
			where := "Past the knee"
			if rate == at {
				where = "At the knee" // no step went past it
			}
			lines = append(lines, fmt.Sprintf("%s (target %s/s), what the tail coincided with: %s.", where, thousands(rate), tail))
		}
	} else if at > 0 {
		lines = append(lines, fmt.Sprintf("Saturation throughput: ≥ %s ops/s (no step saturated: every target rate was kept up with; the highest achieved rate, at target %s/s).",
			thousands(ach), thousands(at)))
	}
	if best, ok := study.MaxAtSLA(steps, c); ok {
		lines = append(lines, fmt.Sprintf("Maximum throughput that held (%s): %s ops/s.", c, thousands(best)))
	} else if len(steps) > 0 {
		lines = append(lines, fmt.Sprintf("No target rate held (%s).", c))
	}
	return lines
}

// spreadNote explains the spread table.
var spreadNote = fmt.Sprintf("p99 is each run's highest p99 over its operation types; CV is stddev/mean; %s when the p99 varied by more than %s%% between runs (max/min − 1).",
	markFail, study.Percent(study.P99Variation))

// spreadTable is the table WriteSpread writes.
func spreadTable(spreads []study.Spread) *table {
	cl := cells
	t := newTable(">target/s", ">runs",
		">achieved mean/s", ">sd", ">min", ">max", ">CV",
		">p99 mean ms", ">sd", ">min", ">max", ">CV", "p99 stable")
	for _, s := range spreads {
		a, p := s.Achieved, s.P99
		row := []string{thousands(s.Rate), strconv.Itoa(a.N),
			thousands(a.Mean), optThousands(cl, a.Stddev), thousands(a.Min), thousands(a.Max), cvText(cl, a.CV)}
		if p.N == 0 {
			row = append(row, cl.Missing, cl.Missing, cl.Missing, cl.Missing, cl.Missing, cl.Missing)
		} else {
			row = append(row, sig3(p.Mean), cl.Num(p.Stddev), sig3(p.Min), sig3(p.Max), cvText(cl, p.CV), stableCell(cl, s))
		}
		t.Add(row...)
	}
	return t
}

func optThousands(c texttable.Cells, v *float64) string {
	if v == nil {
		return c.Missing
	}
	return thousands(*v)
}

func cvText(c texttable.Cells, v *float64) string {
	if v == nil {
		return c.Missing
	}
	return sig3(*v*100) + "%"
}

// stableCell is ✅, ❌ and the variation, or missing below two p99s.
func stableCell(c texttable.Cells, s study.Spread) string {
	if s.P99.N < 2 {
		return c.Missing
	}
	if s.Unstable {
		return markFail + " " + sig3(s.P99.Variation*100) + "% apart"
	}
	return markPass
}
