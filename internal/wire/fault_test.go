package wire_test

import (
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"sync/atomic"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/mongobench/mongobench/internal/wire"
)

// TestBackoffDelay checks the redial schedule: exponential from Base,
// capped at Max, the wait between half the step and the step.
func TestBackoffDelay(t *testing.T) {
	b := wire.Backoff{Base: 10 * time.Millisecond, Max: time.Second}
	ms := time.Millisecond
	tests := []struct {
		failures int
		u        float64
		want     time.Duration
	}{
		{0, 0.5, 0},
		{1, 0, 5 * ms},
		{1, 1, 10 * ms},
		{2, 0, 10 * ms},
		{3, 0.5, 30 * ms},
		{7, 1, 640 * ms},
		{8, 0, 500 * ms},
		{8, 1, time.Second},
		{60, 1, time.Second}, // no overflow far past the cap
		{3, -1, 20 * ms},     // u clamped to [0, 1]
		{3, 2, 40 * ms},
	}
	for _, tt := range tests {
		if got := b.Delay(tt.failures, tt.u); got != tt.want {
			t.Errorf("Delay(%d, %v) = %v, want %v", tt.failures, tt.u, got, tt.want)
		}
	}
	if got := (wire.Backoff{}).Delay(3, 1); got != 0 {
		t.Errorf("zero Backoff: Delay = %v, want 0", got)
	}
}

// TestParseOpTimeout checks where the operation timeout comes from.
func TestParseOpTimeout(t *testing.T) {
	tests := []struct {
		uri  string
		want time.Duration
	}{
		{"mongodb://h:27017/", wire.DefaultOpTimeout},
		{"mongodb://h:27017/?timeoutMS=1500", 1500 * time.Millisecond},
		{"mongodb://h:27017/?socketTimeoutMS=700", 700 * time.Millisecond},
		{"mongodb://h:27017/?timeoutMS=900&socketTimeoutMS=700", 900 * time.Millisecond},
		{"mongodb://h:27017/?timeoutMS=0", 0},
	}
	for _, tt := range tests {
		o, err := wire.Parse(tt.uri)
		if err != nil {
			t.Errorf("%s: %v", tt.uri, err)
			continue
		}
		if o.OpTimeout != tt.want {
			t.Errorf("%s: OpTimeout %v, want %v", tt.uri, o.OpTimeout, tt.want)
		}
	}
}

// fakeServer is a loopback listener speaking just enough OP_MSG for the
// wire client's handshake: it answers a connection's first message with
// a standalone's hello, then behaves as its mode says. It counts
// accepted connections.
type fakeServer struct {
	ln       net.Listener
	accepted atomic.Int64
}

// What a fake server does after the hello.
type fakeMode int

const (
	blackHole fakeMode = iota // reads everything, answers nothing
	hangUp                    // closes the connection
	answerAll                 // answers every message as it answered the hello (ok: 1)
)

func newFakeServer(t *testing.T, mode fakeMode) *fakeServer {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &fakeServer{ln: ln}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			s.accepted.Add(1)
			go s.serve(nc, mode)
		}
	}()
	return s
}

// serve answers the hello, then does what mode says.
func (s *fakeServer) serve(nc net.Conn, mode fakeMode) {
	defer func() { _ = nc.Close() }()
	doc := bsoncore.NewDocumentBuilder().AppendBoolean("isWritablePrimary", true).
		AppendInt32("maxWireVersion", 21).AppendDouble("ok", 1).Build()
	for first := true; first || mode == answerAll; first = false {
		var hdr [16]byte
		if _, err := io.ReadFull(nc, hdr[:]); err != nil {
			return
		}
		if _, err := io.CopyN(io.Discard, nc, int64(binary.LittleEndian.Uint32(hdr[:]))-16); err != nil {
			return
		}
		reply := make([]byte, 16, 16+5+len(doc))
		reply = append(append(reply, 0, 0, 0, 0, 0), doc...)
		binary.LittleEndian.PutUint32(reply[0:], uint32(len(reply)))
		binary.LittleEndian.PutUint32(reply[8:], binary.LittleEndian.Uint32(hdr[4:]))
		binary.LittleEndian.PutUint32(reply[12:], 2013)
		if _, err := nc.Write(reply); err != nil {
			return
		}
	}
	if mode == blackHole {
		_, _ = io.Copy(io.Discard, nc)
	}
}

func (s *fakeServer) uri(query string) string {
	return "mongodb://" + s.ln.Addr().String() + "/?directConnection=true&" + query
}

