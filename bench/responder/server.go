package main

import (
	"bufio"
	"container/heap"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"runtime"
	"strconv"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unsafe"

	"github.com/HdrHistogram/hdrhistogram-go"
)

// opCounters are the responder's serverStatus figures.
type opCounters struct {
	conns    atomic.Int64
	finds    atomic.Int64
	commands atomic.Int64
}

// server answers every connection on its own goroutine; hot-path replies
// go out through the sender at their due time.
type server struct {
	delay   time.Duration
	stalls  Stalls
	replies *replies
	sender  *sender
	counts  opCounters
	nextID  atomic.Int64
	trace   *reqTrace

	originOnce sync.Once
	origin     time.Time // the first hot-path request's arrival
}

// conn is one client connection; writes are serialized (the sender and
// the connection's goroutine both write).
type conn struct {
	nc net.Conn
	id int64
	mu sync.Mutex
	// tx reads the kernel's transmit stamps of the writes (nil: none);
	// written counts the bytes written since they were turned on, and
	// waiting maps a traced reply's stamp key to its trace record.
	tx      *txStamper
	written uint32
	waiting map[uint32]int
}

// write writes b; a reply traced at index rec (-1: none) has its write
// begin and return and, when the kernel gives one, its transmit stamp
// kept in tr.
func (c *conn) write(b []byte, tr *reqTrace, rec int) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	begin := time.Now()
	_, err := c.nc.Write(b)
	end := time.Now()
	if c.tx == nil {
		return err
	}
	key := c.written + uint32(len(b)) - 1
	c.written += uint32(len(b))
	if r := tr.at(rec); r != nil {
		r.Begin, r.End = begin.UnixNano(), end.UnixNano()
		c.waiting[key] = rec
	}
	c.tx.drain(func(key uint32, ns int64) {
		if i, ok := c.waiting[key]; ok {
			delete(c.waiting, key)
			tr.at(i).Sent = ns
		}
	})
	return err
}

func (s *server) serve(l net.Listener) error {
	for {
		nc, err := l.Accept()
		if err != nil {
			if errors.Is(err, net.ErrClosed) {
				return nil
			}
			return fmt.Errorf("accept: %w", err)
		}
		go s.handle(nc)
	}
}

func (s *server) handle(nc net.Conn) {
	s.counts.conns.Add(1)
	defer s.counts.conns.Add(-1)
	defer func() { _ = nc.Close() }() // the connection is over either way
	if tc, ok := nc.(*net.TCPConn); ok {
		_ = tc.SetNoDelay(true)
	}
	id := s.nextID.Add(1)
	c := &conn{nc: nc, id: id}
	var sr *stampReader
	br := bufio.NewReaderSize(nc, 64<<10)
	if tc, ok := nc.(*net.TCPConn); ok {
		if r, err := newStampReader(tc); err == nil {
			sr = r
			br = bufio.NewReaderSize(sr, 64<<10)
		}
		if c.tx = newTxStamper(tc); c.tx != nil {
			c.waiting = make(map[uint32]int)
		}
	}
	var hdr [4]byte
	var buf, out []byte
	for {
		if _, err := io.ReadFull(br, hdr[:]); err != nil {
			return
		}
		n := int(int32(binary.LittleEndian.Uint32(hdr[:])))
		if n < headerLen+5 || n > maxMessageBytes {
			return
		}
		if cap(buf) < n {
			buf = make([]byte, n)
		}
		buf = buf[:n]
		copy(buf, hdr[:])
		if _, err := io.ReadFull(br, buf[4:]); err != nil {
			return
		}
		arrived := time.Now()
		noticed := arrived
		stamped := false
		if sr != nil {
			arrived, stamped = sr.arrival(noticed)
		}
		req, err := parse(buf)
		if err != nil {
			return
		}
		if req.name == "find" {
			s.counts.finds.Add(1)
			s.originOnce.Do(func() { s.origin = arrived })
			off := arrived.Sub(s.origin)
			due := s.origin.Add(s.stalls.Reply(off, s.delay))
			msg := frame(nil, req, int32(s.nextID.Add(1)), findReply(str(req.cmd, "$db")+"."+str(req.cmd, "find")))
			s.sender.noticed(noticed.Sub(arrived), stamped)
			rec := s.trace.add(reqRecord{ID: req.id, Conn: id, Read: noticed.UnixNano(), Due: due.UnixNano(), Stalled: due.Sub(arrived) > s.delay})
			if r := s.trace.at(rec); r != nil && stamped {
				r.Arrived = sr.last.UnixNano()
			}
			s.sender.add(&pending{due: due, c: c, msg: msg, stalled: due.Sub(arrived) > s.delay, rec: rec})
			continue
		}
		s.counts.commands.Add(1)
		if req.noAck {
			continue
		}
		out = frame(out[:0], req, int32(s.nextID.Add(1)), s.replies.answer(req, id, &s.counts))
		if err := c.write(out, s.trace, -1); err != nil {
			return
		}
	}
}

