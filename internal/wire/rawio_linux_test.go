package wire

import (
	"io"
	"net"
	"testing"
	"time"
)

// loopPair is a lean client connection and the server's end of it.
func loopPair(t *testing.T) (*rawTCP, net.Conn) {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = l.Close() }()
	nc, err := net.Dial("tcp", l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	srv, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	c, ok := lean(nc).(*rawTCP)
	if !ok {
		t.Fatal("lean: want a raw TCP connection on Linux")
	}
	t.Cleanup(func() { _ = c.Close(); _ = srv.Close() })
	return c, srv
}

// A marked write's send is the kernel's transmit stamp: after the clock
// read before it, before its bytes were read at the other end; the
// writes after it (unmarked) neither ask for one nor move it, and the
// next mark forgets it.
func TestMarkedWriteHasItsTransmitStamp(t *testing.T) {
	c, srv := loopPair(t)
	if !c.tx {
		t.Fatal("transmit stamps refused by the kernel")
	}
	buf := make([]byte, 300)
	for i := range 5 {
		if _, err := c.Write(make([]byte, 100+i)); err != nil { // unmarked writes before: the keys count them
			t.Fatal(err)
		}
		if _, err := io.ReadFull(srv, buf[:100+i]); err != nil {
			t.Fatal(err)
		}
		c.markSend()
		before := time.Now()
		if _, err := c.Write(make([]byte, 200)); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(srv, buf[:200]); err != nil {
			t.Fatal(err)
		}
		read := time.Now()
		at, ok := c.sentTime(before)
		if !ok {
			t.Fatalf("write %d: no transmit stamp", i)
		}
		if at.Before(before) || at.After(read) {
			t.Fatalf("write %d: stamp %v, want between the clock before the write (%v) and its bytes read (%v)", i, at, before, read)
		}
		if _, err := c.Write(make([]byte, 50)); err != nil {
			t.Fatal(err)
		}
		if again, _ := c.sentTime(before); !again.Equal(at) {
			t.Fatalf("write %d: stamp %v after an unmarked write, want %v", i, again, at)
		}
		if _, err := io.ReadFull(srv, buf[:50]); err != nil {
			t.Fatal(err)
		}
	}
	c.markSend()
	if at, ok := c.sentTime(time.Now()); ok {
		t.Errorf("stamp %v after a new mark and no write: want none", at)
	}
	// A write too large to be stamped whole has none.
	c.markSend()
	big := make([]byte, maxStampedWrite+1)
	go func() { _, _ = io.CopyN(io.Discard, srv, int64(len(big))) }()
	if _, err := c.Write(big); err != nil {
		t.Fatal(err)
	}
	if at, ok := c.sentTime(time.Now().Add(-time.Second)); ok {
		t.Errorf("stamp %v of a %d-byte write: want none", at, len(big))
	}
}

// receiveStampsOn makes round trips on c until a reply carries its
// receive time, within ten seconds. The first socket on a host to ask
// for receive stamps turns them on for the whole host in a deferred
// kernel work item (netstamp_needed_key); segments received before it
// runs carry none, and on a busy machine it can run late. Once on, they
// stay on while c holds its SO_TIMESTAMPNS.
func receiveStampsOn(t *testing.T, c *rawTCP, srv net.Conn) {
	t.Helper()
	buf := make([]byte, 4)
	for deadline := time.Now().Add(10 * time.Second); ; {
		if _, err := srv.Write([]byte("warm")); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(c, buf); err != nil {
			t.Fatal(err)
		}
		if _, ok := arrived(c, time.Now()); ok {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal("no receive time on any reply in 10 s: the kernel gives this socket no receive stamps")
		}
		time.Sleep(time.Millisecond)
	}
}

// A read after the stamps were turned off mid-connection still gets its
// data and its receive time.
func TestStopStampsKeepsReading(t *testing.T) {
	c, srv := loopPair(t)
	receiveStampsOn(t, c, srv)
	c.markSend()
	if _, err := c.Write([]byte("ping")); err != nil {
		t.Fatal(err)
	}
	c.stopStamps()
	c.markSend()
	if _, err := c.Write([]byte("more")); err != nil {
		t.Fatal(err)
	}
	if at, ok := c.sentTime(time.Now().Add(-time.Second)); ok {
		t.Fatalf("stamp %v of a write after the stamps were turned off: want none", at)
	}
	if _, err := io.ReadFull(srv, make([]byte, 8)); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if i > 0 {
			if _, err := c.Write([]byte("more")); err != nil {
				t.Fatal(err)
			}
			if _, err := io.ReadFull(srv, make([]byte, 4)); err != nil {
				t.Fatal(err)
			}
		}
		before := time.Now()
		if _, err := srv.Write([]byte("pong")); err != nil {
			t.Fatal(err)
		}
		buf := make([]byte, 4)
		if _, err := io.ReadFull(c, buf); err != nil || string(buf) != "pong" {
			t.Fatalf("read %q, %v: want pong", buf, err)
		}
		now := time.Now()
		at, ok := arrived(c, now)
		if !ok {
			t.Fatalf("reply %d: no receive time after the transmit stamps were turned off", i)
		}
		if at.Before(before) || at.After(now) {
			t.Errorf("reply %d: receive time %v, want between its write (%v) and the read's return (%v)", i, at, before, now)
		}
	}
}

// A round trip on the lean connection allocates nothing: the marked
// write with its transmit stamp, the read with its receive stamp.
func TestRoundTripAllocatesNothing(t *testing.T) {
	c, srv := loopPair(t)
	go func() { _, _ = io.Copy(srv, srv) }() // echo
	req, buf := make([]byte, 100), make([]byte, 100)
	n := testing.AllocsPerRun(200, func() {
		c.markSend()
		before := time.Now()
		if _, err := c.Write(req); err != nil {
			t.Fatal(err)
		}
		if _, err := io.ReadFull(c, buf); err != nil {
			t.Fatal(err)
		}
		if _, ok := c.sentTime(before); !ok {
			t.Fatal("no transmit stamp")
		}
	})
	if n != 0 {
		t.Errorf("%v allocations per round trip: want none", n)
	}
}
