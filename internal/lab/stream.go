package lab

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"runtime"
	"sync"
	"time"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/telemetry"
)

// Streaming a run to its store while it runs (store.Registrar): a run is
// registered as its measured phase starts, each closed interval and each
// telemetry sample's figures are sent to the store at full resolution
// within about a second, and its summary is kept current every
// result.BeatEvery, so a client that dies loses at most that much. The
// engine never waits for the store: records queue (up to streamQueue),
// and those a slow store leaves behind are counted and said when the run
// ends (a run that keeps its intervals coarsened says, in a note, how
// many of them the store has: fullResolution).
const (
	streamQueue = 4096
	streamFlush = time.Second
	streamBatch = 500
)

// stream is one run's stream to its store.
type stream struct {
	reg   store.Registrar
	tally *engine.Tally
	say   func(string, ...any)
	cores int

	runID, writer string
	start         time.Time
	// held is the last closed interval, sent when the next one closes:
	// the engine re-sends the last interval when a short closing tail
	// joins it.
	held         *result.Interval
	heldIdx      int
	queue        chan record
	done         chan struct{}
	mu           sync.Mutex
	sent         int64
	behind       int64 // intervals the queue could not take
	lostReadings int64 // telemetry readings the queue could not take
	failure      error // the first failed write; the stream stops there
	closed       bool  // the queue is closed: the run has ended
}

// newStream is the stream of a run to reg (nil: the store cannot
// register runs, and nothing streams), whose tally is tally.
func newStream(reg store.Registrar, tally *engine.Tally, say func(string, ...any)) *stream {
	if reg == nil {
		return nil
	}
	return &stream{reg: reg, tally: tally, say: say, cores: runtime.GOMAXPROCS(0)}
}

// writerName names this process: host, pid and a random token.
func writerName() string {
	host, _ := os.Hostname()
	var b [4]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	return fmt.Sprintf("%s/%d/%s", host, os.Getpid(), hex.EncodeToString(b[:]))
}

// begin registers the run whose document so far is d and starts
// writing (called on the engine's callback goroutine as the measured
// phase starts: the registration is the writer's first write, so the
// engine never waits for it). A store that refuses the registration costs
// the stream, not the run.
func (s *stream) begin(ctx context.Context, d *result.Doc) {
	if s == nil {
		return
	}
	s.runID, s.writer, s.start = d.RunID, writerName(), d.Start
	reg := *d
	reg.Partial, reg.PartialReason = true, "running: registered as its measured phase started"
	reg.Live = &result.Live{State: result.StateRunning, Heartbeat: time.Now().UTC(), Writer: s.writer}
	s.mu.Lock()
	s.queue, s.done = make(chan record, streamQueue), make(chan struct{})
	s.mu.Unlock()
	go s.write(context.WithoutCancel(ctx), &reg)
}

// register is the writer's first write: the run's row, with its state.
func (s *stream) register(ctx context.Context, d *result.Doc) {
	rctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := s.reg.Register(rctx, d); err != nil {
		s.mu.Lock()
		s.failure = err
		s.mu.Unlock()
		s.say("warning: run %s is not registered in the results store while it runs (%v); it is stored when it ends\n", d.RunID, err)
	}
}

// interval takes a closed interval (on the engine's callback goroutine).
func (s *stream) interval(iv *engine.Interval) {
	if s == nil || s.queue == nil {
		return
	}
	r := iv.Result(s.cores)
	if s.held != nil && s.heldIdx != iv.Index {
		s.push(*s.held)
	}
	s.held, s.heldIdx = &r, iv.Index
}

// record is what the stream writes: a closed interval or a telemetry
// reading.
type record struct {
	iv *result.Interval
	rd *store.Reading
}

// push queues an interval for the writer without ever waiting.
func (s *stream) push(iv result.Interval) {
	select {
	case s.queue <- record{iv: &iv}:
	default:
		s.mu.Lock()
		s.behind++
		s.mu.Unlock()
	}
}

// reading queues a telemetry sample's figures (on the sampler's
// goroutine) without ever waiting, once the run is registered.
func (s *stream) reading(f telemetry.Figures) {
	if s == nil {
		return
	}
	if f.Server == nil && f.Host == nil {
		return
	}
	rd := &store.Reading{T: f.Start.UTC(), Seconds: f.End.Sub(f.Start).Seconds(), Server: f.Server, Host: f.Host}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.queue == nil || s.closed {
		return
	}
	select {
	case s.queue <- record{rd: rd}:
	default:
		s.lostReadings++
	}
}

