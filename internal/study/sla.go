package study

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"
)

// DefaultRateFraction is the share of the target rate a run must achieve
// when the SLA does not say.
const DefaultRateFraction = 0.99

// SLA is the bar a run must clear: latency bounds and a minimum achieved
// rate. Every run must also finish without permanently failed transactions.
type SLA struct {
	P99  time.Duration // required
	P95  time.Duration // 0 = not checked
	P999 time.Duration // 0 = not checked
	// MinRateFraction is the share of the target rate a run must achieve;
	// 0 means DefaultRateFraction.
	MinRateFraction float64
	// Require is how many runs of a mode at a rate must pass for it to
	// hold (--require); not given, a majority.
	Require Require
	// stored, set by StoredSLA, are the thresholds a study judged its
	// stored runs under (empty: none stored with the runs): each run
	// passes by its stored verdict.
	stored []string
}

// ParseSLA reads the bounds as given on the command line ("20ms"); an
// empty p95 or p999 is not checked, p99 is required.
func ParseSLA(p99, p95, p999 string) (SLA, error) {
	if p99 == "" {
		return SLA{}, errors.New("p99: an SLA needs a p99 bound, such as 20ms")
	}
	s := SLA{MinRateFraction: DefaultRateFraction}
	bounds := []struct {
		name, text string
		dst        *time.Duration
	}{{"p99", p99, &s.P99}, {"p95", p95, &s.P95}, {"p999", p999, &s.P999}}
	for _, b := range bounds {
		d, err := parseBound(b.text)
		if err != nil {
			return SLA{}, fmt.Errorf("%s: %w", b.name, err)
		}
		*b.dst = d
	}
	return s, nil
}

// parseBound reads one latency bound; "" is 0 (not checked).
func parseBound(text string) (time.Duration, error) {
	if text == "" {
		return 0, nil
	}
	d, err := time.ParseDuration(text)
	if err != nil {
		return 0, fmt.Errorf("%q is not a duration such as 20ms", text)
	}
	if d <= 0 {
		return 0, fmt.Errorf("%q: want a positive duration", text)
	}
	return d, nil
}

// rateFraction returns the share of the target rate a run must achieve.
func (s SLA) rateFraction() float64 {
	if s.MinRateFraction == 0 {
		return DefaultRateFraction
	}
	return s.MinRateFraction
}

// check is one percentile bound applied to one run.
type check struct {
	name  string
	limit time.Duration
	got   *float64
}

// checks returns the percentile bounds the SLA sets, applied to r.
func (s SLA) checks(r Run) []check {
	all := []check{{"p95", s.P95, r.P95}, {"p99", s.P99, r.P99}, {"p999", s.P999, r.P999}}
	return slices.DeleteFunc(all, func(c check) bool { return c.limit <= 0 })
}

// String describes the SLA, as in "p99 ≤ 20 ms, ≥ 99% of the target rate,
// no failed transactions".
func (s SLA) String() string {
	if s.stored != nil && len(s.stored) == 0 {
		return "no SLA stored with the runs"
	}
	var parts []string
	for _, c := range s.checks(Run{}) {
		parts = append(parts, c.name+" ≤ "+limitText(c.limit)+" ms")
	}
	parts = append(parts, "≥ "+Percent(s.rateFraction())+"% of the target rate", "no failed transactions")
	return strings.Join(parts, ", ")
}

// Verdict is the outcome of judging one run; Reasons say why it failed.
type Verdict struct {
	Pass    bool
	Reasons []string
}

// String returns "PASS", or "FAIL: " and the reasons.
func (v Verdict) String() string {
	if v.Pass {
		return "PASS"
	}
	return "FAIL: " + strings.Join(v.Reasons, "; ")
}

// Judge decides whether r meets s: the verdicts of s's thresholds
// (SLA.Thresholds), which the lab judged on the run's result
// (Run.StudyVerdicts); a stored run read under another SLA than it was
// measured with (sla journey --p99) has them judged on its stored
// figures. A bound is met when the percentile is at
// most the bound; a percentile that was not recorded fails; a run that
// stopped early fails, and so does one whose thresholds failed.
//
// A run that carries the verdict its study stored under the same SLA
// (the thresholds it judged, Run.Judged, are the SLA's) is judged by it:
// a stored study is shown as it was judged.
func Judge(r Run, s SLA) Verdict {
	if v := r.Verdict; v != nil && sameThresholds(r.Judged, s.Thresholds()) {
		return Verdict{Pass: v.Pass, Reasons: v.Reasons}
	}
	if s.stored != nil {
		return Verdict{Reasons: []string{"no verdict stored with the run under this SLA"}}
	}
	ts := s.Thresholds()
	reasons := runReasons(r, ts, judged(ts, r.StudyVerdicts, r.figures))
	if r.Partial {
		reasons = append(reasons, "run stopped early")
	}
	reasons = append(reasons, r.Thresholds...)
	return Verdict{Pass: len(reasons) == 0, Reasons: reasons}
}

// ms converts a duration to milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// limitText formats a bound in milliseconds without trailing zeros.
func limitText(d time.Duration) string { return trimFloat(ms(d)) }

// Percent formats a fraction as a percentage without trailing zeros.
func Percent(f float64) string { return trimFloat(math.Round(f*1e4) / 100) }

// Check says what is wrong with the bounds given on the command line:
// p99 is required.
func (s SLA) Check() error {
	if s.P99 <= 0 {
		return errors.New("--p99: required: an SLA needs a p99 bound, such as 20ms")
	}
	return nil
}