// pending is a hot-path reply waiting for its due time.
type pending struct {
	due     time.Time
	seq     uint64
	c       *conn
	msg     []byte
	stalled bool // held by a stall (due later than arrival + d)
	rec     int  // its trace record; -1: none
}

type queue []*pending

func (q queue) Len() int { return len(q) }
func (q queue) Less(i, j int) bool {
	if q[i].due.Equal(q[j].due) {
		return q[i].seq < q[j].seq
	}
	return q[i].due.Before(q[j].due)
}
func (q queue) Swap(i, j int) { q[i], q[j] = q[j], q[i] }
func (q *queue) Push(x any)   { *q = append(*q, x.(*pending)) }
func (q *queue) Pop() any {
	old := *q
	x := old[len(old)-1]
	*q = old[:len(old)-1]
	return x
}

// sender sends hot-path replies at their due time from one goroutine on
// a locked OS thread: a Go sleep for long waits, a nanosleep (timer slack
// 1 ns) to within spin of the due time, then a busy-wait. Replies due at
// the same time (a stall's end) go out in arrival order. It records each
// reply's error: the time the write began and returned, minus the due
// time.
type sender struct {
	spin  time.Duration
	trace *reqTrace

	mu   sync.Mutex
	q    queue
	seq  uint64
	wake chan struct{}

	statsMu sync.Mutex
	begin   *hdrhistogram.Histogram // write start − due, ns
	end     *hdrhistogram.Histogram // write return − due, ns
	stall   *hdrhistogram.Histogram // as end, replies held by a stall
	wakeup  *hdrhistogram.Histogram // request read − kernel arrival, ns
	sent    int64
	failed  int64
	nostamp int64 // requests without a kernel timestamp
	rt      string
}

// noticed records how long after its kernel arrival a request was read.
func (s *sender) noticed(d time.Duration, stamped bool) {
	s.statsMu.Lock()
	defer s.statsMu.Unlock()
	if !stamped {
		s.nostamp++
		return
	}
	_ = s.wakeup.RecordValue(max(int64(d), 1))
}

func newSender(spin time.Duration) *sender {
	h := func() *hdrhistogram.Histogram { return hdrhistogram.New(1, int64(time.Minute), 3) }
	return &sender{spin: spin, wake: make(chan struct{}, 1), begin: h(), end: h(), stall: h(), wakeup: h()}
}

func (s *sender) add(p *pending) {
	s.mu.Lock()
	s.seq++
	p.seq = s.seq
	heap.Push(&s.q, p)
	first := s.q[0] == p
	s.mu.Unlock()
	if first {
		select {
		case s.wake <- struct{}{}:
		default:
		}
	}
}

// prSetTimerslack is prctl's PR_SET_TIMERSLACK.
const prSetTimerslack = 29

func (s *sender) loop(stop <-chan struct{}) {
	runtime.LockOSThread()
	_, _, _ = syscall.RawSyscall(syscall.SYS_PRCTL, prSetTimerslack, 1, 0)
	if s.rt == "" {
		s.rt = realtime(0)
	}
	for {
		s.mu.Lock()
		if len(s.q) == 0 {
			s.mu.Unlock()
			select {
			case <-s.wake:
				continue
			case <-stop:
				return
			}
		}
		due := s.q[0].due
		s.mu.Unlock()
		s.waitUntil(due)
		for {
			s.mu.Lock()
			if len(s.q) == 0 || time.Now().Before(s.q[0].due) {
				s.mu.Unlock()
				break
			}
			p := heap.Pop(&s.q).(*pending)
			s.mu.Unlock()
			s.send(p)
		}
	}
}

func (s *sender) send(p *pending) {
	t0 := time.Now()
	err := p.c.write(p.msg, s.trace, p.rec)
	t1 := time.Now()
	s.statsMu.Lock()
	defer s.statsMu.Unlock()
	if err != nil {
		s.failed++
		return
	}
	s.sent++
	_ = s.begin.RecordValue(int64(t0.Sub(p.due)))
	_ = s.end.RecordValue(int64(t1.Sub(p.due)))
	if p.stalled {
		_ = s.stall.RecordValue(int64(t1.Sub(p.due)))
	}
}

