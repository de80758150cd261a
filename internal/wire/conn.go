package wire

import (
	"bufio"
	"context"
	"crypto/rand"
	"crypto/tls"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	mrand "math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/mongobench/mongobench/internal/bounded"
)

const (
	opMsg          = 2013
	headerLen      = 16
	maxReplyLen    = 48_000_000
	flagChecksum   = 1
	flagMoreToCome = 2
)

// aLongTimeAgo is a deadline in the past: setting it makes a blocked read
// or write return at once.
var aLongTimeAgo = time.Unix(1, 0)

// Retry says whether a command may be sent again after a retryable error.
type Retry uint8

// Retry kinds.
const (
	NoRetry    Retry = iota // the command is sent once
	RetryRead               // a read: retried once when the URI allows retryable reads
	RetryWrite              // a write: retried once, same transaction number, when retryable writes are on
	OnceWrite               // a write that is not retryable (updateMany, deleteMany): sent once, with the write concern
)

// Conn is one connection to the selected server (a standalone, the
// primary of a replica set, or a mongos). It is used by one goroutine at a
// time; after a network error it reconnects on the next command, waiting
// out the backoff of earlier failed dials.
type Conn struct {
	opts Options

	mu sync.Mutex // guards nc, its deadline and ctx against the context watcher
	nc net.Conn
	br *bufio.Reader
	// dl is the deadline last set on nc, valid when dlSet, so an
	// operation sets it only when it changes.
	dl    time.Time
	dlSet bool

	wbuf, rbuf []byte
	hbuf       []byte // handshake messages, so a reconnect keeps wbuf
	hdr        [headerLen]byte
	reqID      int32
	// arrival is when the last RoundTrip's reply reached this host (the
	// kernel's receive timestamp); zero when unknown.
	arrival time.Time
	// sent is when the operation's first request was written (just
	// before its write system call); zero until it is, and again after
	// BeginSend.
	sent time.Time

	// Server is what the selected server said in its hello.
	Server Server

	lsid        bsoncore.Document // {id: UUID}; nil when the server has no sessions
	txn         int64             // last transaction number sent
	retryWrites bool

	ctx         context.Context
	ctxDeadline time.Time // ctx's deadline; zero when it has none
	stopWatch   func() bool

	// disp sends the first request of each operation at an instant of
	// its own (UseDispatcher); nil: RoundTrip sends every request.
	disp        Dispatcher
	writeFn     func() error
	interruptFn func()
	pending     []byte // the handed request
	handErr     error  // its write's failure (under mu)
	handDL      time.Time
	unsent      atomic.Bool // the dispatcher never sent it
	// Dial failures since the last connection: the next dial waits
	// until nextDial; lastDialErr is the last failure's error.
	failures    int
	nextDial    time.Time
	lastDialErr error
}

// Server is the selected server as its hello described it.
type Server struct {
	Addr           string
	Kind           string // "standalone", "primary" or "mongos"
	SetName        string
	MaxWireVersion int32
	Sessions       bool // logicalSessionTimeoutMinutes is set
}

// Dial selects a server from the seeds, connects, and authenticates when
// the options carry credentials.
func Dial(ctx context.Context, o Options) (*Conn, error) {
	c := &Conn{opts: o, wbuf: make([]byte, 0, 16<<10), rbuf: make([]byte, 0, 16<<10)}
	if err := c.connect(ctx); err != nil {
		return nil, err
	}
	return c, nil
}

