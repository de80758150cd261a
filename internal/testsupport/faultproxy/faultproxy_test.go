package faultproxy

import (
	"bufio"
	"net"
	"testing"
	"time"
)

// echo starts a loopback server that echoes every line.
func echo(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer func() { _ = c.Close() }()
				r := bufio.NewReader(c)
				for {
					line, err := r.ReadString('\n')
					if err != nil {
						return
					}
					if _, err := c.Write([]byte(line)); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

func start(t *testing.T) *Proxy {
	t.Helper()
	p, err := Start(echo(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

func dial(t *testing.T, p *Proxy) (net.Conn, *bufio.Reader) {
	t.Helper()
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c, bufio.NewReader(c)
}

// roundTrip sends a line and returns the echo's time and error.
func roundTrip(c net.Conn, r *bufio.Reader, deadline time.Duration) (time.Duration, error) {
	start := time.Now()
	_ = c.SetDeadline(start.Add(deadline))
	if _, err := c.Write([]byte("ping\n")); err != nil {
		return time.Since(start), err
	}
	line, err := r.ReadString('\n')
	if err == nil && line != "ping\n" {
		return time.Since(start), net.ErrClosed
	}
	return time.Since(start), err
}

func TestFaults(t *testing.T) {
	tests := []struct {
		name     string
		fault    func(p *Proxy)
		min, max time.Duration
		fails    bool
	}{
		{"pass-through", func(*Proxy) {}, 0, 200 * time.Millisecond, false},
		{"latency", func(p *Proxy) { p.Latency(150 * time.Millisecond) }, 300 * time.Millisecond, 2 * time.Second, false}, // both directions
		{"black hole, then delivered", func(p *Proxy) { p.BlackHole(400 * time.Millisecond) }, 380 * time.Millisecond, 2 * time.Second, false},
		{"black hole longer than the deadline", func(p *Proxy) { p.BlackHole(5 * time.Second) }, 0, 2 * time.Second, true},
		{"reset", func(p *Proxy) { p.Reset(time.Second) }, 0, 500 * time.Millisecond, true},
		{"pass ends a black hole", func(p *Proxy) { p.BlackHole(time.Hour); p.Pass() }, 0, 200 * time.Millisecond, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := start(t)
			c, r := dial(t, p)
			if _, err := roundTrip(c, r, 2*time.Second); err != nil {
				t.Fatalf("before the fault: %v", err)
			}
			tc.fault(p)
			took, err := roundTrip(c, r, time.Second)
			if (err != nil) != tc.fails || took < tc.min || took > tc.max {
				t.Errorf("round trip: got %v after %v; want failure %v within [%v, %v]", err, took, tc.fails, tc.min, tc.max)
			}
		})
	}
}

// fresh dials the proxy and makes one round trip on the new connection.
func fresh(p *Proxy) error {
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		return err
	}
	defer func() { _ = c.Close() }()
	_, err = roundTrip(c, bufio.NewReader(c), time.Second)
	return err
}

// TestResetRefusesNewConnections resets connections made during a reset
// window and passes those made after it.
func TestResetRefusesNewConnections(t *testing.T) {
	p := start(t)
	p.Reset(300 * time.Millisecond)
	if err := fresh(p); err == nil {
		t.Errorf("a connection during the reset window answered")
	}
	time.Sleep(350 * time.Millisecond)
	if err := fresh(p); err != nil {
		t.Errorf("after the window: %v", err)
	}
	if p.Accepted() != 2 {
		t.Errorf("accepted %d connections, want 2", p.Accepted())
	}
}

// TestSetTarget sends new connections to a new target.
func TestSetTarget(t *testing.T) {
	p, err := Start("127.0.0.1:1") // nothing listens there
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = p.Close() }()
	if err := fresh(p); err == nil {
		t.Errorf("a proxy to nowhere answered")
	}
	p.SetTarget(echo(t))
	if err := fresh(p); err != nil {
		t.Errorf("after SetTarget: %v", err)
	}
}
