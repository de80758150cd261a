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
	"net"
	"sync"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
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
)

// Conn is one connection to the selected server (a standalone, the
// primary of a replica set, or a mongos). It is used by one goroutine at a
// time; after a network error it reconnects on the next command.
type Conn struct {
	opts Options

	mu sync.Mutex // guards nc against the context watcher
	nc net.Conn
	br *bufio.Reader

	wbuf, rbuf []byte
	hbuf       []byte // handshake messages, so a reconnect keeps wbuf
	hdr        [headerLen]byte
	reqID      int32

	// Server is what the selected server said in its hello.
	Server Server

	lsid        bsoncore.Document // {id: UUID}; nil when the server has no sessions
	txn         int64             // last transaction number sent
	retryWrites bool

	ctx       context.Context
	stopWatch func() bool
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
	c.nc, c.br = nc, br
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
	c.applyDeadline()
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

// watch makes a cancellation of ctx interrupt the connection, and applies
// its deadline. The watcher is registered once per context.
func (c *Conn) watch(ctx context.Context) {
	if ctx == c.ctx {
		return
	}
	if c.stopWatch != nil {
		c.stopWatch()
		c.stopWatch = nil
	}
	c.ctx = ctx
	if ctx.Done() != nil {
		c.stopWatch = context.AfterFunc(ctx, func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			if c.nc != nil {
				_ = c.nc.SetDeadline(aLongTimeAgo)
			}
		})
	}
	c.applyDeadline()
}

// applyDeadline sets the connection's deadline to the current context's.
func (c *Conn) applyDeadline() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.nc == nil {
		return
	}
	var dl time.Time
	if c.ctx != nil {
		dl, _ = c.ctx.Deadline()
		if c.ctx.Err() != nil {
			dl = aLongTimeAgo
		}
	}
	_ = c.nc.SetDeadline(dl)
}

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
	dst = bsoncore.AppendStringElement(dst, "$db", db)
	if c.lsid != nil {
		dst = bsoncore.AppendDocumentElement(dst, "lsid", c.lsid)
	}
	switch kind {
	case RetryWrite:
		if c.retryWrites {
			c.txn++
			dst = bsoncore.AppendInt64Element(dst, "txnNumber", c.txn)
		}
		if c.opts.WriteConcern != nil {
			dst = bsoncore.AppendDocumentElement(dst, "writeConcern", c.opts.WriteConcern)
		}
	case RetryRead:
		if c.opts.ReadConcern != nil {
			dst = bsoncore.AppendDocumentElement(dst, "readConcern", c.opts.ReadConcern)
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
// connection string allow it.
func (c *Conn) RoundTrip(ctx context.Context, msg []byte, kind Retry) (bsoncore.Document, error) {
	if cap(msg) > cap(c.wbuf) {
		c.wbuf = msg // the message outgrew the buffer: keep the larger one
	}
	c.watch(ctx)
	reply, err := c.send(ctx, msg)
	if err == nil || ctx.Err() != nil || !c.mayRetry(err, kind) {
		return reply, err
	}
	c.drop()
	return c.send(ctx, msg)
}

func (c *Conn) mayRetry(err error, kind Retry) bool {
	switch kind {
	case RetryRead:
		return c.opts.RetryReads && retryable(err, false)
	case RetryWrite:
		return c.retryWrites && retryable(err, true)
	}
	return false
}

// send connects if needed, writes msg and reads its reply.
func (c *Conn) send(ctx context.Context, msg []byte) (bsoncore.Document, error) {
	if c.nc == nil {
		if err := c.connect(ctx); err != nil {
			return nil, c.ctxErr(ctx, err)
		}
	}
	reply, err := c.exchange(msg)
	if err != nil {
		var ne *NetworkError
		if errors.As(err, &ne) {
			c.drop()
			return nil, c.ctxErr(ctx, err)
		}
		return nil, err
	}
	return reply, checkReply(reply)
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
	c.reqID++
	binary.LittleEndian.PutUint32(msg[0:], uint32(len(msg)))
	binary.LittleEndian.PutUint32(msg[4:], uint32(c.reqID))
	binary.LittleEndian.PutUint32(msg[8:], 0)
	binary.LittleEndian.PutUint32(msg[12:], opMsg)
	if _, err := c.nc.Write(msg); err != nil {
		return nil, &NetworkError{Op: "write", Err: err}
	}
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
	return doc, nil
}
