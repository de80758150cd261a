package wire_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/wire"
)

// handDispatcher is a wire.Dispatcher that writes or interrupts each
// handed request on a goroutine of its own, as the engine's dispatcher
// does, once the test says which.
type handDispatcher struct {
	mu     sync.Mutex
	armed  bool
	refuse bool
	hands  int
	handed chan [2]any // write, interrupt
}

func (d *handDispatcher) Armed() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.armed
}

func (d *handDispatcher) Hand(write func() error, interrupt func()) bool {
	d.mu.Lock()
	d.armed = false
	d.hands++
	refuse := d.refuse
	d.mu.Unlock()
	if refuse {
		return false
	}
	d.handed <- [2]any{write, interrupt}
	return true
}

func (d *handDispatcher) arm() {
	d.mu.Lock()
	d.armed = true
	d.mu.Unlock()
}

// pingNow pings with a 10s timeout.
func pingNow(c *wire.Conn) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return ping(ctx, c)
}

// A handed request is written by the dispatcher, its reply arrives after
// that write, and the operation's later requests go out without it.
func TestDispatcherWritesTheHandedRequest(t *testing.T) {
	c := dial(t)
	d := &handDispatcher{handed: make(chan [2]any, 1)}
	c.UseDispatcher(d)
	for range 5 {
		d.arm()
		done := make(chan error, 1)
		go func() { done <- pingNow(c) }()
		h := <-d.handed
		written := time.Now()
		if err := h[0].(func() error)(); err != nil {
			t.Fatalf("write: %v", err)
		}
		if err := <-done; err != nil {
			t.Fatalf("ping through the dispatcher: %v", err)
		}
		if at, ok := c.ReplyArrived(); ok && at.Before(written) {
			t.Errorf("reply arrived %v before its request was written", written.Sub(at))
		}
		// Not armed: the next request of the operation is the
		// connection's own.
		if err := pingNow(c); err != nil {
			t.Fatalf("ping of its own: %v", err)
		}
	}
	if d.hands != 5 {
		t.Errorf("hands: got %d want 5, one per armed operation", d.hands)
	}
}

// A request the dispatcher never sends returns ErrNotSent, and the
// connection is as it was: the next request goes out and is answered.
func TestUnsentRequestLeavesTheConnectionUsable(t *testing.T) {
	c := dial(t)
	d := &handDispatcher{handed: make(chan [2]any, 1)}
	c.UseDispatcher(d)
	d.arm()
	done := make(chan error, 1)
	go func() { done <- pingNow(c) }()
	h := <-d.handed
	h[1].(func())()
	if err := <-done; !errors.Is(err, wire.ErrNotSent) {
		t.Fatalf("interrupted: got %v, want ErrNotSent", err)
	}
	if err := pingNow(c); err != nil {
		t.Fatalf("after an unsent request: %v, want the connection usable", err)
	}
	d.mu.Lock()
	d.refuse = true
	d.mu.Unlock()
	d.arm()
	if err := pingNow(c); !errors.Is(err, wire.ErrNotSent) {
		t.Fatalf("refused: got %v, want ErrNotSent", err)
	}
	if err := pingNow(c); err != nil {
		t.Fatalf("after a refused request: %v, want the connection usable", err)
	}
}
