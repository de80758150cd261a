package engine

import "time"

// The counts and rates of a run, written once for the result and the
// tally its consumers read.

// completed is the number of operations of ops that finished, with or
// without an error; parts of operations are not operations of their own.
func completed(ops []OpTotals) int64 {
	var n int64
	for _, t := range ops {
		n += t.Count + t.Errors.Total() - t.Parts - t.PartErrors
	}
	return n
}

// failed is the number of operations of ops that finished with an error,
// parts of operations left out.
func failed(ops []OpTotals) int64 {
	var n int64
	for _, t := range ops {
		n += t.Errors.Total() - t.PartErrors
	}
	return n
}

// achievedSpan is the span a run's achieved rate is taken over: the
// measured phase, and for a complete open loop bounded by a duration
// (planned > 0) at least that duration. A schedule whose next slot lies
// past the duration (--rate 0.001/s for 30s plans one operation) lets the
// engine end the phase at the last completion, a few milliseconds in; the
// schedule still covered the whole duration, so one operation is 0.03/s,
// not 791/s.
func achievedSpan(phase, planned time.Duration, partial bool) time.Duration {
	if planned > 0 && !partial {
		return max(phase, planned)
	}
	return phase
}

// perSecond is n per second over span; 0 over no time.
func perSecond(n int64, span time.Duration) float64 {
	if span <= 0 {
		return 0
	}
	return float64(n) / span.Seconds()
}

// planned is the measured phase's planned length that the achieved rate
// is taken over at least: an open loop's duration; 0 otherwise.
func (cfg *Config) planned() time.Duration {
	if cfg.Pacer == nil {
		return 0
	}
	return cfg.Duration
}

// Span is the time the achieved rate is taken over (achievedSpan).
func (r *Result) Span() time.Duration {
	return achievedSpan(r.End.Sub(r.Start), r.Planned, r.Partial)
}

// AchievedRate is the operations the schedule served per second of
// Span: the completed ones (successes and errors, parts of operations
// left out) and the skipped ones (ErrSkipped), which kept their slots
// without a request.
func (r *Result) AchievedRate() float64 { return perSecond(r.Completed()+r.Skipped, r.Span()) }

// SuccessRate is the successful operations per second of Span.
func (r *Result) SuccessRate() float64 { return perSecond(r.Completed()-r.Failed, r.Span()) }

// FailedRate is the failed operations per second of Span.
func (r *Result) FailedRate() float64 { return perSecond(r.Failed, r.Span()) }
