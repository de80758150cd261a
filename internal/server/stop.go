package server

import (
	"context"
	"errors"
	"fmt"
	"syscall"
	"time"
)

// Waits while stopping.
const (
	stopGrace = 15 * time.Second
	killGrace = 5 * time.Second
	exitPoll  = 20 * time.Millisecond
)

// ErrKilled reports that a server ignored SIGTERM and was killed; it
// stopped, but may not have closed its storage cleanly.
var ErrKilled = errors.New("server killed")

// Stop sends SIGTERM, waits up to 15s (less if ctx ends first), then
// sends SIGKILL, and removes the state file. A server that is already gone
// is not an error.
func (h *Handle) Stop(ctx context.Context) error {
	if !h.alive() {
		return h.removeState()
	}
	if err := h.signal(syscall.SIGTERM); err != nil {
		return err
	}
	_ = h.signal(syscall.SIGCONT) // a frozen server acts on SIGTERM only once continued
	if h.waitExit(ctx, stopGrace) {
		return h.removeState()
	}
	if err := h.kill(); err != nil {
		return err
	}
	return fmt.Errorf("%w: pid %d ignored SIGTERM for %s", ErrKilled, h.PID, stopGrace)
}

// Freeze suspends the server with SIGSTOP, as a stalled server for tests.
func (h *Handle) Freeze() error {
	return h.signal(syscall.SIGSTOP)
}

// Thaw resumes a frozen server with SIGCONT.
func (h *Handle) Thaw() error {
	return h.signal(syscall.SIGCONT)
}

// kill sends SIGKILL, waits for the process to go and removes the state file.
func (h *Handle) kill() error {
	if err := h.signal(syscall.SIGKILL); err != nil {
		return err
	}
	if !h.waitExit(context.Background(), killGrace) {
		return fmt.Errorf("server pid %d still alive after SIGKILL", h.PID)
	}
	return h.removeState()
}

// signal sends sig to the server; a process already gone is not an error.
func (h *Handle) signal(sig syscall.Signal) error {
	if !h.alive() {
		return nil
	}
	err := syscall.Kill(h.PID, sig)
	if err != nil && !errors.Is(err, syscall.ESRCH) {
		return fmt.Errorf("send %v to server pid %d: %w", sig, h.PID, err)
	}
	return nil
}

// waitExit reports whether the process exits within d and before ctx ends.
func (h *Handle) waitExit(ctx context.Context, d time.Duration) bool {
	ctx, cancel := context.WithTimeout(ctx, d)
	defer cancel()
	tick := time.NewTicker(exitPoll)
	defer tick.Stop()
	for h.alive() {
		select {
		case <-h.exited:
		case <-ctx.Done():
			return !h.alive()
		case <-tick.C:
		}
	}
	return true
}
