package runner

import (
	"time"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/spec"
)

// scheduledPhase is the span the achieved rate is taken over: the
// measured phase, and for an open loop that ran its whole duration at
// least that duration. A schedule whose next slot lies past the duration
// (--rate 0.001/s for 30s plans one operation) lets the engine end the
// phase at the last completion, a few milliseconds in; the schedule still
// covered the whole duration, so one operation is 0.03/s, not 791/s.
func scheduledPhase(res *engine.Result, sc *spec.Scenario) time.Duration {
	phase := res.End.Sub(res.Start)
	if sc.Rate > 0 && sc.Duration > 0 && !res.Partial {
		phase = max(phase, time.Duration(sc.Duration))
	}
	return phase
}