func ping(ctx context.Context, c *wire.Conn) error {
	msg := c.Start()
	idx, msg := bsoncore.AppendDocumentStart(msg)
	msg = bsoncore.AppendInt32Element(msg, "ping", 1)
	msg = c.AppendFields(msg, "admin", wire.RetryRead)
	msg, _ = bsoncore.AppendDocumentEnd(msg, idx)
	_, err := c.RoundTrip(ctx, msg, wire.RetryRead)
	return err
}

// TestOpTimeoutEndsABlackHole sends a retryable read to a server that
// took the connection and never answers: it must fail as a timeout by
// the operation timeout (retry and reconnect included), not hang.
func TestOpTimeoutEndsABlackHole(t *testing.T) {
	s := newFakeServer(t, blackHole)
	for _, query := range []string{"timeoutMS=300", "socketTimeoutMS=300"} {
		o, err := wire.Parse(s.uri(query))
		if err != nil {
			t.Fatal(err)
		}
		c, err := wire.Dial(context.Background(), o)
		if err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		err = ping(context.Background(), c)
		took := time.Since(start)
		var ne *wire.NetworkError
		if !errors.As(err, &ne) || !ne.Timeout() {
			t.Errorf("%s: got %v, want a network timeout", query, err)
		}
		if took < 300*time.Millisecond || took > 3*time.Second {
			t.Errorf("%s: the operation ended after %v, want 300 ms and not much more", query, took)
		}
		_ = c.Close()
	}
}

// TestDialTimeoutOnASilentServer dials a server that accepts and never
// answers the hello: the dial fails as a timeout by connectTimeoutMS.
func TestDialTimeoutOnASilentServer(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	accepting := make(chan struct{})
	var held []net.Conn // the accepting goroutine's until it ends
	defer func() {
		_ = ln.Close()
		<-accepting
		for _, nc := range held {
			_ = nc.Close()
		}
	}()
	go func() {
		defer close(accepting)
		for {
			nc, err := ln.Accept()
			if err != nil {
				return
			}
			held = append(held, nc) // accepted, never read or answered
		}
	}()
	o, err := wire.Parse("mongodb://" + ln.Addr().String() + "/?directConnection=true&connectTimeoutMS=300")
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	_, err = wire.Dial(context.Background(), o)
	var ne *wire.NetworkError
	if !errors.As(err, &ne) || !ne.Timeout() {
		t.Errorf("got %v, want a network timeout", err)
	}
	if took := time.Since(start); took > 3*time.Second {
		t.Errorf("the dial ended after %v, want about 300 ms", took)
	}
}

// TestRedialBacksOff runs operations back to back for a second against
// a server that hung up and went away (its port refuses): the client
// redials on the backoff's schedule, a few times, not thousands.
func TestRedialBacksOff(t *testing.T) {
	s := newFakeServer(t, hangUp)
	o, err := wire.Parse(s.uri("timeoutMS=2000"))
	if err != nil {
		t.Fatal(err)
	}
	o.Backoff = wire.Backoff{Base: 20 * time.Millisecond, Max: 200 * time.Millisecond}
	c, err := wire.Dial(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()
	// The server goes away: its port refuses from now on.
	_ = s.ln.Close()
	before := s.accepted.Load()

	ops, failed := 0, 0
	start := time.Now()
	for time.Since(start) < time.Second {
		ops++
		if err := ping(context.Background(), c); err != nil {
			failed++
		}
	}
	took := time.Since(start)
	// One operation, one dial, after waits of 10–20, 20–40, 40–80,
	// 80–160, then 100–200 ms: in one second about 8 to 13 operations.
	if ops > 15 || ops < 4 || failed != ops {
		t.Errorf("in %v: %d operations, %d failed; want every one failed and 4–15 of them (one dial each, on the backoff)", took, ops, failed)
	}
	if got := s.accepted.Load() - before; got != 0 {
		t.Errorf("%d connections accepted by a closed listener", got)
	}
}

// TestCancelledOperationSparesTheNext alternates operations on a context
// that is already done with operations on a live one: the cancellation
// of the first (its watcher may run late) must never break the
// connection the next one dials.
func TestCancelledOperationSparesTheNext(t *testing.T) {
	s := newFakeServer(t, answerAll)
	o, err := wire.Parse(s.uri("timeoutMS=2000"))
	if err != nil {
		t.Fatal(err)
	}
	c, err := wire.Dial(context.Background(), o)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = c.Close() }()
	for i := range 200 {
		done, cancel := context.WithCancel(context.Background())
		cancel()
		if err := ping(done, c); !errors.Is(err, context.Canceled) {
			t.Fatalf("round %d, cancelled context: got %v, want context.Canceled", i, err)
		}
		if err := ping(context.Background(), c); err != nil {
			t.Fatalf("round %d, after a cancelled operation: %v, want ok", i, err)
		}
	}
}
