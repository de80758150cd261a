package study

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/significance"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/threshold"
	"github.com/mongobench/mongobench/internal/validity"
)

// InterleaveSide is one side of an interleaved comparison: its name (the
// label its runs are stored with), its scenario and its target.
type InterleaveSide struct {
	Name     string
	Scenario *spec.Scenario
	Target   spec.Target
}

// InterleaveStudy is mongobench compare --interleave: two sides run
// alternately, the order turned each round (A B, B A, …), compared at
// the planned looks of Plan (significance.Sequential) metric by metric
// with significance.Table at the look's level, until every metric is
// decided (Row.Decided) or Plan.MaxRuns runs a side are measured. Every
// run is stored as any run is; the runs judged invalid are left out of
// the statistic unless IncludeInvalid.
type InterleaveStudy struct {
	Sides [2]InterleaveSide
	Plan  significance.Sequential
	// Judging is how each look judges its metrics: its Alpha is the
	// whole comparison's, each look judges at Plan.LookAlpha.
	Judging        significance.Settings
	IncludeInvalid bool
}

// Check says what is wrong with the comparison's settings, naming their
// flags.
func (s InterleaveStudy) Check() error {
	p := s.Plan
	p.Alpha = s.Judging.Alpha
	if err := p.Check(); err != nil {
		return err
	}
	for _, sd := range s.Sides {
		if sd.Scenario == nil {
			return errors.New("--scenario: compare --interleave needs two scenario files, one a side")
		}
	}
	if s.Sides[0].Name == s.Sides[1].Name {
		return fmt.Errorf("--scenario: both sides are named %q: give the scenario files different labels", s.Sides[0].Name)
	}
	return CheckJudging(s.Judging)
}

// look is the settings a look judges with: the comparison's, at the
// look's level.
func (s InterleaveStudy) look() significance.Settings {
	j := s.Judging
	p := s.Plan
	p.Alpha = s.Judging.Level()
	j.Alpha = p.LookAlpha()
	return j
}

// Interleaved is what an interleaved comparison measured and concluded.
type Interleaved struct {
	Study InterleaveStudy
	// Runs are each side's runs measured, in order; Counted those the
	// statistic counts (the others judged invalid).
	Runs, Counted [2][]result.Doc
	// Look is the look (from 1) at which it stopped, of Looks planned;
	// 0 before the first look.
	Look, Looks int
	// Decided says whether every metric was decided at the last look
	// (false: the budget ended it, or it was interrupted).
	Decided bool
	Rows    []significance.Row
	Canary  []significance.CanaryShift
	Judging significance.Settings // the last look's
}

// Run measures the rounds until a look decides every metric or the
// budget is spent; a run that fails or stops early ends it. The result
// holds every run measured and the last look's table, also on error.
func (s InterleaveStudy) Run(ctx context.Context, env Env) (Interleaved, error) {
	p := s.Plan
	p.Alpha = s.Judging.Level()
	looks := p.Looks()
	res := Interleaved{Study: s, Looks: len(looks), Judging: s.look()}
	a, b := s.Sides[0], s.Sides[1]
	env.say("interleaved comparison of %s and %s: %d to %d runs a side, looks at %s runs, each at α %.3g (%g over %d looks)\n",
		a.Name, b.Name, p.MinRuns, p.MaxRuns, joinInts(looks), res.Judging.Alpha, p.Alpha, len(looks))
	round := 0
	for i, k := range looks {
		for ; round < k; round++ {
			order := []int{0, 1}
			if round%2 == 1 {
				order = []int{1, 0}
			}
			for _, side := range order {
				if err := s.measure(ctx, env, &res, side, round); err != nil {
					return res, err
				}
			}
		}
		if err := res.judge(s, i+1); err != nil {
			return res, err
		}
		env.say("look %d of %d at %d runs a side: %s\n", i+1, len(looks), k, res.lookLine())
		if res.Decided {
			break
		}
	}
	return res, nil
}

