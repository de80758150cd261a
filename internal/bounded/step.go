package bounded

import (
	"context"
	"time"
)

// Grace is how long a step that must run after a stop (the phase-end
// serverStatus, a disconnect, a last host reading) may still take once
// the command's context is cancelled: Ctrl-C ends every wait within two
// seconds, these steps included.
const Grace = 250 * time.Millisecond

// Step is the context of such a step: it ends after limit, or Grace after
// ctx ends, whichever comes first, so the step runs after a stop but
// never holds the process past it.
func Step(ctx context.Context, limit time.Duration) (context.Context, context.CancelFunc) {
	return StepGrace(ctx, limit, Grace)
}

// Sleep waits d, or until ctx is done, whichever comes first: a wait
// between attempts (a redial, a transaction's retry) that a stop ends at
// once. Its error is ctx's when ctx ended first.
func Sleep(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}

// StepGrace is Step with a grace of its own, for a step that keeps what
// was measured (storing a result gets a little longer, and falls back to
// a local file when it cannot finish).
func StepGrace(ctx context.Context, limit, grace time.Duration) (context.Context, context.CancelFunc) {
	if ctx.Err() != nil {
		limit = min(limit, grace)
	}
	c, cancel := context.WithTimeout(context.WithoutCancel(ctx), limit)
	stop := context.AfterFunc(ctx, func() { time.AfterFunc(grace, cancel) })
	return c, func() {
		stop()
		cancel()
	}
}
