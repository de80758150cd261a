package runner

import (
	"context"
	"errors"
	"fmt"
)

// ErrInterrupted marks a run stopped (Ctrl-C) before its measured phase:
// nothing was measured, so there is no result to keep. The cli exits 130
// on it, as on a partial result.
var ErrInterrupted = errors.New("interrupted")

// interrupted replaces err by one clean line when ctx was cancelled while
// the run was in the given stage: whatever the driver or the server said
// about the cancelled operation is a consequence of the stop, not a
// failure. Other errors pass unchanged.
func interrupted(ctx context.Context, stage string, err error) error {
	if err == nil || ctx.Err() == nil {
		return err
	}
	return fmt.Errorf("%w during %s; nothing was measured, so no result is stored", ErrInterrupted, stage)
}