// measure measures, keeps and counts one run of a side.
func (s InterleaveStudy) measure(ctx context.Context, env Env, res *Interleaved, side, round int) error {
	sd := s.Sides[side]
	sc := sd.Scenario.Clone()
	sc.Label, sc.Repetition = sd.Name, round
	n := len(res.Runs[0]) + len(res.Runs[1]) + 1
	var d *result.Doc
	err := env.OnTarget(ctx, sd.Target, func(result.Instance) error {
		env.step(n, 0, sc, "%s, round %d", sd.Name, round+1) // the looks decide how many

		var err error
		d, err = env.Measure(ctx, sc, result.Variant{})
		return err
	})
	if d == nil {
		return err
	}
	res.Runs[side] = append(res.Runs[side], *d)
	if kerr := env.Keep(ctx, d); kerr != nil {
		return errors.Join(err, kerr)
	}
	if err != nil {
		return err
	}
	if validity.Counts(d, s.IncludeInvalid) {
		res.Counted[side] = append(res.Counted[side], *d)
	} else {
		env.say("run %s of %s is judged invalid and left out of the comparison\n", d.RunID, sd.Name)
	}
	return stopped(d)
}

// judge compares the sides' counted runs at look n.
func (r *Interleaved) judge(s InterleaveStudy, n int) error {
	rows, err := significance.Table(r.Counted[0], r.Counted[1], r.Judging)
	if err != nil {
		return err
	}
	r.Look, r.Rows = n, rows
	r.Decided = len(rows) > 0
	for _, row := range rows {
		r.Decided = r.Decided && row.Decided()
	}
	r.Canary = significance.Canaries(canaries(r.Counted[0]), canaries(r.Counted[1]))
	return nil
}

// lookLine says a look's outcome in one line.
func (r Interleaved) lookLine() string {
	var undecided []string
	for _, row := range r.Rows {
		if !row.Decided() {
			undecided = append(undecided, row.Metric.Name())
		}
	}
	if r.Decided {
		return "every metric decided"
	}
	return "undecided: " + strings.Join(undecided, ", ")
}

func joinInts(xs []int) string {
	parts := make([]string, len(xs))
	for i, x := range xs {
		parts[i] = fmt.Sprint(x)
	}
	return strings.Join(parts, ", ")
}

// Names are the sides' names, A first.
func (r Interleaved) Names() (string, string) { return r.Study.Sides[0].Name, r.Study.Sides[1].Name }

// byVerdict lists the metrics of a verdict, with their change.
func (r Interleaved) byVerdict(v significance.Verdict) []string {
	var out []string
	for _, row := range r.Rows {
		if row.Verdict == v {
			out = append(out, fmt.Sprintf("%s (%+.1f%%, adj. p %.3g)", row.Metric.Name(), 100*row.Delta, row.P))
		}
	}
	return out
}

// equivalent lists the metrics shown to differ by less than their
// minimum effect: significant but small, or likely noise within it.
func (r Interleaved) equivalent() []string {
	var out []string
	for _, row := range r.Rows {
		if row.Verdict == significance.Small || row.Verdict == significance.Noise && row.Decided() {
			out = append(out, row.Metric.Name())
		}
	}
	return out
}

// Failed is the failed verdict of --fail-on-regression: nil when no
// metric of B is significantly worse than A's.
func (r Interleaved) Failed() error {
	if worse := r.byVerdict(significance.Worse); len(worse) > 0 {
		_, b := r.Names()
		return VerdictFailed("regression: %s %s", b, strings.Join(worse, "; "))
	}
	return nil
}

// left is how many runs of each side the statistic left out.
func (r Interleaved) left() int {
	return len(r.Runs[0]) - len(r.Counted[0]) + len(r.Runs[1]) - len(r.Counted[1])
}

