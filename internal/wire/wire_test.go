package wire_test

import (
	"context"
	"errors"
	"runtime"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/mongobench/mongobench/internal/testsupport/testenv"
	"github.com/mongobench/mongobench/internal/wire"
)

func TestMain(m *testing.M) { testenv.Main(m) }

func dial(t *testing.T) *wire.Conn {
	t.Helper()
	o, err := wire.Parse(testenv.URI(t))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := wire.Dial(ctx, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

// command sends {name: value, …extra} to db and returns the reply.
func command(t *testing.T, c *wire.Conn, db string, kind wire.Retry, build func(dst []byte) []byte, seq ...bsoncore.Document) (bsoncore.Document, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	msg := c.Start()
	idx, msg := bsoncore.AppendDocumentStart(msg)
	msg = build(msg)
	msg = c.AppendFields(msg, db, kind)
	msg, _ = bsoncore.AppendDocumentEnd(msg, idx)
	if len(seq) > 0 {
		var at int
		msg, at = wire.StartSequence(msg, "documents")
		for _, d := range seq {
			msg = append(msg, d...)
		}
		msg = wire.EndSequence(msg, at)
	}
	reply, err := c.RoundTrip(ctx, msg, kind)
	return append(bsoncore.Document(nil), reply...), err
}

func TestDialAndPing(t *testing.T) {
	c := dial(t)
	if c.Server.Kind == "" || c.Server.MaxWireVersion < 6 {
		t.Errorf("server %+v: want a kind and wire version ≥ 6", c.Server)
	}
	reply, err := command(t, c, "admin", wire.NoRetry, func(d []byte) []byte { return bsoncore.AppendInt32Element(d, "ping", 1) })
	if err != nil {
		t.Fatal(err)
	}
	if v, ok := wire.Field(reply, "ok"); !ok || v.AsFloat64() != 1 {
		t.Errorf("ping reply %v: want ok 1", reply)
	}
}

func TestServerErrors(t *testing.T) {
	c := dial(t)
	db := testenv.DBName(t)
	_, err := command(t, c, db, wire.NoRetry, func(d []byte) []byte { return bsoncore.AppendInt32Element(d, "noSuchCommandAtAll", 1) })
	var se *wire.Error
	if !errors.As(err, &se) || se.Code != 59 {
		t.Fatalf("unknown command: got %v, want a *wire.Error with code 59", err)
	}
	ins := func(d []byte) []byte {
		d = bsoncore.AppendStringElement(d, "insert", "dups")
		return bsoncore.AppendBooleanElement(d, "ordered", true)
	}
	doc := bsoncore.NewDocumentBuilder().AppendString("_id", "k1").Build()
	if _, err := command(t, c, db, wire.RetryWrite, ins, doc); err != nil {
		t.Fatal(err)
	}
	defer func() {
		_, _ = command(t, c, db, wire.NoRetry, func(d []byte) []byte { return bsoncore.AppendInt32Element(d, "dropDatabase", 1) })
	}()
	_, err = command(t, c, db, wire.RetryWrite, ins, doc)
	if !errors.As(err, &se) || !se.IsDuplicateKey() || len(se.WriteErrors) != 1 || se.WriteErrors[0].Index != 0 {
		t.Fatalf("second insert of the same _id: got %#v, want one duplicate-key write error at index 0", err)
	}
	if got, want := se.ErrorCodes(), []int{11000}; len(got) != 1 || got[0] != want[0] {
		t.Errorf("codes: got %v, want %v", got, want)
	}
}

// TestReconnects checks that a command after a broken connection (here
// a cancelled context) dials again.
func TestReconnects(t *testing.T) {
	c := dial(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	msg := c.Start()
	idx, msg := bsoncore.AppendDocumentStart(msg)
	msg = bsoncore.AppendInt32Element(msg, "ping", 1)
	msg = c.AppendFields(msg, "admin", wire.NoRetry)
	msg, _ = bsoncore.AppendDocumentEnd(msg, idx)
	if _, err := c.RoundTrip(ctx, msg, wire.NoRetry); !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled context: got %v, want context.Canceled", err)
	}
	if _, err := command(t, c, "admin", wire.NoRetry, func(d []byte) []byte { return bsoncore.AppendInt32Element(d, "ping", 1) }); err != nil {
		t.Fatalf("after the cancelled command: %v, want a new connection and ok", err)
	}
}

func TestReplyArrivalIsBetweenSendAndReturn(t *testing.T) {
	c := dial(t)
	ping := func(d []byte) []byte { return bsoncore.AppendInt32Element(d, "ping", 1) }
	if runtime.GOOS == "linux" {
		// The first socket on a host to ask for receive stamps turns them
		// on for the whole host in a deferred kernel work item; replies
		// before it runs (late, on a busy machine) carry none. Once on,
		// they stay on while this connection asks for them.
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(time.Millisecond) {
			if _, err := command(t, c, "admin", wire.NoRetry, ping); err != nil {
				t.Fatal(err)
			}
			if _, ok := c.ReplyArrived(); ok {
				break
			}
			if time.Now().After(deadline) {
				t.Fatal("no reply arrival in 10 s of pings: want the kernel's receive timestamp of a plain TCP connection")
			}
		}
	}
	for range 20 {
		before := time.Now()
		if _, err := command(t, c, "admin", wire.NoRetry, ping); err != nil {
			t.Fatal(err)
		}
		after := time.Now()
		at, ok := c.ReplyArrived()
		if runtime.GOOS != "linux" {
			if ok {
				t.Fatalf("reply arrival %v on %s: want none (kernel timestamps are read on Linux)", at, runtime.GOOS)
			}
			return
		}
		if !ok {
			t.Fatal("reply arrival unknown: want the kernel's receive timestamp of a plain TCP connection")
		}
		if at.Before(before) || at.After(after) {
			t.Fatalf("reply arrival %v: want between the send (%v) and the return (%v)", at, before, after)
		}
	}
	// A reply that is a server error is not a completed operation's.
	if _, err := command(t, c, "admin", wire.NoRetry, func(d []byte) []byte { return bsoncore.AppendInt32Element(d, "noSuchCommand", 1) }); err == nil {
		t.Fatal("noSuchCommand: want a server error")
	}
	if at, ok := c.ReplyArrived(); ok {
		t.Errorf("reply arrival %v of a server error: want none", at)
	}
	// A failed round trip has no arrival.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	msg := c.Start()
	idx, msg := bsoncore.AppendDocumentStart(msg)
	msg = bsoncore.AppendInt32Element(msg, "ping", 1)
	msg = c.AppendFields(msg, "admin", wire.NoRetry)
	msg, _ = bsoncore.AppendDocumentEnd(msg, idx)
	if _, err := c.RoundTrip(ctx, msg, wire.NoRetry); err == nil {
		t.Fatal("round trip with a cancelled context: want an error")
	}
	if at, ok := c.ReplyArrived(); ok {
		t.Errorf("reply arrival %v after a failed round trip: want none", at)
	}
}

// An operation's send is its first request's write: after the command is
// built, before its reply; a second request of the same operation leaves
// it, BeginSend forgets it, and an operation on a dropped connection has
// its send stamped once it is written on the new one.
func TestSentIsTheOperationsFirstWrite(t *testing.T) {
	c := dial(t)
	ping := func(d []byte) []byte { return bsoncore.AppendInt32Element(d, "ping", 1) }
	c.BeginSend()
	if at, ok := c.Sent(); ok {
		t.Fatalf("sent %v before any write: want none", at)
	}
	before := time.Now()
	if _, err := command(t, c, "admin", wire.NoRetry, ping); err != nil {
		t.Fatal(err)
	}
	first, ok := c.Sent()
	if !ok || first.Before(before) {
		t.Fatalf("sent %v (%v): want a time after %v", first, ok, before)
	}
	if at, ok := c.ReplyArrived(); runtime.GOOS == "linux" && (!ok || !at.After(first)) {
		t.Fatalf("reply arrived %v (%v): want after the send %v", at, ok, first)
	}
	if _, err := command(t, c, "admin", wire.NoRetry, ping); err != nil {
		t.Fatal(err)
	}
	if at, _ := c.Sent(); !at.Equal(first) {
		t.Errorf("sent %v after a second request of the operation: want the first's, %v", at, first)
	}
	// A dropped connection: the next operation is sent on a new one.
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	msg := c.Start()
	idx, msg := bsoncore.AppendDocumentStart(msg)
	msg = ping(msg)
	msg = c.AppendFields(msg, "admin", wire.NoRetry)
	msg, _ = bsoncore.AppendDocumentEnd(msg, idx)
	if _, err := c.RoundTrip(ctx, msg, wire.NoRetry); err == nil {
		t.Fatal("round trip with a cancelled context: want an error")
	}
	c.BeginSend()
	before = time.Now()
	if _, err := command(t, c, "admin", wire.NoRetry, ping); err != nil {
		t.Fatal(err)
	}
	sent, ok := c.Sent()
	arrived, _ := c.ReplyArrived()
	if !ok || sent.Before(before) || (runtime.GOOS == "linux" && !sent.Before(arrived)) {
		t.Errorf("sent %v after a redial begun at %v, reply at %v: want between", sent, before, arrived)
	}
}
