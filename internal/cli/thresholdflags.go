package cli

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/threshold"
	"github.com/mongobench/mongobench/internal/workload"
)

// errVerdict marks a command whose verdict failed: a threshold of a run,
// or a study's own verdict (an SLA below --require, a sweep in which no
// rate held, a plan with a stage no candidate carries). The cli exits
// ExitVerdict on it.
var errVerdict = errors.New("verdict failed")

// verdictError is a failed verdict, said in one line.
type verdictError struct{ msg string }

func (e verdictError) Error() string      { return e.msg }
func (verdictError) Is(target error) bool { return target == errVerdict }

// verdictFailed is the error of a failed verdict.
func verdictFailed(format string, args ...any) error {
	return verdictError{fmt.Sprintf(format, args...)}
}

// thresholdFlags are --threshold, on every command that measures runs,
// and --abort-on-fail, on run.
type thresholdFlags struct {
	exprs []string
	abort bool
}

// thresholdHelp is --threshold's help, with the grammar in brief.
const thresholdHelp = `threshold judged on every run, repeatable; a failed one exits 99: METRIC CMP VALUE, such as
'p99(READ) < 5ms', 'svc.p50 < 1ms' (service time), 'errors < 0.1%', 'errors(timeout) < 1',
'rate >= 99%', 'clientbound == false' (see README, Thresholds)`

// add declares --threshold on fl, and --abort-on-fail when abort is set.
func (f *thresholdFlags) add(fl *pflag.FlagSet, abort bool) {
	fl.StringArrayVar(&f.exprs, "threshold", nil, thresholdHelp)
	if abort {
		fl.BoolVar(&f.abort, "abort-on-fail", false, "stop the measured phase as soon as a threshold cannot hold (an error count passed at once; any other after "+
			abortSettle.String()+" or half the phase, whichever is shorter), keep the partial result and exit 99")
	}
}

// parse reads the thresholds given, naming the one that does not parse.
func (f *thresholdFlags) parse() ([]threshold.Threshold, error) {
	ts, err := threshold.ParseAll(f.exprs)
	if err != nil {
		return nil, usage(fmt.Errorf("--threshold: %w", err))
	}
	return ts, nil
}

// addTo adds the thresholds given to those of a scenario (its file's).
func (f *thresholdFlags) addTo(sc *spec.Scenario) error {
	for _, e := range f.exprs {
		if err := sc.AddThreshold(e); err != nil {
			return usage(err)
		}
	}
	return nil
}

// checkThresholds refuses, as bad input naming the threshold, what
// cannot apply to runs of sc (validated): a share of the target rate in
// a closed loop, or an operation type its workload does not have. ts are
// checked with sc's own thresholds.
func checkThresholds(reg *workload.Registry, sc *spec.Scenario, openLoop bool, ts ...threshold.Threshold) error {
	run := threshold.Run{Workload: sc.Workload, OpenLoop: openLoop}
	if w, err := reg.Get(sc.Workload); err == nil {
		run.Ops = w.Ops(sc.Params)
	}
	if err := threshold.Check(slices.Concat(sc.Thresholds, ts), run); err != nil {
		return usage(err)
	}
	return nil
}

// judge evaluates ts on d and stores the verdicts with it.
func judge(d *result.Doc, ts []threshold.Threshold) {
	if d != nil && len(ts) > 0 {
		d.Thresholds = threshold.Evaluate(ts, d)
	}
}

// thresholdsFailed is the failed verdict of a run whose thresholds did
// not all hold, nil when they did.
func thresholdsFailed(d *result.Doc) error {
	failed := threshold.Failed(d.Thresholds)
	if len(failed) == 0 {
		return nil
	}
	return verdictFailed("run %s: %d of %d thresholds failed: %s", d.RunID, len(failed), len(d.Thresholds), verdictList(failed))
}

// verdictList lists verdicts on one line: "p99 < 5ms: 7.1 ms (READ);
// errors < 1: 3 errors".
func verdictList(vs []result.ThresholdVerdict) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = v.Expression + ": " + threshold.Measured(v)
	}
	return strings.Join(parts, "; ")
}

// verdictLine is a run's verdicts as a study says them, on one line:
// "thresholds: PASS p99 < 5ms: 3.2 ms (READ); FAIL errors < 1: 3 errors".
func verdictLine(vs []result.ThresholdVerdict) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		word := "FAIL"
		if v.Pass {
			word = "PASS"
		}
		parts[i] = word + " " + v.Expression + ": " + threshold.Measured(v)
	}
	return "thresholds: " + strings.Join(parts, "; ")
}

// check parses the thresholds given to a study and checks them against
// runs of its base scenario with its -p parameters; a base the study
// itself will refuse is not checked here.
func (f *thresholdFlags) check(reg *workload.Registry, base *spec.Scenario, params []string, openLoop bool) ([]threshold.Threshold, error) {
	ts, err := f.parse()
	if err != nil {
		return nil, err
	}
	sc, err := study.Scenario(reg, base, params)
	if err != nil {
		return ts, nil // the study's own check says what is wrong
	}
	return ts, checkThresholds(reg, sc, openLoop, ts...)
}

// judge judges a study's run on its scenario's thresholds and those
// given, and says the verdicts on one line.
func (s *studyRun) judge(d *result.Doc, sc *spec.Scenario) {
	if d == nil {
		return
	}
	judge(d, slices.Concat(sc.Thresholds, s.thresholds))
	if len(d.Thresholds) == 0 {
		return
	}
	s.runs++
	if len(threshold.Failed(d.Thresholds)) > 0 {
		s.failed++
	}
	s.app.say("%s\n", verdictLine(d.Thresholds))
}

// studyVerdict is how a study ends: with err when it failed or was
// interrupted, else with a failed verdict when its own verdict fails.
func studyVerdict(err error, name string, verdict func() (bool, string)) error {
	if err != nil {
		return err
	}
	if ok, why := verdict(); !ok {
		return verdictFailed("%s: %s", name, why)
	}
	return nil
}

// catalog parses the thresholds given to catalog run, whose variants run
// closed loop, each with its own workload.
func (f *thresholdFlags) catalog() ([]threshold.Threshold, error) {
	ts, err := f.parse()
	if err != nil {
		return nil, err
	}
	if err := threshold.Check(ts, threshold.Run{}); err != nil {
		return nil, usage(err)
	}
	return ts, nil
}

// thresholdsVerdict is the verdict of a study that has none of its own
// (catalog run): every run's thresholds held.
func (s *studyRun) thresholdsVerdict() (bool, string) {
	if s.failed == 0 {
		return true, ""
	}
	return false, fmt.Sprintf("%d of %d runs failed their thresholds", s.failed, s.runs)
}
