package study

import (
	"strconv"
	"strings"
	"time"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/threshold"
)

// A study's verdict is stored with each run (testResults.sla,
// testResults.sweep) beside the verdicts of the thresholds it was worded
// from (testResults.bounds: each one's expression, value and outcome).
// A study reads a stored verdict by those expressions, never by its
// words: a run is judged by its stored verdict when the thresholds it
// judged are the study's.

// Judged are the thresholds a stored verdict judged: the expressions of
// the run's testResults.bounds. A document whose verdict names its
// bounds in words only (the prose of testResults.sla.spec or
// testResults.sweep.criteria, with no bounds stored) is converted here,
// once, as it is read: legacy turns the words into the thresholds they
// state (nil: none).
func Judged(bounds []result.ThresholdVerdict, words string, legacy func(string) []string) []string {
	if len(bounds) > 0 {
		out := make([]string, len(bounds))
		for i, b := range bounds {
			out[i] = b.Expression
		}
		return out
	}
	if legacy == nil || words == "" {
		return nil
	}
	return legacy(words)
}

// sameThresholds says whether the expressions judged are exactly ts.
func sameThresholds(judged []string, ts []threshold.Threshold) bool {
	if len(judged) == 0 || len(judged) != len(ts) {
		return false
	}
	for i, t := range ts {
		if judged[i] != t.Text {
			return false
		}
	}
	return true
}

// legacySLA converts an SLA in the words SLA.String writes ("p99 ≤ 20
// ms, ≥ 99% of the target rate, no failed transactions") into its
// thresholds (SLA.Thresholds); nil when the words state no p99.
func legacySLA(words string) []string {
	s := SLA{MinRateFraction: DefaultRateFraction}
	for _, part := range strings.Split(words, ", ") {
		if share, ok := strings.CutPrefix(part, "≥ "); ok {
			if pct, ok := strings.CutSuffix(share, "% of the target rate"); ok {
				if f, err := strconv.ParseFloat(pct, 64); err == nil {
					s.MinRateFraction = f / 100
				}
			}
			continue
		}
		name, bound, ok := strings.Cut(part, " ≤ ")
		d, good := wordsMs(bound)
		if !ok || !good {
			continue
		}
		switch name {
		case "p95":
			s.P95 = d
		case "p99":
			s.P99 = d
		case "p999":
			s.P999 = d
		}
	}
	if s.P99 <= 0 {
		return nil
	}
	return exprTexts(s.Thresholds())
}

// legacyCriteria converts a sweep's criteria in the words
// Criteria.String writes ("achieved ≥ 95% of target, p99 of every
// operation ≤ 20 ms, errors ≤ 1%") into their thresholds
// (Criteria.Thresholds); nil when the words state no achieved share.
func legacyCriteria(words string) []string {
	var c Criteria
	found := false
	for _, part := range strings.Split(words, ", ") {
		switch {
		case strings.HasPrefix(part, "achieved ≥ "):
			pct := strings.TrimSuffix(strings.TrimPrefix(part, "achieved ≥ "), "% of target")
			if f, err := strconv.ParseFloat(pct, 64); err == nil {
				c.MinFraction, found = f/100, true
			}
		case strings.HasPrefix(part, "p99 of every operation ≤ "):
			if d, ok := wordsMs(strings.TrimPrefix(part, "p99 of every operation ≤ ")); ok {
				c.SLA = d
			}
		case strings.HasPrefix(part, "errors ≤ "):
			if f, err := strconv.ParseFloat(strings.TrimSuffix(strings.TrimPrefix(part, "errors ≤ "), "%"), 64); err == nil {
				c.MaxErrors = f / 100
			}
		}
	}
	if !found {
		return nil
	}
	return exprTexts(c.Thresholds())
}

// wordsMs reads "20 ms".
func wordsMs(s string) (time.Duration, bool) {
	v, err := strconv.ParseFloat(strings.TrimSuffix(s, " ms"), 64)
	if err != nil || v <= 0 {
		return 0, false
	}
	return time.Duration(v * float64(time.Millisecond)), true
}

// exprTexts are the thresholds as written.
func exprTexts(ts []threshold.Threshold) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Text
	}
	return out
}
