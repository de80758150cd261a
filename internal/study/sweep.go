package study

import (
	"cmp"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/threshold"
)

// Sweeps: one workload at a series of target rates (mongobench sweep).
//
// A step is one open-loop run at one target rate; with repetitions, several
// steps share a rate and are told apart by Rep. A step holds when it
// achieved at least MinFraction (95% by default) of its target, the p99 of
// every operation type is within the SLA (when one is set), the share of
// failed operations is at most MaxErrors, it did not stop early (nor,
// for a run group's step, did any client, and none is missing), and the
// thresholds stored with it hold. A target rate holds when most of its
// repetitions hold.
//
// Spread over repetitions: the mean, sample standard deviation, minimum,
// maximum and coefficient of variation (stddev / mean) of the achieved
// rate and of the step's p99 (the highest p99 among its operation types,
// the one the SLA judges). A rate's p99 is flagged as unstable when it
// varies by more than 10% between runs, that is when max/min − 1 > 0.10;
// the coefficient of variation is shown but does not flag.

// DefaultSweepFraction is the share of the target rate a sweep step must
// achieve when the criteria do not say.
const DefaultSweepFraction = 0.95

// P99Variation is the largest max/min − 1 of a rate's p99s over its
// repetitions before the rate is flagged.
const P99Variation = 0.10

// OpLatency is one operation type's throughput (successes per second)
// and latency in a step, in milliseconds; nil is not recorded.
type OpLatency struct {
	Name          string
	Rate          float64
	P50, P95, P99 *float64
}

// Step is one run of a sweep.
type Step struct {
	RunID    string
	Sweep    string // id shared by the steps of one invocation
	Index    int    // the sweep's step number (1-based), shared by repetitions
	Rep      int    // 0-based repetition
	Rate     float64
	Achieved float64 // completed operations (successes and errors) per second
	Ops      []OpLatency
	Count    int64 // completed operations, errors included
	Errors   int64
	Late     int64
	Partial  bool
	// Missing says, for a run group's partial result, which clients it
	// lacks or which stopped early (result.Doc.PartialReason).
	Missing  string
	Label    string   // the run's label, e.g. the instance type
	Workload string   // test_config.workload
	Cost     *float64 // _id.instance.cost: the target's price, cents per hour; nil unknown
	Currency string   // _id.instance.currency: Cost's (USD for a sweep stored without one)
	// Thresholds says which of the run's thresholds failed (a step whose
	// thresholds fail does not hold).
	Thresholds []string
	// Limited is the run's diagnosis verdict ("limited by: …"); empty
	// when the document has none.
	Limited string
	// Tail is what the run's p99 tail coincided with (its diagnosis's
	// "p99 tail: …" line: a cause with its evidence, or that nothing
	// lines up); empty when the document has none or the tail was not
	// judged (too few intervals).
	Tail string
	// Verdict is the sweep's verdict stored with the run
	// (testResults.sweep); nil before it is judged.
	Verdict *result.SweepVerdict
	// StudyVerdicts are the verdicts of the sweep's criteria, judged by
	// the lab on the run's result (testResults.bounds).
	StudyVerdicts []result.ThresholdVerdict
	// Judged are the thresholds the stored verdict judged (Judged).
	Judged []string
}

