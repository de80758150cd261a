package engine

import (
	"sync/atomic"
	"time"
)

// RequestNumbered is a Task that knows the id of its last operation's
// last request on the wire, so a calibration can join each operation to
// an instrument's account of the same request (bench/responder).
type RequestNumbered interface {
	Task
	LastRequest() (id int64, ok bool)
}

// TraceRecord is one measured, successful operation as the calibration
// mode keeps it: its intended start, the engine's call of its task (the
// end of the send lag), its send (where its service time begins: the
// write of its first request when the task knows it, SendTimed, else the
// call), its reply's arrival (the
// kernel's receive stamp, whether or not the operation ended there; 0
// when unknown) and the worker's return, as
// Unix nanoseconds on the wall clock (so another process on the host
// can set its own kernel stamps beside them), and the latency and
// service time the engine recorded for it.
type TraceRecord struct {
	Request  int64 // the task's request id; -1 when unknown
	Op       int32
	Intended int64 // closed loop: the send (the operation starts there)
	Called   int64
	Sent     int64
	Arrived  int64
	Returned int64
	Latency  time.Duration
	Service  time.Duration
}

// Trace is the calibration mode's record of every measured operation:
// preallocated and bounded, filled by the workers with an atomic add and
// a store each (no lock, no allocation, no I/O on the measuring path),
// read once the run is over. Operations past its capacity are counted,
// not kept.
type Trace struct {
	recs []TraceRecord
	n    atomic.Int64
}

// MaxTrace bounds a trace's capacity: 2 million operations, 128 MB
// (pages never written are never touched).
const MaxTrace = 2 << 20

// NewTrace returns a trace of capacity n, at most MaxTrace.
func NewTrace(n int) *Trace {
	return &Trace{recs: make([]TraceRecord, min(max(n, 0), MaxTrace))}
}

func (t *Trace) add(r TraceRecord) {
	if i := t.n.Add(1) - 1; i < int64(len(t.recs)) {
		t.recs[i] = r
	}
}

// Records returns the operations kept, in the order their workers
// recorded them. Call it once the run is over.
func (t *Trace) Records() []TraceRecord {
	return t.recs[:min(t.n.Load(), int64(len(t.recs)))]
}

// Overflow counts the measured operations not kept.
func (t *Trace) Overflow() int64 { return max(t.n.Load()-int64(len(t.recs)), 0) }

// trace keeps a successful measured operation in the run's trace. Times
// are the run's start on the wall clock plus their monotonic offset from
// it, so differences between them are the durations the engine measured.
func (e *engine) trace(t Task, op int, s slot, called, sent, end, done time.Time) {
	base := e.start.UnixNano()
	wall := func(x time.Time) int64 { return base + int64(x.Sub(e.start)) }
	r := TraceRecord{Request: -1, Op: int32(op), Intended: wall(s.at), Called: wall(called), Sent: wall(sent),
		Returned: wall(done), Latency: end.Sub(s.at), Service: end.Sub(sent)}
	if rt, ok := t.(ReplyTimed); ok {
		if at, ok := rt.ReplyArrived(); ok {
			r.Arrived = wall(at)
		}
	}
	if rn, ok := t.(RequestNumbered); ok {
		if id, ok := rn.LastRequest(); ok {
			r.Request = id
		}
	}
	e.cfg.Trace.add(r)
}
