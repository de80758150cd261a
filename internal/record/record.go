// Package record is 'mongobench record': a TCP proxy between an
// application and its MongoDB server that forwards every byte unchanged
// both ways and writes each wire message, with its connection, its
// direction (the header's responseTo) and the microsecond it was read,
// to a recording in the server's 8.x layout (package recording).
//
// Each direction of a connection reads one whole message (its size
// bounded by the wire protocol's maximum), queues a copy stamped with
// its order and time (so a request is always recorded before the reply
// it causes) and writes it on, so the application waits for no disk, nor
// for any decoding: the writer takes credentials out (one
// recording.Redactor per connection, in the order the messages were
// queued) as it writes. Copies wait in one queue bounded in bytes; a
// writer that falls behind so far that the queue is full stops the
// recording, as the server's own recorder does: the file keeps
// everything before that moment, complete, the traffic keeps flowing
// unrecorded, and the proxy says so at once and when it stops. A stream
// that is not the wire protocol is forwarded as it is and not recorded.
package record

import (
	"bufio"
	"context"
	"crypto/tls"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/mongobench/mongobench/internal/recording"
)

// DefaultBuffer is the queue's bound when Options.Buffer is 0.
const DefaultBuffer = 64 << 20

// Options configure a proxy.
type Options struct {
	// Listen is the address the application connects to; Upstream the
	// server's host:port, reached over TLS when TLS is set.
	Listen   string
	Upstream string
	TLS      *tls.Config
	// Out receives the recording.
	Out io.Writer
	// Buffer bounds the bytes of messages waiting for the writer.
	Buffer int64
	// DialTimeout bounds the connection to the upstream (default 10s).
	DialTimeout time.Duration
	// Say receives notices (the recording stopped, a connection that
	// is not the wire protocol); nil: none.
	Say func(format string, args ...any)
}

// Stats is what a proxy did.
type Stats struct {
	Connections int   // accepted and connected upstream
	Open        int   // of them, open now
	Messages    int64 // messages recorded
	Redacted    int64 // of them, recorded without their credentials
	Bytes       int64 // the recording's size
	// NotRecorded counts the messages forwarded but not recorded (the
	// recording stopped), and Stopped says why it stopped.
	NotRecorded int64
	Stopped     string
	// Unframed counts connections whose bytes were not the wire
	// protocol: forwarded, not recorded from there on.
	Unframed int
	// Unreadable counts messages forwarded but not recorded because they
	// could not be decoded to take credentials out.
	Unreadable int64
}

// Proxy is a running recording proxy.
type Proxy struct {
	o      Options
	ln     net.Listener
	start  time.Time
	ctx    context.Context // ends at Close: dials in progress give up
	cancel context.CancelFunc

	mu      sync.Mutex
	conns   map[net.Conn]struct{}
	nextID  uint64
	closed  bool
	stats   Stats
	queue   []item
	queued  int64
	order   uint64
	stopped bool      // the recording stopped: nothing more is queued
	drainBy time.Time // set by Close: the writer writes nothing after it
	wake    chan struct{}

	connWG   sync.WaitGroup
	writerWG sync.WaitGroup
	werr     error
}

// Start listens on o.Listen and records every connection made to it
// until Close.
func Start(o Options) (*Proxy, error) {
	if o.Buffer <= 0 {
		o.Buffer = DefaultBuffer
	}
	if o.DialTimeout <= 0 {
		o.DialTimeout = 10 * time.Second
	}
	if o.Say == nil {
		o.Say = func(string, ...any) {}
	}
	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return nil, fmt.Errorf("listen on %s: %w", o.Listen, err)
	}
	p := &Proxy{o: o, ln: ln, start: time.Now(), conns: map[net.Conn]struct{}{}, wake: make(chan struct{}, 1)}
	p.ctx, p.cancel = context.WithCancel(context.Background())
	p.writerWG.Add(1)
	go p.writer()
	p.connWG.Add(1)
	go p.accept()
	return p, nil
}

// Addr is the address the proxy listens on.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// Stats is what the proxy did so far.
func (p *Proxy) Stats() Stats {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stats
}

