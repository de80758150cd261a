package engine

import (
	"context"
	"errors"
	"time"
)

// PartsTask is a Task whose operations are made of parts that are also
// recorded as operations of their own type, beside the whole operation:
// YCSB's read and update inside a read-modify-write. Before the run the
// engine hands each such task its worker's Parts.
type PartsTask interface {
	Task
	UseParts(*Parts)
}

// Parts records the parts of a worker's operation in progress. A part's
// latency runs from the whole operation's intended start to the part's
// end, its service time from the part's own send (in closed loop, where
// there is no intended start, both are the part's own duration): what
// YCSB's DB wrapper measures for the calls a read-modify-write makes. A
// part of an operation that is not measured (warm-up) is not recorded,
// and a part cancelled by the engine's own stop is neither a success nor
// a failure.
type Parts struct {
	e        *engine
	w        *workerRec
	task     Task      // a ReplyTimed task's parts end at their reply's arrival
	at       time.Time // the operation's intended start; zero in closed loop
	measured bool
}

// Record records one part: op is its operation type (an index into
// Config.Ops), sent when it was sent and err its outcome.
func (p *Parts) Record(op int, sent time.Time, err error) {
	done := time.Now()
	if p == nil || !p.measured || op < 0 || op >= len(p.w.errs) {
		return
	}
	if err != nil {
		if ours := p.e.stopping.Load() && errors.Is(err, context.Canceled); !ours {
			p.w.failure(op, p.e.cfg.Classify(err), true)
		}
		return
	}
	from := p.at
	if p.e.closed {
		from = sent
	}
	// A part ends at its reply's arrival too; its receive lag is not
	// kept, so the receive lag counts whole operations.
	end, _ := p.e.replyEnd(p.task, sent, done)
	p.w.success(op, end.Sub(from), end.Sub(sent), true, -1)
}

// begin marks the start of the worker's next operation.
func (p *Parts) begin(s slot) {
	if p != nil {
		p.at, p.measured = s.at, s.measured
	}
}