// Close closes the connection.
func (c *Conn) Close() error {
	if c.stopWatch != nil {
		c.stopWatch()
		c.stopWatch = nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.nc == nil {
		return nil
	}
	err := c.nc.Close()
	c.nc = nil
	return err
}

// connect selects a server and makes it the connection's: each seed is
// asked hello; a standalone, a mongos or a writable primary is taken, a
// replica-set member that names its primary sends us there.
func (c *Conn) connect(ctx context.Context) error {
	seeds := c.opts.Hosts
	if c.opts.Direct {
		seeds = seeds[:1]
	}
	var errs []error
	for _, addr := range seeds {
		nc, br, h, err := c.open(ctx, addr)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if h.usable(c.opts) {
			return c.adopt(ctx, nc, br, h)
		}
		_ = nc.Close()
		if h.primary == "" || h.primary == addr {
			errs = append(errs, fmt.Errorf("%s is not a writable primary and names none", addr))
			continue
		}
		nc, br, h, err = c.open(ctx, h.primary)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if h.usable(c.opts) {
			return c.adopt(ctx, nc, br, h)
		}
		_ = nc.Close()
		errs = append(errs, fmt.Errorf("%s was named primary but is not", h.primary))
	}
	return &NetworkError{Op: "select server", Err: errors.Join(errs...)}
}

// adopt authenticates on a selected connection and makes it current.
func (c *Conn) adopt(ctx context.Context, nc net.Conn, br *bufio.Reader, h hello) error {
	c.mu.Lock()
	c.nc, c.br, c.dlSet = nc, br, false
	c.mu.Unlock()
	if c.opts.Username != "" {
		if err := c.authenticate(h.mechs); err != nil {
			_ = c.Close()
			return err
		}
	}
	c.Server = h.Server
	c.retryWrites = c.opts.RetryWrites && h.Sessions && h.Kind != "standalone"
	if h.Sessions && c.lsid == nil {
		var id [16]byte
		_, _ = rand.Read(id[:])
		id[6] = id[6]&0x0f | 0x40 // version 4
		id[8] = id[8]&0x3f | 0x80 // RFC 4122 variant
		c.lsid = bsoncore.NewDocumentBuilder().AppendBinary("id", 4, id[:]).Build()
	}
	return nil
}

// open dials addr and says hello.
func (c *Conn) open(ctx context.Context, addr string) (net.Conn, *bufio.Reader, hello, error) {
	dctx, cancel := context.WithTimeout(ctx, c.opts.ConnectTimeout)
	defer cancel()
	var d net.Dialer
	nc, err := d.DialContext(dctx, "tcp", addr)
	if err != nil {
		return nil, nil, hello{}, &NetworkError{Op: "dial", Err: err}
	}
	if c.opts.TLS != nil {
		cfg := c.opts.TLS.Clone()
		if cfg.ServerName == "" {
			cfg.ServerName, _, _ = net.SplitHostPort(addr)
		}
		tc := tls.Client(nc, cfg)
		if err := tc.HandshakeContext(dctx); err != nil {
			_ = nc.Close()
			return nil, nil, hello{}, &NetworkError{Op: "tls handshake", Err: err}
		}
		nc = tc
	} else {
		nc = lean(nc)
	}
	if dl, ok := dctx.Deadline(); ok {
		_ = nc.SetDeadline(dl)
	}
	c.mu.Lock()
	c.nc, c.br = nc, bufio.NewReaderSize(nc, 64<<10)
	br := c.br
	c.mu.Unlock()
	h, err := c.hello(addr)
	c.mu.Lock()
	c.nc, c.br = nil, nil
	c.mu.Unlock()
	if err != nil {
		_ = nc.Close()
		return nil, nil, hello{}, err
	}
	return nc, br, h, nil
}

// watch makes a cancellation of ctx interrupt the connection, and notes
// its deadline. The watcher is registered once per context.
func (c *Conn) watch(ctx context.Context) {
	if ctx == c.ctx {
		return
	}
	if c.stopWatch != nil {
		c.stopWatch()
		c.stopWatch = nil
	}
	c.mu.Lock()
	c.ctx = ctx
	c.mu.Unlock()
	c.ctxDeadline, _ = ctx.Deadline()
	if ctx.Done() != nil {
		c.stopWatch = context.AfterFunc(ctx, func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			// A watcher that started late, after a later context took
			// over, leaves that context's connection alone.
			if c.ctx == ctx && c.nc != nil {
				_ = c.nc.SetDeadline(aLongTimeAgo)
				c.dl, c.dlSet = aLongTimeAgo, true
			}
		})
	}
}

// deadline is the deadline of an operation starting now: the earlier of
// the context's and OpTimeout from now; zero when there is neither.
func (c *Conn) deadline() time.Time {
	dl := c.ctxDeadline
	if c.opts.OpTimeout > 0 {
		if op := time.Now().Add(c.opts.OpTimeout); dl.IsZero() || op.Before(dl) {
			dl = op
		}
	}
	return dl
}

// setDeadline sets the connection's deadline to dl, or to the past when
// ctx is already done (under mu, so a cancellation is never overwritten).
func (c *Conn) setDeadline(ctx context.Context, dl time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if ctx.Err() != nil {
		dl = aLongTimeAgo
	}
	if c.nc != nil && (!c.dlSet || !dl.Equal(c.dl)) {
		_ = c.nc.SetDeadline(dl)
		c.dl, c.dlSet = dl, true
	}
}

