package study

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/spec"
)

// Measure runs one scenario on the study's current target and returns its
// result document. variant holds the values that identify the run within
// its study; they are stored under variant.* and in _id.
type Measure func(ctx context.Context, sc *spec.Scenario, variant result.Variant) (*result.Doc, error)

// Keep stores a judged run (or rescues it to a file when the store fails),
// shows its notes and writes its report.
type Keep func(ctx context.Context, d *result.Doc) error

// Merged, for a run that is one client's part of a run group, keeps
// the client's result d and returns the group's merged result once it is
// stored: the same document for every client of the group, so that
// studies whose next run depends on a run's outcome (sweep) decide alike
// on every client. The study then judges and keeps the group's result.
type Merged func(ctx context.Context, d *result.Doc) (*result.Doc, error)

// OnTarget points the study's Measure at a target for the time of fn: a
// local profile's server is started before fn and stopped after it. fn is
// handed the target's instance description (variant.instance).
type OnTarget func(ctx context.Context, t spec.Target, fn func(instance result.Instance) error) error

// Env is everything a study needs from outside: how to measure, where to
// keep results, which workloads exist, and where to say what it does.
// The cli fills it with the real runner and store; tests fill it with
// recorded result documents.
type Env struct {
	Measure Measure
	Keep    Keep
	// Merged is set when every run is one client's part of a run group
	// (sweep --clients); nil when the runs are this process's alone.
	Merged   Merged
	OnTarget OnTarget      // catalog and plan only
	Registry spec.Registry // checks the scenarios the study builds
	// Say writes one progress line for people (the cli sends it to
	// standard error).
	Say func(format string, args ...any)
	// Step is told of each run before it is measured: its place in the
	// study, for a header line and an estimate of the time left.
	Step func(StepInfo)
	// Stored reads every stored run (without its intervals) of the
	// results store named Where, those judged invalid too: a plan
	// answers from them, counting the invalid ones only when
	// IncludeInvalid (validity.Filter), and measures again a candidate
	// whose runs were all judged invalid.
	Stored         func(ctx context.Context) ([]result.Doc, error)
	Where          string
	IncludeInvalid bool
	// Audit audits the ledger workload's accounts in the data database
	// db of the target after the runs, in one line; nil: no audit.
	Audit func(ctx context.Context, db string) string
}

// StepInfo is a run a study is about to measure.
type StepInfo struct {
	N     int    // its position among the study's runs, from 1
	Total int    // the runs the study makes; 0 when its search decides as it goes
	What  string // what the run varies, e.g. "4,000/s"
	// Planned is the run's warm-up and measured phase as planned; 0 for
	// a run that ends by its operations, whose length is not known.
	Planned time.Duration
}

// say writes a progress line when the study has somewhere to write it.
func (e Env) say(format string, args ...any) {
	if e.Say != nil {
		e.Say(format, args...)
	}
}

// step tells Step of the run of scenario sc about to be measured.
func (e Env) step(n, total int, sc *spec.Scenario, what string, args ...any) {
	if e.Step == nil {
		return
	}
	info := StepInfo{N: n, Total: total, What: fmt.Sprintf(what, args...)}
	if sc.Ops == 0 {
		info.Planned = time.Duration(sc.Warmup) + time.Duration(sc.Duration)
	}
	e.Step(info)
}

// planned is how many values a search tries, when it knows beforehand:
// a List's length; 0 otherwise.
func planned(s Search) int {
	if l, ok := s.(List); ok {
		return len(l)
	}
	return 0
}

// ErrStopped marks a study that ended because a run stopped early
// (Ctrl-C): that run's partial result is kept, nothing after it is run.
var ErrStopped = errors.New("interrupted")

// ErrVerdict marks a command whose verdict failed: a run's thresholds, or
// a study's own verdict (an SLA below --require, a sweep in which no rate
// held, a plan with a stage no candidate carries). The cli exits 99 on it.
var ErrVerdict = errors.New("verdict failed")

// verdictError is a failed verdict, said in one line.
type verdictError struct{ msg string }

func (e verdictError) Error() string      { return e.msg }
func (verdictError) Is(target error) bool { return target == ErrVerdict }

// VerdictFailed is the error of a failed verdict.
func VerdictFailed(format string, args ...any) error {
	return verdictError{fmt.Sprintf(format, args...)}
}

// Ends is how a study ends: with err when it failed or was
// interrupted, else with a failed verdict when its own verdict fails,
// said after the study's name (none: the verdict names what failed).
func Ends(err error, name string, verdict func() (bool, string)) error {
	if err != nil {
		return err
	}
	if ok, why := verdict(); !ok {
		if name == "" {
			return VerdictFailed("%s", why)
		}
		return VerdictFailed("%s: %s", name, why)
	}
	return nil
}

// stopped is the error of a run that stopped early, nil otherwise. A run
// group's partial result (a client missing or stopped early) ends the
// study too, but as a failure, not an interruption of this process.
func stopped(d *result.Doc) error {
	if !d.Partial {
		return nil
	}
	if d.Group != nil && d.Group.ClientIndex == nil {
		return fmt.Errorf("run group %s: its result %s is partial (%s), and the study stops there; the runs measured are stored", d.Group.ID, d.RunID, d.PartialReason)
	}
	return fmt.Errorf("%w: run %s stopped early; its partial result is stored", ErrStopped, d.RunID)
}

// StoppedEarly is how a single run's error ends its command: a partial
// run's error that is not already ErrStopped (its store failed after it
// stopped early) still wraps ErrStopped, so the command ends as
// interrupted; any other error as it is.
func StoppedEarly(d *result.Doc, err error) error {
	if err != nil && d.Partial && !errors.Is(err, ErrStopped) {
		return fmt.Errorf("%w: run %s stopped early: %w", ErrStopped, d.RunID, err)
	}
	return err
}

// Scenario makes one run's scenario from a base that holds the study's
// settings in typed fields, then the -p parameters, and validates it
// against the registry. The base is copied, never changed.
func Scenario(reg spec.Registry, base *spec.Scenario, params []string) (*spec.Scenario, error) {
	sc := base.Clone()
	var errs []error
	for _, p := range params {
		errs = append(errs, sc.SetParam(reg, p))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return sc, sc.Validate(reg)
}
