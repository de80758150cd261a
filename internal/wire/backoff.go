package wire

import (
	"time"
)

// Backoff is the wait between dials to a server that refused or did not
// answer the last one: exponential from Base, at most Max, jittered.
type Backoff struct {
	Base, Max time.Duration
}

// DefaultBackoff redials a server that is down after 5–10 ms, then twice
// as long each time, up to 0.5–1 s: a brief drop costs milliseconds, and a
// server that stays down costs each connection about one dial a second.
var DefaultBackoff = Backoff{Base: 10 * time.Millisecond, Max: time.Second}

// Delay is the wait before the next dial after failures consecutive
// failed dials (failures ≥ 1), for a uniform random u in [0, 1): the
// exponential step d = min(Max, Base·2^(failures−1)), and the wait
// d/2 + u·d/2 ("equal jitter"), so connections that failed together do
// not redial together, and none redials sooner than half the step.
func (b Backoff) Delay(failures int, u float64) time.Duration {
	if failures < 1 || b.Base <= 0 {
		return 0
	}
	d := b.Base
	for i := 1; i < failures && d < b.Max; i++ {
		d *= 2
	}
	if b.Max > 0 && d > b.Max {
		d = b.Max
	}
	u = min(max(u, 0), 1)
	return d/2 + time.Duration(u*float64(d/2))
}