// expired reports whether the deadline dl has passed.
func expired(dl time.Time) bool { return !dl.IsZero() && !time.Now().Before(dl) }

// drop closes a connection a network error broke.
func (c *Conn) drop() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.nc != nil {
		_ = c.nc.Close()
		c.nc, c.br = nil, nil
	}
}

// Start returns the connection's message buffer holding an OP_MSG header
// and a body section, ready for the command document to be appended.
// The buffer is reused: it is valid until the next Start.
func (c *Conn) Start() []byte {
	c.wbuf = append(c.wbuf[:0], make([]byte, headerLen+5)...)
	return c.wbuf
}

// startHandshake is Start for the handshake's own buffer.
func (c *Conn) startHandshake() []byte {
	c.hbuf = append(c.hbuf[:0], make([]byte, headerLen+5)...)
	return c.hbuf
}

// AppendFields appends the fields every command of a database carries:
// $db, the implicit session id, and for writes the transaction number
// (when retryable writes are on) and the write concern, for reads the
// read concern, as the connection string sets them.
func (c *Conn) AppendFields(dst []byte, db string, kind Retry) []byte {
	return c.AppendFieldsConcern(dst, db, kind, nil)
}

// AppendFieldsConcern is AppendFields with an operation's own concern:
// a write concern for a write, a read concern for a read, in place of
// the connection string's (nil: the connection string's).
func (c *Conn) AppendFieldsConcern(dst []byte, db string, kind Retry, concern bsoncore.Document) []byte {
	dst = bsoncore.AppendStringElement(dst, "$db", db)
	if c.lsid != nil {
		dst = bsoncore.AppendDocumentElement(dst, "lsid", c.lsid)
	}
	switch kind {
	case RetryWrite, OnceWrite:
		if c.retryWrites && kind == RetryWrite {
			c.txn++
			dst = bsoncore.AppendInt64Element(dst, "txnNumber", c.txn)
		}
		if concern == nil {
			concern = c.opts.WriteConcern
		}
		if concern != nil {
			dst = bsoncore.AppendDocumentElement(dst, "writeConcern", concern)
		}
	case RetryRead:
		if concern == nil {
			concern = c.opts.ReadConcern
		}
		if concern != nil {
			dst = bsoncore.AppendDocumentElement(dst, "readConcern", concern)
		}
	}
	return dst
}

// StartSequence appends the start of a document-sequence section named id
// (e.g. an insert's "documents"); append the documents, then call
// EndSequence with the returned index.
func StartSequence(dst []byte, id string) ([]byte, int) {
	at := len(dst)
	dst = append(dst, 1, 0, 0, 0, 0)
	dst = append(dst, id...)
	return append(dst, 0), at
}

// EndSequence sets the length of the section StartSequence began at.
func EndSequence(dst []byte, at int) []byte {
	binary.LittleEndian.PutUint32(dst[at+1:], uint32(len(dst)-at-1))
	return dst
}

// RoundTrip sends the message built from Start and returns the reply's
// body, valid until the next RoundTrip. A reply with ok:0, writeErrors or
// a writeConcernError is returned with an *Error. After a retryable error
// the command is sent once more on a new connection when kind and the
// connection string allow it, the error was not a failed dial (those
// wait for the backoff, on the next operation) and the operation's time
// is not up. The
// operation, reconnects and retry included, ends by the operation
// timeout (Options.OpTimeout) or the context's deadline, whichever is
// first: past it, the error is a *NetworkError whose Timeout is true (or
// wraps context.DeadlineExceeded, for the context's).
func (c *Conn) RoundTrip(ctx context.Context, msg []byte, kind Retry) (bsoncore.Document, error) {
	if cap(msg) > cap(c.wbuf) {
		c.wbuf = msg // the message outgrew the buffer: keep the larger one
	}
	c.arrival = time.Time{}
	c.watch(ctx)
	var reply bsoncore.Document
	var err error
	var dl time.Time
	if c.disp != nil && c.disp.Armed() {
		if reply, dl, err = c.sendHanded(ctx, msg); errors.Is(err, ErrNotSent) {
			return nil, err
		}
	} else {
		dl = c.deadline()
		reply, err = c.send(ctx, msg, dl)
	}
	if err == nil || ctx.Err() != nil || expired(dl) || c.failures > 0 || !c.mayRetry(err, kind) {
		return reply, err
	}
	c.drop()
	return c.send(ctx, msg, dl)
}

