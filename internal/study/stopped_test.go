package study

import (
	"errors"
	"testing"

	"github.com/mongobench/mongobench/internal/result"
)

// A partial run whose store then failed still ends as stopped (exit 130);
// a complete run's error, or one already stopped, is left as it is.
func TestStoppedEarly(t *testing.T) {
	store := errors.New("store: connection refused")
	err := StoppedEarly(&result.Doc{RunID: "r1", Partial: true}, store)
	if !errors.Is(err, ErrStopped) || !errors.Is(err, store) || err.Error() != ErrStopped.Error()+": run r1 stopped early: store: connection refused" {
		t.Errorf("partial, the store failed: %v", err)
	}
	if err := StoppedEarly(&result.Doc{RunID: "r1"}, store); err != store {
		t.Errorf("complete: %v", err)
	}
	stopped := errors.Join(ErrStopped, store)
	if err := StoppedEarly(&result.Doc{Partial: true}, stopped); err != stopped {
		t.Errorf("already stopped: %v", err)
	}
	if StoppedEarly(&result.Doc{Partial: true}, nil) != nil {
		t.Error("no error: not nil")
	}
}