// StepOf reads a Step from a result document of an open-loop run.
func StepOf(d *result.Doc) (Step, error) {
	rate, err := targetRate(d)
	if err != nil {
		return Step{}, fmt.Errorf("run %s: %w", d.RunID, err)
	}
	sweep, _ := d.Variant["sweep"].(string)
	idx, _, err := number(d.Variant, "sweepStep")
	if err != nil {
		return Step{}, fmt.Errorf("run %s: variant.%w", d.RunID, err)
	}
	cost, currency, err := costOf(d)
	if err != nil {
		return Step{}, fmt.Errorf("run %s: %w", d.RunID, err)
	}
	workload, _ := d.TestConfig["workload"].(string)
	s := Step{RunID: d.RunID, Sweep: sweep, Index: int(idx), Rep: d.Repetition, Rate: rate,
		Achieved: d.Schedule.AchievedRate, Late: d.Schedule.Late, Partial: d.Partial,
		Label: d.Label, Workload: workload, Cost: cost, Currency: currency, Thresholds: ThresholdReasons(d), Verdict: d.TestResults.Sweep,
		StudyVerdicts: d.TestResults.Bounds}
	if v := d.TestResults.Sweep; v != nil {
		s.Judged = Judged(d.TestResults.Bounds, v.Criteria, legacyCriteria)
	}
	if d.Partial && d.Group != nil && d.Group.ClientIndex == nil {
		s.Missing = d.PartialReason
	}
	if d.Diagnosis != nil {
		s.Limited = d.Diagnosis.Line
		if t := d.Diagnosis.Tail; t != nil && t.NotJudged == "" {
			s.Tail = t.Line
		}
	}
	for _, op := range d.Ops {
		if op.Count+op.Errors.Total == 0 {
			continue // an operation type the mix never chose
		}
		l := op.Latency
		s.Ops = append(s.Ops, OpLatency{Name: op.Name, Rate: op.Rate, P50: l.P50, P95: l.P95, P99: l.P99})
		done, failed := op.Whole()
		s.Count += done
		s.Errors += failed
	}
	return s, nil
}

// costOf reads _id.instance.cost (cents per hour), nil when absent, and
// its currency: a sweep stored without one was priced in US dollars.
func costOf(d *result.Doc) (*float64, string, error) {
	v, ok := d.ID.Get("instance")
	if !ok {
		v = d.Variant["instance"]
	}
	inst, _ := v.(map[string]any)
	c, ok, err := number(inst, "cost")
	if err != nil || !ok {
		if err != nil {
			err = fmt.Errorf("_id.instance.%w", err)
		}
		return nil, "", err
	}
	currency, _ := inst["currency"].(string)
	if currency == "" {
		currency = "USD"
	}
	return &c, currency, nil
}

// P99 returns the highest p99 among the step's operation types; nil when
// none was recorded.
func (s Step) P99() *float64 {
	var out *float64
	for _, op := range s.Ops {
		if op.P99 != nil && (out == nil || *op.P99 > *out) {
			v := *op.P99
			out = &v
		}
	}
	return out
}

// ErrorRate returns the share of completed operations that failed.
func (s Step) ErrorRate() float64 {
	if s.Count == 0 {
		return 0
	}
	return float64(s.Errors) / float64(s.Count)
}

// Criteria decide whether a step holds.
type Criteria struct {
	// MinFraction is the share of the target a step must achieve; 0 means
	// DefaultSweepFraction.
	MinFraction float64
	// SLA bounds every operation type's p99; 0 is not checked.
	SLA time.Duration
	// MaxErrors is the largest share of failed operations, as 0.01.
	MaxErrors float64
	// stored, set by StoredCriteria, are the thresholds the sweep judged
	// its stored steps under (empty: none stored with the steps): each
	// step holds by its stored verdict.
	stored []string
}

// StoredCriteria are the criteria a sweep judged its stored steps under,
// read from the thresholds the first step with a verdict judged
// (Step.Judged): a step judged by them holds by the verdict stored with
// it, never judged again.
func StoredCriteria(steps []Step) Criteria {
	for _, s := range steps {
		if s.Verdict != nil && len(s.Judged) > 0 {
			return criteriaOf(s.Judged)
		}
	}
	return Criteria{stored: []string{}}
}

// criteriaOf are the criteria the thresholds exprs state (Thresholds'
// own form), marked stored.
func criteriaOf(exprs []string) Criteria {
	c := Criteria{stored: exprs}
	ts, err := threshold.ParseAll(exprs)
	if err != nil {
		return c
	}
	for _, t := range ts {
		switch {
		case t.Kind == threshold.Rate && t.Unit == threshold.Percent:
			c.MinFraction = t.Limit / 100
		case t.Kind == threshold.Latency && t.Stat == "p99" && t.Op == "":
			c.SLA = time.Duration(t.Limit * float64(time.Millisecond))
		case t.Kind == threshold.Errors && t.Unit == threshold.Percent:
			c.MaxErrors = t.Limit / 100
		}
	}
	return c
}

func (c Criteria) fraction() float64 {
	if c.MinFraction == 0 {
		return DefaultSweepFraction
	}
	return c.MinFraction
}