// ReplyArrived returns when the reply of the last RoundTrip reached this
// host: the kernel's receive timestamp of its last bytes, before this
// process was woken to read them. ok is false when it is unknown: the
// round trip failed, the connection is TLS, or the platform is not
// Linux. The kernel stamps the segment last in sequence, not the one
// that arrived last: when a retransmission fills a gap in the reply, the
// arrival is that of the later segment, up to the retransmission's delay
// early.
func (c *Conn) ReplyArrived() (time.Time, bool) {
	return c.arrival, !c.arrival.IsZero()
}

// BeginSend starts an operation: Sent then says when its first request
// is written (engine.SendTimed).
func (c *Conn) BeginSend() { c.sent = time.Time{} }

// Sent returns when the first request since BeginSend was sent: the
// kernel's transmit timestamp of its write over plain TCP on Linux (when
// the segment was handed to the network device; on loopback, just
// before the server's socket received it), else the clock read just
// before its write system call. Either is after any reconnection and
// with the command built, so an operation's service time counts
// neither. ok is false when nothing was written.
func (c *Conn) Sent() (time.Time, bool) {
	if c.sent.IsZero() {
		return time.Time{}, false
	}
	if c.nc != nil {
		if at, ok := sentTime(c.nc, c.sent); ok {
			return at, true
		}
	}
	return c.sent, true
}

// stampSent keeps the time of the operation's first write and asks for
// its kernel transmit stamp.
func (c *Conn) stampSent() {
	if c.sent.IsZero() {
		markSend(c.nc)
		c.sent = time.Now()
	}
}

// requestIDs numbers the process's requests: an id names one request
// among every connection's, so a calibration can join each operation to
// a server's account of it (LastRequestID).
var requestIDs atomic.Int32

// LastRequestID is the id of the last request sent, unique in the
// process (until 2³¹ requests wrap it).
func (c *Conn) LastRequestID() int32 { return c.reqID }

func (c *Conn) mayRetry(err error, kind Retry) bool {
	switch kind {
	case RetryRead:
		return c.opts.RetryReads && retryable(err, false)
	case RetryWrite:
		return c.retryWrites && retryable(err, true)
	}
	return false
}

// send connects if needed, writes msg and reads its reply by the
// deadline dl (none when zero).
func (c *Conn) send(ctx context.Context, msg []byte, dl time.Time) (bsoncore.Document, error) {
	if c.nc == nil {
		if err := c.redial(ctx, dl); err != nil {
			return nil, c.ctxErr(ctx, err)
		}
	}
	c.setDeadline(ctx, dl)
	c.stampSent()
	reply, err := c.exchange(msg)
	return c.finish(ctx, reply, err)
}

// finish is a request's outcome from its reply and the error of its
// exchange: a network error drops the connection.
func (c *Conn) finish(ctx context.Context, reply bsoncore.Document, err error) (bsoncore.Document, error) {
	if err != nil {
		var ne *NetworkError
		if errors.As(err, &ne) {
			c.drop()
			if ne.Timeout() && ctx.Err() == nil && c.opts.OpTimeout > 0 {
				err = &NetworkError{Op: ne.Op, Err: fmt.Errorf("no reply within the operation timeout (%v): %w", c.opts.OpTimeout, ne.Err)}
			}
			return nil, c.ctxErr(ctx, err)
		}
		return nil, err
	}
	if err := checkReply(reply); err != nil {
		c.arrival = time.Time{}
		return reply, err
	}
	return reply, nil
}