// DrainTime bounds how long Close writes what is queued: packets still
// queued after it are left out (counted as not recorded), so the file
// ends with a complete record and Ctrl-C is answered within two seconds
// even by a slow disk.
const DrainTime = 1500 * time.Millisecond

// Close stops accepting, closes every connection (recording their end),
// writes what is queued (for at most DrainTime) and returns what the
// proxy did; the error is the writer's, if it failed.
func (p *Proxy) Close() (Stats, error) {
	p.mu.Lock()
	already := p.closed
	p.closed = true
	for c := range p.conns {
		_ = c.Close()
	}
	p.mu.Unlock()
	p.cancel()
	if !already {
		_ = p.ln.Close()
	}
	p.connWG.Wait()
	p.mu.Lock()
	p.stopped = true // nothing after the last session's end
	p.drainBy = time.Now().Add(DrainTime)
	p.mu.Unlock()
	p.signal()
	p.writerWG.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.stats, p.werr
}

func (p *Proxy) accept() {
	defer p.connWG.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.closed {
			p.mu.Unlock()
			_ = c.Close()
			return
		}
		p.conns[c] = struct{}{}
		p.connWG.Add(1)
		p.mu.Unlock()
		go p.serve(c)
	}
}

func (p *Proxy) track(c net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return false
	}
	p.conns[c] = struct{}{}
	return true
}

func (p *Proxy) untrack(cs ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range cs {
		delete(p.conns, c)
		_ = c.Close()
	}
}

// serve forwards one client connection.
func (p *Proxy) serve(client net.Conn) {
	defer p.connWG.Done()
	up, raw, err := p.dial()
	if err != nil {
		p.o.Say("connection from %s: %v", client.RemoteAddr(), err)
		p.untrack(client)
		return
	}
	// The raw connection is the one closed: closing a TLS connection
	// would wait to send its close alert.
	if !p.track(raw) {
		p.untrack(client, raw)
		return
	}
	p.mu.Lock()
	p.nextID++
	id := p.nextID
	p.stats.Connections++
	p.stats.Open++
	p.mu.Unlock()
	session := recording.Session(id, client.RemoteAddr().String(), client.LocalAddr().String())
	p.enqueue(item{pk: recording.Packet{Event: recording.EventSessionStart, Conn: id, Session: session}})
	red := &recording.Redactor{}
	var wg sync.WaitGroup
	wg.Add(2)
	go func() { defer wg.Done(); p.pipe(id, session, client, up, red); p.untrack(client, raw) }()
	go func() { defer wg.Done(); p.pipe(id, session, up, client, red); p.untrack(client, raw) }()
	wg.Wait()
	p.enqueue(item{pk: recording.Packet{Event: recording.EventSessionEnd, Conn: id, Session: session}})
	p.mu.Lock()
	p.stats.Open--
	p.mu.Unlock()
}

// dial connects to the upstream: the connection to use and the TCP
// connection under it.
func (p *Proxy) dial() (net.Conn, net.Conn, error) {
	d := net.Dialer{Timeout: p.o.DialTimeout}
	c, err := d.DialContext(p.ctx, "tcp", p.o.Upstream)
	if err != nil {
		return nil, nil, fmt.Errorf("connect to the upstream %s: %w", p.o.Upstream, err)
	}
	if p.o.TLS == nil {
		return c, c, nil
	}
	cfg := p.o.TLS.Clone()
	if cfg.ServerName == "" {
		host, _, _ := net.SplitHostPort(p.o.Upstream)
		cfg.ServerName = host
	}
	tc := tls.Client(c, cfg)
	ctx, cancel := context.WithTimeout(p.ctx, p.o.DialTimeout)
	defer cancel()
	if err := tc.HandshakeContext(ctx); err != nil {
		_ = c.Close()
		return nil, nil, fmt.Errorf("TLS with the upstream %s: %w", p.o.Upstream, err)
	}
	return tc, c, nil
}

// item is a queued packet and its connection's redactor (nil for a
// session event), used by the writer alone.
type item struct {
	pk  recording.Packet
	red *recording.Redactor
}