// String describes the criteria, as in "achieved ≥ 95% of target, p99 of
// every operation ≤ 20 ms, errors ≤ 1%".
func (c Criteria) String() string {
	if c.stored != nil && len(c.stored) == 0 {
		return "the verdicts stored with the steps"
	}
	parts := []string{"achieved ≥ " + Percent(c.fraction()) + "% of target"}
	if c.SLA > 0 {
		parts = append(parts, "p99 of every operation ≤ "+limitText(c.SLA)+" ms")
	}
	return strings.Join(append(parts, "errors ≤ "+Percent(c.MaxErrors)+"%"), ", ")
}

// Holds decides whether step s meets c, and if not, why: the verdicts of
// c's thresholds (Criteria.Thresholds), which the lab judged on the
// step's result (Step.StudyVerdicts), the step complete (a run group's step
// with every client), and its own thresholds held. A stored step read
// under other criteria than it was measured with (compare --sla) has
// them judged on its stored figures.
//
// A step that carries the verdict the sweep stored under the same
// criteria holds by it: a stored sweep is shown as it was judged.
func Holds(s Step, c Criteria) (bool, []string) {
	if v := s.Verdict; v != nil && sameThresholds(s.Judged, c.Thresholds()) {
		return v.Holds, v.Reasons
	}
	if c.stored != nil {
		return false, []string{"no verdict stored with the run"}
	}
	ts := c.Thresholds()
	reasons := stepReasons(s, ts, judged(ts, s.StudyVerdicts, s.figures))
	switch {
	case s.Partial && s.Missing != "":
		reasons = append(reasons, "group result partial: "+s.Missing)
	case s.Partial:
		reasons = append(reasons, "run stopped early")
	}
	reasons = append(reasons, s.Thresholds...)
	return len(reasons) == 0, reasons
}

// Level gathers the repetitions of one target rate.
type Level struct {
	Rate  float64
	Steps []Step
	Held  int // repetitions that held
}

// Holds reports whether most repetitions held.
func (l Level) Holds() bool { return Majority(l.Held, len(l.Steps)) }

// Levels groups steps by target rate, ascending.
func Levels(steps []Step, c Criteria) []Level {
	var out []Level
	for _, s := range steps {
		i := slices.IndexFunc(out, func(l Level) bool { return l.Rate == s.Rate })
		if i < 0 {
			out = append(out, Level{Rate: s.Rate})
			i = len(out) - 1
		}
		out[i].Steps = append(out[i].Steps, s)
		if ok, _ := Holds(s, c); ok {
			out[i].Held++
		}
	}
	slices.SortFunc(out, func(a, b Level) int { return cmp.Compare(a.Rate, b.Rate) })
	return out
}

// Saturation returns the saturation throughput: the highest achieved rate
// among the complete steps (for a target rate run several times, the mean
// of its complete repetitions; a step stopped early is left out), and the
// target it was reached at; 0, 0 for no complete step.
func Saturation(steps []Step) (achieved, target float64) {
	for _, l := range Levels(steps, Criteria{}) {
		var sum float64
		n := 0
		for _, s := range l.Steps {
			if s.Partial {
				continue // a step cut short measured a phase it did not finish
			}
			sum += s.Achieved
			n++
		}
		if n == 0 {
			continue
		}
		if m := sum / float64(n); m > achieved {
			achieved, target = m, l.Rate
		}
	}
	return achieved, target
}

// Saturated reports whether some target rate was not kept up with: the
// mean achieved rate of its complete steps fell below the criteria's
// share of the target. Without one, the saturation throughput is only a
// lower bound: the server may sustain more than any step asked of it.
func Saturated(steps []Step, c Criteria) bool {
	for _, l := range Levels(steps, c) {
		var done []Step
		for _, s := range l.Steps {
			if !s.Partial {
				done = append(done, s)
			}
		}
		if len(done) > 0 && !keepsUp(Level{Rate: l.Rate, Steps: done}, c) {
			return true
		}
	}
	return false
}

// MaxAtSLA returns the highest target rate that held, and whether any did.
func MaxAtSLA(steps []Step, c Criteria) (float64, bool) {
	best, ok := 0.0, false
	for _, l := range Levels(steps, c) {
		if l.Holds() {
			best, ok = l.Rate, true
		}
	}
	return best, ok
}

