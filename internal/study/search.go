package study

import (
	"errors"
	"fmt"
	"strings"

	"github.com/mongobench/mongobench/internal/spec"
)

// Searches: which value a study measures next (a target rate, a thread
// count), decided from what the values already measured yielded. Every
// study runs one loop: ask the search, measure the value (with its
// repetitions and variants), record a Trial, ask again. The searches:
//
//   - List: the values given, in order, whatever they yield (sweep --rate
//     1000,2000; sla --rate 500,1000);
//   - Auto: grow the rate by a factor while it holds, then bisect between
//     the last good and the first bad rate (sweep --rate auto);
//   - Ladder: step the rate up by a fixed amount until a rate fails (sla
//     --rate auto);
//   - Calibration: multiply the threads until throughput stops rising
//     (calibrate).

// Trial is one value a search tried and what came of it.
type Trial struct {
	Value float64 // the target rate (operations per second) or the thread count
	// Held is the value's verdict: most of its repetitions held (see
	// Majority); with several variants (the SLA's modes), any variant did.
	Held     bool
	Achieved float64  // mean achieved rate of the value's runs, operations per second
	P99      *float64 // mean of the runs' p99s (each its highest over operation types), ms; nil when none was recorded
}

// Search decides the next value to measure from the trials so far, in
// the order measured; false ends the study.
type Search interface {
	Next(tried []Trial) (value float64, ok bool)
}

var (
	_ Search = List(nil)
	_ Search = Auto{}
	_ Search = Ladder{}
	_ Search = Calibration{}
)

// Majority reports whether most of n repetitions held: more than half.
// It decides a target rate of a sweep, a mode and rate of an SLA study,
// and a trial of every search.
func Majority(held, n int) bool { return 2*held > n }

// List tries its values in order, whatever they yield.
type List []float64

// Next returns the first value not yet tried.
func (l List) Next(tried []Trial) (float64, bool) {
	if len(tried) >= len(l) {
		return 0, false
	}
	return l[len(tried)], true
}

// Ladder steps the rate up from Start by Step while some variant holds,
// never above Max.
type Ladder struct {
	Start, Step, Max float64
}

// Next returns Start, then the last rate plus Step; false once a rate
// failed or the next would pass Max.
func (l Ladder) Next(tried []Trial) (float64, bool) {
	if len(tried) == 0 {
		return l.Start, l.Start > 0 && l.Start <= l.Max
	}
	last := tried[len(tried)-1]
	if !last.Held || l.Step <= 0 {
		return 0, false
	}
	next := last.Value + l.Step
	return next, next <= l.Max
}

// ParseRates reads a list of target rates such as "500,1000" or
// "1k/s, 2k/s" (see spec.ParseRate), or "auto": a search decides the
// rates. Every rate that does not parse is an error that names flag,
// when given.
func ParseRates(flag, text string) (rates List, auto bool, err error) {
	if text == "auto" {
		return nil, true, nil
	}
	var errs []error
	for _, part := range strings.Split(text, ",") {
		r, err := spec.ParseRate(strings.TrimSpace(part))
		if err != nil {
			if flag != "" {
				err = fmt.Errorf("%s: %q: %w", flag, part, err)
			}
			errs = append(errs, err)
			continue
		}
		rates = append(rates, float64(r))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, false, err
	}
	return rates, false, nil
}

// trialOf sums up the runs of one value: the verdict, the mean achieved
// rate, and the mean of the recorded p99s.
func trialOf(value float64, held bool, achieved []float64, p99s []float64) Trial {
	t := Trial{Value: value, Held: held}
	if len(achieved) > 0 {
		t.Achieved = mean(achieved)
	}
	if len(p99s) > 0 {
		m := mean(p99s)
		t.P99 = &m
	}
	return t
}

func mean(xs []float64) float64 {
	var sum float64
	for _, x := range xs {
		sum += x
	}
	return sum / float64(len(xs))
}