// end sends the last interval and waits for the writer to finish (at
// most 15 s, and 1 s once ctx ends, before or during the wait); the
// complete result replaces the registered row after it.
func (s *stream) end(ctx context.Context) {
	if s == nil || s.queue == nil {
		return
	}
	if s.held != nil {
		s.push(*s.held)
	}
	s.mu.Lock()
	s.closed = true
	close(s.queue)
	s.mu.Unlock()
	wait, stopped := time.After(15*time.Second), ctx.Done()
	if ctx.Err() != nil {
		wait, stopped = time.After(time.Second), nil // after Ctrl-C the result is stored at once
	}
	for {
		select {
		case <-s.done:
			s.mu.Lock()
			behind, lost := s.behind, s.lostReadings
			s.mu.Unlock()
			if behind > 0 || lost > 0 {
				s.say("warning: run %s: %d intervals and %d telemetry readings did not reach the results store while it ran (it was slow)\n", s.runID, behind, lost)
			}
			return
		case <-stopped:
			wait, stopped = time.After(time.Second), nil
		case <-wait:
			s.fail(errors.New("the results store was too slow for the last intervals"))
			return
		}
	}
}

// write sends queued intervals in batches every streamFlush, and the
// summary every result.BeatEvery, until the queue closes.
func (s *stream) write(ctx context.Context, d *result.Doc) {
	defer close(s.done)
	s.register(ctx, d)
	flush, beat := time.NewTicker(streamFlush), time.NewTicker(result.BeatEvery)
	defer flush.Stop()
	defer beat.Stop()
	var batch []result.Interval
	var readings []store.Reading
	send := func() {
		if (len(batch) == 0 && len(readings) == 0) || s.failed() {
			batch, readings = batch[:0], readings[:0]
			return
		}
		wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
		defer cancel()
		if err := s.reg.Append(wctx, s.runID, batch, readings); err != nil {
			s.fail(err)
		} else {
			s.mu.Lock()
			s.sent += int64(len(batch))
			s.mu.Unlock()
		}
		batch, readings = batch[:0], readings[:0]
	}
	for {
		select {
		case r, ok := <-s.queue:
			if !ok {
				send()
				return
			}
			if r.iv != nil {
				batch = append(batch, *r.iv)
			} else {
				readings = append(readings, *r.rd)
			}
			if len(batch)+len(readings) >= streamBatch {
				send()
			}
		case <-flush.C:
			send()
		case <-beat.C:
			send()
			s.beat(ctx)
		}
	}
}

// beat writes the run's summary so far, from its tally.
func (s *stream) beat(ctx context.Context) {
	if s.failed() {
		return
	}
	v := s.tally.View()
	b := store.Beat{At: time.Now().UTC(), End: s.start.Add(v.Elapsed).UTC(), Duration: float64(v.Elapsed) / float64(time.Millisecond)}
	s.mu.Lock()
	b.Intervals = s.sent
	s.mu.Unlock()
	for i := range v.Ops {
		op, err := v.Ops[i].Result(v.Elapsed)
		if err != nil {
			s.fail(err)
			return
		}
		b.Ops = append(b.Ops, op)
	}
	wctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if err := s.reg.Beat(wctx, s.runID, b); err != nil {
		s.fail(err)
	}
}

// fullResolution says where the full resolution of a run its runner
// coarsened (d.Resolution) lives: the store's intervals collection when
// the stream wrote every interval there; else a note says what the store
// is missing.
func (s *stream) fullResolution(d *result.Doc) {
	if d == nil || d.Resolution == nil {
		return
	}
	var sent int64
	if s != nil && s.queue != nil && !s.failed() {
		s.mu.Lock()
		sent = s.sent
		s.mu.Unlock()
	}
	full := int64(d.Resolution.FullIntervals)
	if sent == full {
		d.Resolution.Collection = store.IntervalsCollection
		return
	}
	d.Notes = append(d.Notes, fmt.Sprintf("the document keeps the run's intervals at %gs; %d of its %d intervals at %gs reached the results store while it ran (a MongoDB results store keeps them all)",
		d.Resolution.IntervalSec, sent, full, d.Resolution.FullIntervalSec))
}

func (s *stream) failed() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failure != nil
}

// fail stops the stream at its first failed write, with a warning: the
// complete result still replaces the registered row at the end.
func (s *stream) fail(err error) {
	s.mu.Lock()
	first := s.failure == nil
	if first {
		s.failure = err
	}
	s.mu.Unlock()
	if first {
		s.say("warning: run %s: streaming to the results store stopped (%v); the result is stored when the run ends\n", s.runID, err)
	}
}
