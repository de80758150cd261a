// Package faultproxy is a loopback TCP proxy that injects network faults
// for tests: it passes traffic through, resets connections, holds every
// byte for a while (a black hole: connections stay open, nothing
// arrives), or delays every byte by a fixed latency. Tests put it between
// the tool and a real server and change the fault while a run goes on.
package faultproxy

import (
	"net"
	"sync"
	"time"
)

// Proxy forwards connections accepted on Addr to a target address.
type Proxy struct {
	ln net.Listener

	mu        sync.Mutex
	target    string
	conns     map[net.Conn]struct{}
	holeUntil time.Time     // nothing is delivered before it
	resetTill time.Time     // new connections are reset before it
	latency   time.Duration // added to every byte's delivery
	accepted  int
	wg        sync.WaitGroup
	closed    bool
}

// Start listens on a free loopback port and forwards to target
// ("host:port").
func Start(target string) (*Proxy, error) {
	return StartOn("127.0.0.1:0", target)
}

// StartOn listens on addr and forwards to target.
func StartOn(addr, target string) (*Proxy, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	p := &Proxy{ln: ln, target: target, conns: map[net.Conn]struct{}{}}
	p.wg.Add(1)
	go p.accept()
	return p, nil
}

// Addr is the proxy's "host:port".
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

// SetTarget forwards new connections to another address, such as a
// restarted server's.
func (p *Proxy) SetTarget(target string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.target = target
}

// Pass ends every fault: traffic passes through at once again.
func (p *Proxy) Pass() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.holeUntil, p.resetTill, p.latency = time.Time{}, time.Time{}, 0
}

// BlackHole holds every byte, in both directions, for d from now: open
// connections stall and new ones are accepted but hear nothing. Held
// bytes are delivered when the hole ends, as TCP retransmits them.
func (p *Proxy) BlackHole(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.holeUntil = time.Now().Add(d)
}

// Reset resets (TCP RST) every open connection now, and every new one
// for d from now.
func (p *Proxy) Reset(d time.Duration) {
	p.mu.Lock()
	p.resetTill = time.Now().Add(d)
	conns := make([]net.Conn, 0, len(p.conns))
	for c := range p.conns {
		conns = append(conns, c)
	}
	p.mu.Unlock()
	for _, c := range conns {
		reset(c)
	}
}

// Latency delays every byte, in both directions, by d (0 ends it).
func (p *Proxy) Latency(d time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.latency = d
}

// Accepted is how many connections the proxy has accepted.
func (p *Proxy) Accepted() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.accepted
}

// Close stops listening and closes every connection.
func (p *Proxy) Close() error {
	p.mu.Lock()
	p.closed, p.holeUntil, p.latency = true, time.Time{}, 0
	for c := range p.conns {
		_ = c.Close()
	}
	p.mu.Unlock()
	err := p.ln.Close()
	p.wg.Wait()
	return err
}

func (p *Proxy) accept() {
	defer p.wg.Done()
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		p.accepted++
		resetNow, target, closed := time.Now().Before(p.resetTill), p.target, p.closed
		p.mu.Unlock()
		if resetNow || closed {
			reset(c)
			continue
		}
		p.wg.Add(1)
		go p.serve(c, target)
	}
}

// serve dials the target and copies both ways until either side ends.
func (p *Proxy) serve(client net.Conn, target string) {
	defer p.wg.Done()
	server, err := net.DialTimeout("tcp", target, 5*time.Second)
	if err != nil {
		reset(client)
		return
	}
	if !p.track(client, server) {
		return
	}
	done := make(chan struct{}, 2)
	go func() { p.pipe(server, client); done <- struct{}{} }()
	go func() { p.pipe(client, server); done <- struct{}{} }()
	<-done
	_ = client.Close()
	_ = server.Close()
	<-done
	p.untrack(client, server)
}

func (p *Proxy) track(conns ...net.Conn) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		for _, c := range conns {
			_ = c.Close()
		}
		return false
	}
	for _, c := range conns {
		p.conns[c] = struct{}{}
	}
	return true
}

func (p *Proxy) untrack(conns ...net.Conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range conns {
		delete(p.conns, c)
	}
}

type chunk struct {
	data []byte
	due  time.Time
}

// pipe copies src to dst: a reader stamps each chunk with its due time
// (now plus the latency) and a writer delivers it no earlier than that,
// nor before a black hole ends, so latency does not limit throughput.
func (p *Proxy) pipe(dst, src net.Conn) {
	queue := make(chan chunk, 256)
	go func() {
		defer close(queue)
		for {
			buf := make([]byte, 32<<10)
			n, err := src.Read(buf)
			if n > 0 {
				p.mu.Lock()
				lat := p.latency
				p.mu.Unlock()
				queue <- chunk{buf[:n], time.Now().Add(lat)}
			}
			if err != nil {
				return
			}
		}
	}()
	for c := range queue {
		for {
			p.mu.Lock()
			wait := time.Until(c.due)
			if hole := time.Until(p.holeUntil); hole > wait {
				wait = hole
			}
			p.mu.Unlock()
			if wait <= 0 {
				break
			}
			time.Sleep(min(wait, 20*time.Millisecond)) // a hole may be lifted early by Pass
		}
		if _, err := dst.Write(c.data); err != nil {
			_ = src.Close()
			for range queue { // let the reader end
			}
			return
		}
	}
	if tc, ok := dst.(*net.TCPConn); ok {
		_ = tc.CloseWrite()
	}
}

// reset closes c with a TCP RST.
func reset(c net.Conn) {
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetLinger(0)
	}
	_ = c.Close()
}