// redial connects again after the connection was dropped: it first waits
// out the backoff of earlier failed dials (until dl at most: an operation
// whose time ends first fails with the last dial's error), then dials by
// dl, and on failure sets the next backoff.
func (c *Conn) redial(ctx context.Context, dl time.Time) error {
	if c.failures > 0 {
		if wait := time.Until(c.nextDial); wait > 0 {
			if !dl.IsZero() && dl.Before(c.nextDial) {
				if err := bounded.Sleep(ctx, time.Until(dl)); err != nil {
					return err
				}
				return &NetworkError{Op: "dial", Err: fmt.Errorf("server unreachable (%d failed dials, next in %v): %w",
					c.failures, time.Until(c.nextDial).Round(time.Millisecond), c.lastDialErr)}
			}
			if err := bounded.Sleep(ctx, wait); err != nil {
				return err
			}
		}
	}
	cctx := ctx
	if !dl.IsZero() {
		var cancel context.CancelFunc
		cctx, cancel = context.WithDeadline(ctx, dl)
		defer cancel()
	}
	if err := c.connect(cctx); err != nil {
		c.failures++
		c.lastDialErr = err
		c.nextDial = time.Now().Add(c.opts.backoff().Delay(c.failures, mrand.Float64())) //nolint:gosec // jitter, not a secret
		return err
	}
	c.failures = 0
	return nil
}

// backoff is the options' redial backoff, DefaultBackoff when unset.
func (o Options) backoff() Backoff {
	if o.Backoff.Base > 0 {
		return o.Backoff
	}
	return DefaultBackoff
}

// ctxErr joins the context's error to a network error its cancellation
// or deadline caused.
func (c *Conn) ctxErr(ctx context.Context, err error) error {
	if cerr := ctx.Err(); cerr != nil {
		return fmt.Errorf("%w: %w", cerr, err)
	}
	return err
}

// exchange writes one message and reads its reply's body section.
func (c *Conn) exchange(msg []byte) (bsoncore.Document, error) {
	c.stamp(msg)
	if _, err := c.nc.Write(msg); err != nil {
		return nil, &NetworkError{Op: "write", Err: err}
	}
	return c.readReply()
}

// stamp numbers msg as the connection's next request and sets its header.
func (c *Conn) stamp(msg []byte) {
	c.arrival = time.Time{}
	c.reqID = requestIDs.Add(1)
	binary.LittleEndian.PutUint32(msg[0:], uint32(len(msg)))
	binary.LittleEndian.PutUint32(msg[4:], uint32(c.reqID))
	binary.LittleEndian.PutUint32(msg[8:], 0)
	binary.LittleEndian.PutUint32(msg[12:], opMsg)
}

// readReply reads the reply to the last request stamped.
func (c *Conn) readReply() (bsoncore.Document, error) {
	if _, err := io.ReadFull(c.br, c.hdr[:]); err != nil {
		return nil, &NetworkError{Op: "read", Err: err}
	}
	n := int(int32(binary.LittleEndian.Uint32(c.hdr[0:]))) - headerLen
	if n < 5 || n > maxReplyLen {
		return nil, &NetworkError{Op: "read", Err: fmt.Errorf("reply length %d", n+headerLen)}
	}
	if cap(c.rbuf) < n {
		c.rbuf = make([]byte, n, n+n/4)
	}
	body := c.rbuf[:n]
	if _, err := io.ReadFull(c.br, body); err != nil {
		return nil, &NetworkError{Op: "read", Err: err}
	}
	if to := int32(binary.LittleEndian.Uint32(c.hdr[8:])); to != c.reqID {
		return nil, &NetworkError{Op: "read", Err: fmt.Errorf("reply to request %d, sent %d", to, c.reqID)}
	}
	if op := binary.LittleEndian.Uint32(c.hdr[12:]); op != opMsg {
		return nil, &NetworkError{Op: "read", Err: fmt.Errorf("reply opcode %d, want OP_MSG", op)}
	}
	flags := binary.LittleEndian.Uint32(body)
	if flags&flagMoreToCome != 0 {
		return nil, &NetworkError{Op: "read", Err: errors.New("exhaust replies are not supported")}
	}
	if flags&flagChecksum != 0 {
		body = body[:len(body)-4]
	}
	if body[4] != 0 {
		return nil, &NetworkError{Op: "read", Err: fmt.Errorf("reply section kind %d first", body[4])}
	}
	doc := bsoncore.Document(body[5:])
	if l, _, ok := bsoncore.ReadLength(doc); !ok || int(l) > len(doc) || l < 5 {
		return nil, &NetworkError{Op: "read", Err: errors.New("malformed reply document")}
	} else {
		doc = doc[:l]
	}
	if c.br.Buffered() == 0 { // the read that ended the reply carried its last bytes
		if at, ok := arrived(c.nc, time.Now()); ok {
			c.arrival = at
		}
	}
	return doc, nil
}