// Auto is the automatic search: multiply the rate by Factor from Start
// while it holds (never above Max), then bisect between the last good and
// the first bad rate until the gap is below MinGap of the good rate or
// after MaxBisect bisection steps.
type Auto struct {
	Start, Factor, Max float64
	MinGap             float64 // 0 means 0.10
	MaxBisect          int     // 0 means 4
}

// Next returns the next target rate to measure after tried (in the order
// measured), or false when the search is over. Rates are whole operations
// per second.
func (a Auto) Next(tried []Trial) (float64, bool) {
	if len(tried) == 0 {
		return math.Round(a.Start), a.Start > 0 && a.Start <= a.Max
	}
	firstBad := slices.IndexFunc(tried, func(t Trial) bool { return !t.Held })
	if firstBad < 0 {
		last := tried[len(tried)-1].Value
		if last >= a.Max {
			return 0, false
		}
		return math.Round(min(last*a.Factor, a.Max)), true
	}
	good, bad := 0.0, math.Inf(1)
	for _, t := range tried {
		if t.Held {
			good = max(good, t.Value)
		}
	}
	for _, t := range tried {
		if !t.Held && t.Value > good {
			bad = min(bad, t.Value)
		}
	}
	minGap, maxBisect := cmp.Or(a.MinGap, 0.10), cmp.Or(a.MaxBisect, 4)
	if good == 0 || math.IsInf(bad, 1) || len(tried)-1-firstBad >= maxBisect || bad-good < minGap*good {
		return 0, false
	}
	next := math.Round((good + bad) / 2)
	if next <= good || next >= bad {
		return 0, false
	}
	return next, true
}

// Stat is the spread of one quantity over repetitions.
type Stat struct {
	N              int
	Mean, Min, Max float64
	Stddev, CV     *float64 // sample stddev and stddev/mean; nil below two values
	Variation      float64  // max/min − 1; 0 when min is 0
}

// Spread is the spread of one target rate's repetitions.
type Spread struct {
	Rate     float64
	Achieved Stat
	P99      Stat // of each run's highest p99
	// Unstable is set when the p99 varies by more than P99Variation
	// between runs (max/min − 1).
	Unstable bool
}

// Spreads returns the spread of every target rate, ascending.
func Spreads(steps []Step) []Spread {
	var out []Spread
	for _, l := range Levels(steps, Criteria{}) {
		var ach, p99 []float64
		for _, s := range l.Steps {
			ach = append(ach, s.Achieved)
			if p := s.P99(); p != nil {
				p99 = append(p99, *p)
			}
		}
		sp := Spread{Rate: l.Rate, Achieved: statOf(ach), P99: statOf(p99)}
		sp.Unstable = sp.P99.N >= 2 && sp.P99.Variation > P99Variation
		out = append(out, sp)
	}
	return out
}

// statOf returns the spread of xs.
func statOf(xs []float64) Stat {
	st := Stat{N: len(xs)}
	if len(xs) == 0 {
		return st
	}
	var sum float64
	for _, x := range xs {
		sum += x
	}
	st.Mean, st.Min, st.Max = sum/float64(len(xs)), slices.Min(xs), slices.Max(xs)
	if sd := stddev(xs); sd != nil {
		st.Stddev = sd
		if st.Mean != 0 {
			cv := *sd / st.Mean
			st.CV = &cv
		}
	}
	if st.Min > 0 {
		st.Variation = st.Max/st.Min - 1
	}
	return st
}

// Point is one target rate of a sweep as charts draw it: the mean
// achieved rate of its repetitions and the mean of their p99s (each run's
// highest over its operation types; nil when none recorded one).
type Point struct {
	Target, Achieved float64
	P99              *float64
}

// Curve returns a point per target rate of steps, ascending.
func Curve(steps []Step) []Point {
	var out []Point
	for _, s := range Spreads(steps) {
		pt := Point{Target: s.Rate, Achieved: s.Achieved.Mean}
		if s.P99.N > 0 {
			v := s.P99.Mean
			pt.P99 = &v
		}
		out = append(out, pt)
	}
	return out
}

// OpNames returns the operation types of steps in the order first seen.
func OpNames(steps []Step) []string {
	var out []string
	for _, s := range steps {
		for _, o := range s.Ops {
			if !slices.Contains(out, o.Name) {
				out = append(out, o.Name)
			}
		}
	}
	return out
}