// waitUntil returns at due or just after: Go's sleep (millisecond
// grained when idle) for all but the last 2 ms, nanosleep to within spin,
// then a busy-wait.
func (s *sender) waitUntil(due time.Time) {
	if r := time.Until(due); r > 2*time.Millisecond {
		time.Sleep(r - 2*time.Millisecond)
	}
	if r := time.Until(due) - s.spin; r > 0 {
		// A raw system call keeps the goroutine's P: returning from a
		// blocking one may wait for a P behind other goroutines.
		ts := syscall.NsecToTimespec(int64(r))
		_, _, _ = syscall.RawSyscall(syscall.SYS_NANOSLEEP, uintptr(unsafe.Pointer(&ts)), 0, 0)
	}
	for time.Now().Before(due) {
	}
}

// Stats is the responder's account of its own accuracy.
type Stats struct {
	Delay      string  `json:"delay"`
	Stall      string  `json:"stall,omitempty"`
	Every      string  `json:"every,omitempty"`
	First      string  `json:"first,omitempty"`
	Spin       string  `json:"spin"`
	Replies    int64   `json:"replies"`
	Failed     int64   `json:"failed"`
	Finds      int64   `json:"finds"`
	BeginP50us float64 `json:"writeBeginMinusDueP50us"`
	BeginP99us float64 `json:"writeBeginMinusDueP99us"`
	EndP50us   float64 `json:"writeEndMinusDueP50us"`
	EndP99us   float64 `json:"writeEndMinusDueP99us"`
	EndP999us  float64 `json:"writeEndMinusDueP999us"`
	EndMaxus   float64 `json:"writeEndMinusDueMaxus"`
	Realtime   string  `json:"senderScheduling"`
	NoStamp    int64   `json:"requestsWithoutKernelTimestamp"`
	ReadP50us  float64 `json:"readMinusArrivalP50us"`
	ReadP99us  float64 `json:"readMinusArrivalP99us"`
	ReadMaxus  float64 `json:"readMinusArrivalMaxus"`
	StalledN   int64   `json:"stalledReplies"`
	StallP50us float64 `json:"stalledWriteEndMinusDueP50us,omitempty"`
	StallP99us float64 `json:"stalledWriteEndMinusDueP99us,omitempty"`
	StallMaxus float64 `json:"stalledWriteEndMinusDueMaxus,omitempty"`
}

func us(h *hdrhistogram.Histogram, q float64) float64 {
	if q >= 100 {
		return float64(h.Max()) / 1e3
	}
	return float64(h.ValueAtQuantile(q)) / 1e3
}

func (s *server) stats() Stats {
	sd := s.sender
	sd.statsMu.Lock()
	defer sd.statsMu.Unlock()
	st := Stats{Delay: s.delay.String(), Spin: sd.spin.String(), Replies: sd.sent, Failed: sd.failed,
		Finds:      s.counts.finds.Load(),
		BeginP50us: us(sd.begin, 50), BeginP99us: us(sd.begin, 99),
		EndP50us: us(sd.end, 50), EndP99us: us(sd.end, 99), EndP999us: us(sd.end, 99.9), EndMaxus: us(sd.end, 100),
		StalledN: sd.stall.TotalCount(), Realtime: sd.rt, NoStamp: sd.nostamp,
		ReadP50us: us(sd.wakeup, 50), ReadP99us: us(sd.wakeup, 99), ReadMaxus: us(sd.wakeup, 100)}
	if s.stalls.Length > 0 {
		st.Stall, st.Every, st.First = s.stalls.Length.String(), s.stalls.Every.String(), s.stalls.First.String()
	}
	if st.StalledN > 0 {
		st.StallP50us, st.StallP99us, st.StallMaxus = us(sd.stall, 50), us(sd.stall, 99), us(sd.stall, 100)
	}
	return st
}

// realtimeAll puts every thread of the process under SCHED_FIFO; threads
// created later inherit it from the thread that creates them.
func realtimeAll() string {
	tasks, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return "SCHED_OTHER (" + err.Error() + ")"
	}
	policy := ""
	for _, t := range tasks {
		tid, err := strconv.Atoi(t.Name())
		if err != nil {
			continue
		}
		policy = realtime(tid)
	}
	return policy + ", every thread"
}

// schedParam is sched_setscheduler's parameter.
type schedParam struct{ priority int32 }

// realtime puts the calling thread under SCHED_FIFO at the lowest
// real-time priority, so its wake-ups are not queued behind ordinary
// threads on a busy machine, and says which policy it runs under.
func realtime(tid int) string {
	const schedFIFO = 1
	p := schedParam{priority: 1}
	if _, _, errno := syscall.RawSyscall(syscall.SYS_SCHED_SETSCHEDULER, uintptr(tid), schedFIFO, uintptr(unsafe.Pointer(&p))); errno != 0 {
		return "SCHED_OTHER (SCHED_FIFO refused: " + errno.Error() + ")"
	}
	return "SCHED_FIFO 1"
}