// Verdict says the comparison's answer in lines, the answer first: the
// metrics worse, better and equivalent, and where it stopped.
func (r Interleaved) Verdict() []string {
	a, b := r.Names()
	var lines []string
	if worse := r.byVerdict(significance.Worse); len(worse) > 0 {
		lines = append(lines, fmt.Sprintf("%s is significantly worse than %s: %s.", b, a, strings.Join(worse, "; ")))
	} else {
		lines = append(lines, fmt.Sprintf("No metric of %s is significantly worse than %s's.", b, a))
	}
	if better := r.byVerdict(significance.Better); len(better) > 0 {
		lines = append(lines, fmt.Sprintf("Better: %s.", strings.Join(better, "; ")))
	}
	if eq := r.equivalent(); len(eq) > 0 {
		lines = append(lines, fmt.Sprintf("Within the minimum effect (no change that matters): %s.", strings.Join(eq, ", ")))
	}
	runs := fmt.Sprintf("%d and %d runs", len(r.Runs[0]), len(r.Runs[1]))
	switch {
	case r.Look == 0:
		lines = append(lines, fmt.Sprintf("Stopped before the first look, after %s.", runs))
	case r.Decided:
		lines = append(lines, fmt.Sprintf("Every metric decided at look %d of %d, after %s.", r.Look, r.Looks, runs))
	default:
		lines = append(lines, fmt.Sprintf("Stopped at look %d of %d, after %s, with metrics undecided.", r.Look, r.Looks, runs))
	}
	if n := r.left(); n > 0 {
		lines = append(lines, fmt.Sprintf("%d runs judged invalid are left out of the statistic (--include-invalid counts them).", n))
	}
	return lines
}

// JSON is the comparison as --json prints it: the sides and their runs,
// where it stopped, and the last look's rows.
func (r Interleaved) JSON() any {
	type side struct {
		Name string   `json:"name"`
		Runs []string `json:"runs"`
		// Counted are the runs the statistic counts.
		Counted []string `json:"counted"`
	}
	rows := r.Rows
	if rows == nil {
		rows = []significance.Row{}
	}
	return struct {
		Sides   [2]side            `json:"sides"`
		Look    int                `json:"look"`
		Looks   int                `json:"looks"`
		Alpha   float64            `json:"lookAlpha"`
		Decided bool               `json:"decided"`
		Metrics []significance.Row `json:"metrics"`
	}{
		Sides: [2]side{{r.Study.Sides[0].Name, runIDs(r.Runs[0]), runIDs(r.Counted[0])}, {r.Study.Sides[1].Name, runIDs(r.Runs[1]), runIDs(r.Counted[1])}},
		Look:  r.Look, Looks: r.Looks, Alpha: r.Judging.Alpha, Decided: r.Decided, Metrics: rows,
	}
}

// Study is the interleaved comparison as the contract's study.
func (s InterleaveStudy) Study(failOnRegression bool) Study {
	return interleaveStudy{s, failOnRegression}
}

type interleaveStudy struct {
	s    InterleaveStudy
	fail bool
}

func (interleaveStudy) Name() string                      { return "compare --interleave" }
func (interleaveStudy) Thresholds() []threshold.Threshold { return nil }
func (x interleaveStudy) Check(reg spec.Registry, ts []threshold.Threshold) error {
	if err := x.s.Check(); err != nil {
		return err
	}
	for _, sd := range x.s.Sides {
		if err := CheckThresholds(reg, sd.Scenario, sd.Scenario.Rate > 0, ts...); err != nil {
			return fmt.Errorf("%s: %w", sd.Name, err)
		}
	}
	return nil
}

func (x interleaveStudy) Run(ctx context.Context, env Env) (Outcome, error) {
	res, err := x.s.Run(ctx, env)
	out := Outcome{Answer: res.JSON()}
	if len(res.Runs[0])+len(res.Runs[1]) > 0 {
		out.Result = res
	}
	if x.fail && err == nil {
		out.Verdict = func() (bool, string) {
			if f := res.Failed(); f != nil {
				return false, f.Error()
			}
			return true, ""
		}
	}
	return out, err
}