// pipe forwards src to dst a message at a time, recording each.
func (p *Proxy) pipe(id uint64, session string, src, dst net.Conn, red *recording.Redactor) {
	br := bufio.NewReaderSize(src, 64<<10)
	buf := make([]byte, 0, 64<<10)
	for {
		var size [4]byte
		if _, err := io.ReadFull(br, size[:]); err != nil {
			return
		}
		n := int32(binary.LittleEndian.Uint32(size[:]))
		if n < 16 || n > recording.MaxMessageSize {
			// Not the wire protocol: pass the rest through as it is.
			p.mu.Lock()
			p.stats.Unframed++
			p.mu.Unlock()
			p.o.Say("connection %d: a message declares %d bytes, not a wire message; its bytes are forwarded and not recorded", id, n)
			if _, err := dst.Write(size[:]); err == nil {
				_, _ = io.Copy(dst, br)
			}
			return
		}
		if cap(buf) < int(n) {
			buf = make([]byte, n)
		}
		buf = buf[:n]
		copy(buf, size[:])
		if m, err := io.ReadFull(br, buf[4:]); err != nil {
			_, _ = dst.Write(buf[:4+m]) // what arrived goes on; the stream has ended
			return
		}
		p.record(id, session, buf, red)
		if _, err := dst.Write(buf); err != nil {
			return
		}
		if cap(buf) > 1<<20 {
			buf = make([]byte, 0, 64<<10) // a large message's buffer is not kept
		}
	}
}

// record queues a copy of msg for the writer.
func (p *Proxy) record(id uint64, session string, msg []byte, red *recording.Redactor) {
	p.mu.Lock()
	stopped := p.stopped
	if stopped {
		p.stats.NotRecorded++
	}
	p.mu.Unlock()
	if stopped {
		return
	}
	cp := make([]byte, len(msg))
	copy(cp, msg)
	p.enqueue(item{pk: recording.Packet{Event: recording.EventMessage, Conn: id, Session: session, Message: cp}, red: red})
}

// mayHoldCredentials says cheaply whether a message must be decoded to
// take credentials out: a request whose command (an OP_MSG body's first
// key) is one of an authentication conversation's, a hello or a user
// command; a $cmd OP_QUERY; anything compressed; any reply (the
// redactor decodes only the replies to the requests it remembers).
func mayHoldCredentials(msg []byte) bool {
	op := recording.OpCode(int32(binary.LittleEndian.Uint32(msg[12:])))
	responseTo := binary.LittleEndian.Uint32(msg[8:])
	switch op {
	case recording.OpCompressed, recording.OpQuery, recording.OpReply:
		return true
	case recording.OpMsg:
	default:
		return false
	}
	if responseTo != 0 {
		return true
	}
	// flagBits, then a section kind: 0, the body, whose first element's
	// key is the command.
	if len(msg) < 27 || msg[20] != 0 {
		return true
	}
	key := msg[26:]
	end := 0
	for end < len(key) && end < 32 && key[end] != 0 {
		end++
	}
	switch strings.ToLower(string(key[:end])) {
	case "saslstart", "saslcontinue", "authenticate", "getnonce", "copydbsaslstart", "copydbgetnonce",
		"hello", "ismaster", "createuser", "updateuser":
		return true
	}
	return end == 32 || end == len(key) // a key too long to be one of them, or cut: decode to be sure
}

// enqueue puts a packet in the writer's queue, stamped with its order
// and the time since the proxy started, unless the recording stopped.
func (p *Proxy) enqueue(it item) {
	p.mu.Lock()
	if p.stopped {
		if it.pk.Event == recording.EventMessage {
			p.stats.NotRecorded++
		}
		p.mu.Unlock()
		return
	}
	size := cost(it.pk)
	if p.queued+size > p.o.Buffer {
		p.stopped = true
		p.stats.NotRecorded++
		p.stats.Stopped = fmt.Sprintf("the writer fell %d bytes behind (--buffer %d): the recording holds everything before %s, complete", p.queued, p.o.Buffer, time.Since(p.start).Round(time.Millisecond))
		msg := p.stats.Stopped
		p.mu.Unlock()
		p.o.Say("recording stopped: %s; traffic still flows", msg)
		return
	}
	p.order++
	it.pk.Order = p.order
	it.pk.Offset = time.Since(p.start)
	p.queue = append(p.queue, it)
	p.queued += size
	wake := p.queued >= wakeAt
	p.mu.Unlock()
	if wake {
		p.signal()
	}
}

