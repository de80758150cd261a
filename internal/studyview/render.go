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

// The scaling table's marks for a target rate most runs passed, or not.
const (
	markPass = "✅"
	markFail = "❌"
)

// runsTable is the table WriteRuns writes.
func runsTable(runs []study.Run, s study.SLA) *table {
	c := cells
	t := newTable("mode", ">TPS", ">run", ">p50 ms", ">p95 ms", ">p99 ms", ">max ms",
		">achieved/s", ">retries", ">commit retries", ">server ops/txn", "verdict")
	for _, r := range sortedRuns(runs) {
		t.Add(r.Mode, thousands(r.TPS), strconv.Itoa(r.Rep+1),
			c.Num(r.P50), c.Num(r.P95), c.Num(r.P99), c.Num(r.Max),
			thousands(r.Achieved), count(r.Retries), count(r.CommitRetries), c.Num(r.OpsPerTxn), study.Judge(r, s).String())
	}
	return t
}

// sortedRuns returns a copy of runs ordered by rate, mode, repetition and
// start.
func sortedRuns(runs []study.Run) []study.Run {
	out := slices.Clone(runs)
	slices.SortStableFunc(out, func(a, b study.Run) int {
		return cmp.Or(cmp.Compare(a.TPS, b.TPS), study.CompareModes(a.Mode, b.Mode),
			cmp.Compare(a.Rep, b.Rep), a.Start.Compare(b.Start))
	})
	return out
}

// summaryTable is the table WriteSummary writes.
func summaryTable(sums []study.Summary) *table {
	c := cells
	cols := []string{"metric"}
	for _, s := range sums {
		cols = append(cols, ">"+s.Mode+" @ "+thousands(s.TPS)+" TPS")
	}
	t := newTable(cols...)
	t.Add(metricRow("runs passed", sums, func(s study.Summary) string { return fraction(s.Passed, s.Runs) })...)
	t.Add(metricRow("p99 median ms", sums, func(s study.Summary) string { return c.Num(s.P99Median) })...)
	t.Add(metricRow("p99 stddev ms", sums, func(s study.Summary) string { return c.Num(s.P99Stddev) })...)
	t.Add(metricRow("p99 max ms", sums, func(s study.Summary) string { return c.Num(s.P99Max) })...)
	return t
}

// metricRow returns a row of the summary table.
func metricRow(name string, sums []study.Summary, cell func(study.Summary) string) []string {
	row := []string{name}
	for _, s := range sums {
		row = append(row, cell(s))
	}
	return row
}

// scalingTable is the table WriteScaling writes.
func scalingTable(sums []study.Summary) *table {
	c := cells
	modes, rates := modesAndRates(sums)
	cols := []string{">target TPS"}
	for _, m := range modes {
		cols = append(cols, ">"+m+" p99")
	}
	t := newTable(cols...)
	for _, rate := range rates {
		row := []string{thousands(rate)}
		for _, m := range modes {
			row = append(row, scalingCell(c, sums, m, rate))
		}
		t.Add(row...)
	}
	return t
}

// modesAndRates returns the modes (per-op first) and the target rates
// (ascending) of sums.
func modesAndRates(sums []study.Summary) (modes []string, rates []float64) {
	for _, s := range sums {
		if !slices.Contains(modes, s.Mode) {
			modes = append(modes, s.Mode)
		}
		if !slices.Contains(rates, s.TPS) {
			rates = append(rates, s.TPS)
		}
	}
	slices.SortFunc(modes, study.CompareModes)
	slices.Sort(rates)
	return modes, rates
}

// scalingCell formats the summary of mode at rate, as in "~7.53 ms ✅ 5/5".
func scalingCell(c texttable.Cells, sums []study.Summary, mode string, rate float64) string {
	i := slices.IndexFunc(sums, func(s study.Summary) bool { return s.Mode == mode && s.TPS == rate })
	if i < 0 {
		return c.Missing
	}
	s := sums[i]
	mark := markFail
	if s.Held() {
		mark = markPass
	}
	p99 := c.Missing
	if s.P99Median != nil {
		p99 = "~" + sig3(*s.P99Median) + " ms"
	}
	return strings.TrimSpace(p99 + " " + mark + " " + fraction(s.Passed, s.Runs))
}

// scalingNote explains the scaling table's cells and states the SLA.
func scalingNote(s study.SLA) string {
	when := "most runs at that rate passed"
	if s.Require.K > 0 {
		when = fmt.Sprintf("at least %d of %d runs at that rate passed", s.Require.K, s.Require.N)
	}
	return fmt.Sprintf("%s when %s (k/N runs passed); p99 is the median of the runs' p99s. SLA: %s.",
		markPass, when, s)
}

// settingsTable is the table of how each mode's transactions ran.
func settingsTable(runs []study.Run) *table {
	c := cells
	t := newTable("mode", ">runs", "read concern asked", "read concern sent", "write concern")
	var modes []string
	byMode := map[string][]study.Run{}
	for _, r := range sortedRuns(runs) {
		if _, ok := byMode[r.Mode]; !ok {
			modes = append(modes, r.Mode)
		}
		byMode[r.Mode] = append(byMode[r.Mode], r)
	}
	for _, m := range modes {
		rs := byMode[m]
		t.Add(m, strconv.Itoa(len(rs)),
			distinct(c, rs, func(r study.Run) string { return r.ReadConcernAsked }),
			distinct(c, rs, func(r study.Run) string { return readConcernText(r.ReadConcern) }),
			distinct(c, rs, func(r study.Run) string { return r.WriteConcern }))
	}
	return t
}

// readConcernText says what "default" means.
func readConcernText(rc string) string {
	if rc == "default" {
		return "none (the server's default)"
	}
	return rc
}

// distinct joins the distinct non-empty values of runs, in order; the
// missing cell when there are none.
func distinct(c texttable.Cells, runs []study.Run, value func(study.Run) string) string {
	var seen []string
	for _, r := range runs {
		if v := value(r); v != "" && !slices.Contains(seen, v) {
			seen = append(seen, v)
		}
	}
	if seen == nil {
		return c.Missing
	}
	return strings.Join(seen, "; ")
}

// runNotes are the runs' distinct notes, each with the modes and the
// number of runs that carry it.
func runNotes(runs []study.Run) []string {
	type noted struct {
		modes []string
		runs  int
	}
	var order []string
	notes := map[string]*noted{}
	for _, r := range sortedRuns(runs) {
		for _, n := range r.Notes {
			x, ok := notes[n]
			if !ok {
				x = &noted{}
				notes[n] = x
				order = append(order, n)
			}
			x.runs++
			if !slices.Contains(x.modes, r.Mode) {
				x.modes = append(x.modes, r.Mode)
			}
		}
	}
	var out []string
	for _, n := range order {
		x := notes[n]
		out = append(out, fmt.Sprintf("Fallback or note (%s; %s): %s", strings.Join(x.modes, ", "), texttable.Plural(int64(x.runs), "run"), n))
	}
	return out
}
