package wire

import (
	"context"
	"errors"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// A Dispatcher sends the first request of each of a connection's
// operations at an instant of its own (the engine's open loop, whose
// engine.Gate is one): the connection builds and numbers the request,
// hands it over, and waits for its reply; the dispatcher writes it,
// on a goroutine of its own or, before Hand returns, on the caller's.
type Dispatcher interface {
	// Armed reports whether the operation in progress still has its
	// first request to hand.
	Armed() bool
	// Hand gives the dispatcher the request: write sends it, once, on
	// the dispatcher's goroutine or on the caller's before Hand returns;
	// interrupt, called instead when a handed request is never sent,
	// ends the wait for its reply. False: it will never be sent.
	Hand(write func() error, interrupt func()) bool
}

// ErrNotSent is a request a dispatcher never sent (the run stopped
// first): nothing reached the server, and the connection is as it was.
var ErrNotSent = errors.New("request not sent: the run stopped before its time")

// UseDispatcher makes d send the first request of each of the
// connection's operations while d is armed; RoundTrip sends every other
// request (a retry, a getMore, the second request of an operation)
// itself. Call it before the connection's first operation.
func (c *Conn) UseDispatcher(d Dispatcher) {
	c.disp, c.writeFn, c.interruptFn = d, c.writeHanded, c.interruptHanded
}

// sendHanded is send with the request's write handed to the dispatcher:
// the request is built and numbered here, the connection (re)opened
// first when it is down, and this goroutine then waits for the reply,
// parked in its read, once the dispatcher has written the request at its
// instant or while it waits to. Until then the connection has no
// deadline but its context's; the operation's own deadline is set at the
// write. dl is that deadline.
func (c *Conn) sendHanded(ctx context.Context, msg []byte) (reply bsoncore.Document, dl time.Time, err error) {
	if c.nc == nil {
		dl = c.deadline()
		if err := c.redial(ctx, dl); err != nil {
			return nil, dl, c.ctxErr(ctx, err) // not handed: the caller says so
		}
	}
	c.setDeadline(ctx, c.ctxDeadline)
	c.stamp(msg)
	c.pending, c.handErr, c.handDL = msg, nil, time.Time{}
	c.unsent.Store(false)
	if !c.disp.Hand(c.writeFn, c.interruptFn) {
		return nil, time.Time{}, ErrNotSent
	}
	reply, err = c.readReply()
	c.mu.Lock()
	herr, dl := c.handErr, c.handDL
	c.mu.Unlock()
	if c.unsent.Load() {
		return nil, dl, ErrNotSent
	}
	if herr != nil {
		err = herr
	}
	reply, err = c.finish(ctx, reply, err)
	return reply, dl, err
}

// writeHanded writes the handed request (the dispatcher's goroutine),
// with the operation's deadline from now. A failed write ends the read
// waiting for its reply, which then returns the write's error.
func (c *Conn) writeHanded() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.nc == nil { // its operation gave up waiting (a cancelled context)
		return &NetworkError{Op: "write", Err: errors.New("connection closed")}
	}
	dl := c.deadline()
	c.handDL = dl
	if c.ctx != nil && c.ctx.Err() != nil {
		dl = aLongTimeAgo
	}
	if !c.dlSet || !dl.Equal(c.dl) {
		_ = c.nc.SetDeadline(dl)
		c.dl, c.dlSet = dl, true
	}
	c.stampSent()
	if _, err := c.nc.Write(c.pending); err != nil {
		c.handErr = &NetworkError{Op: "write", Err: err}
		_ = c.nc.SetDeadline(aLongTimeAgo)
		c.dl = aLongTimeAgo
		return c.handErr
	}
	return nil
}

// interruptHanded ends the wait for the reply of a request never sent.
func (c *Conn) interruptHanded() {
	c.unsent.Store(true)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.nc != nil {
		_ = c.nc.SetDeadline(aLongTimeAgo)
		c.dl, c.dlSet = aLongTimeAgo, true
	}
}