// The writer drains the queue every writeEvery, or as soon as wakeAt
// bytes wait: the application's messages wake no goroutine, and the
// file is written in a few large writes a second, at most writeEvery
// behind the traffic.
const (
	writeEvery = 20 * time.Millisecond
	wakeAt     = 1 << 20
)

// cost is what a queued packet counts against the buffer.
func cost(pk recording.Packet) int64 { return int64(len(pk.Message) + len(pk.Session) + 64) }

func (p *Proxy) signal() {
	select {
	case p.wake <- struct{}{}:
	default:
	}
}

// writer writes the queue to Out, each message without its
// credentials, flushing whenever it has caught up.
func (p *Proxy) writer() {
	defer p.writerWG.Done()
	bw := bufio.NewWriterSize(p.o.Out, 1<<20)
	w := recording.NewWriter(bw)
	var batch []item
	tick := time.NewTicker(writeEvery)
	defer tick.Stop()
	for {
		select {
		case <-p.wake:
		case <-tick.C:
		}
		for {
			p.mu.Lock()
			batch, p.queue = p.queue, batch[:0]
			p.mu.Unlock()
			if len(batch) == 0 {
				break
			}
			var freed, written, redacted, unreadable, late int64
			for i := range batch {
				it := &batch[i]
				freed += cost(it.pk)
				if p.late() {
					if it.pk.Event == recording.EventMessage {
						late++
					}
				} else if p.failed() == nil {
					ok, changed := p.redact(it)
					switch {
					case !ok:
						unreadable++
					default:
						if err := w.Write(it.pk); err != nil {
							p.fail(err)
						} else if it.pk.Event == recording.EventMessage {
							written++
							if changed {
								redacted++
							}
						}
					}
				}
				*it = item{}
			}
			p.mu.Lock()
			p.queued -= freed
			p.stats.Messages += written
			p.stats.Redacted += redacted
			p.stats.Unreadable += unreadable
			p.stats.NotRecorded += late
			if late > 0 && p.stats.Stopped == "" {
				p.stats.Stopped = fmt.Sprintf("the disk had not taken the queue %s after the stop: the rest was left out", DrainTime)
			}
			p.mu.Unlock()
		}
		if p.failed() == nil {
			if err := bw.Flush(); err != nil {
				p.fail(err)
			}
		}
		p.mu.Lock()
		p.stats.Bytes = w.Bytes() - int64(bw.Buffered())
		end := p.closed && p.stopped && len(p.queue) == 0
		p.mu.Unlock()
		if end {
			return
		}
	}
}

// redact takes a message's credentials out; false when it cannot be
// decoded to check (it is not recorded).
func (p *Proxy) redact(it *item) (ok, changed bool) {
	if it.red == nil || !mayHoldCredentials(it.pk.Message) {
		return true, false
	}
	out, changed, err := it.red.Redact(it.pk.Message)
	if err != nil {
		return false, false
	}
	it.pk.Message = out
	return true, changed
}

// late: Close's time to drain the queue is over.
func (p *Proxy) late() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return !p.drainBy.IsZero() && time.Now().After(p.drainBy)
}

func (p *Proxy) failed() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.werr
}

// fail stops the recording after a write error.
func (p *Proxy) fail(err error) {
	p.mu.Lock()
	first := p.werr == nil
	if first {
		p.werr = fmt.Errorf("write the recording: %w", err)
		p.stopped = true
		p.stats.Stopped = p.werr.Error()
	}
	p.mu.Unlock()
	if first {
		p.o.Say("recording stopped: %v; traffic still flows", err)
	}
}

// Run serves until ctx ends, then closes.
func Run(ctx context.Context, o Options, ready func(addr string)) (Stats, error) {
	p, err := Start(o)
	if err != nil {
		return Stats{}, err
	}
	if ready != nil {
		ready(p.Addr())
	}
	<-ctx.Done()
	return p.Close()
}
