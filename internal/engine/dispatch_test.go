package engine

import (
	"context"
	"errors"
	"math/rand/v2"
	"sync"
	"testing"
	"time"
)

// request is one operation's request as a gatedTask saw it.
type request struct {
	built       time.Time // when Do built it, before handing it
	written     time.Time // when its gate wrote it; zero: never
	slotAt      time.Time // the intended start of the slot it was written for
	due         time.Time // when its write was due
	began       time.Time // the engine's clock before the write
	interrupted bool      // its wait was ended unsent
	refused     bool      // Hand refused it
	stamped     time.Time // when a stampedTask says it was sent
}

// requestLog is every request of a run's gated tasks.
type requestLog struct {
	mu   sync.Mutex
	reqs []*request
}

func (l *requestLog) add(r *request) {
	l.mu.Lock()
	l.reqs = append(l.reqs, r)
	l.mu.Unlock()
}

func (l *requestLog) all() []request {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([]request, len(l.reqs))
	for i, r := range l.reqs {
		out[i] = *r
	}
	return out
}

// gatedTask hands each operation's request to its gate; the reply comes
// delay after the write (at once when 0). fail makes every operation
// fail before it is handed (a connection that cannot be opened).
type gatedTask struct {
	g     *Gate
	log   *requestLog
	delay time.Duration
	fail  error
	last  *request // the last operation's request
}

func (t *gatedTask) UseGate(g *Gate) bool { t.g = g; return true }

func (t *gatedTask) Do(ctx context.Context) (int, error) {
	if t.fail != nil {
		return 0, t.fail
	}
	if t.g == nil { // not gated: the worker sends its request itself
		t.log.add(&request{built: time.Now(), written: time.Now()})
		if t.delay > 0 {
			time.Sleep(t.delay)
		}
		return 0, nil
	}
	r := &request{built: time.Now()}
	t.last = r
	reply := make(chan error, 1)
	write := func() error {
		t.log.mu.Lock()
		r.written, r.slotAt, r.due, r.began = time.Now(), t.g.slot.at, t.g.due, t.g.sent
		t.log.mu.Unlock()
		if t.delay > 0 {
			time.AfterFunc(t.delay, func() { reply <- nil })
		} else {
			reply <- nil
		}
		return nil
	}
	interrupt := func() {
		t.log.mu.Lock()
		r.interrupted = true
		t.log.mu.Unlock()
		reply <- ErrNotSent
	}
	t.log.add(r)
	if !t.g.Hand(write, interrupt) {
		t.log.mu.Lock()
		r.refused = true
		t.log.mu.Unlock()
		return 0, ErrNotSent
	}
	select {
	case err := <-reply:
		return 0, err
	case <-ctx.Done():
		return 0, ctx.Err()
	}
}

func gatedTasks(log *requestLog, delay time.Duration, fail error) NewTask {
	return func(int) (Task, error) { return &gatedTask{log: log, delay: delay, fail: fail}, nil }
}

// burstPacer makes size slots due at once, every every.
type burstPacer struct {
	every time.Duration
	size  int64
}

func (p burstPacer) At(n int64) time.Duration { return time.Duration(n/p.size) * p.every }
func (p burstPacer) String() string           { return "burst" }

// gatedPacings are the two ways a gated worker's request is sent: by the
// run's one dispatcher, and by the worker itself at its own slot (every
// other pacing; spin is the default).
var gatedPacings = []Pacing{PacingDispatch, PacingSpin}

func TestGatedWorkersAreDispatched(t *testing.T) {
	log := &requestLog{}
	cfg := Config{Ops: []string{"op"}, Workers: 2, Pacer: NewConstant(200), Duration: 200 * time.Millisecond, Pacing: PacingDispatch}
	r, e, err := runEngine(context.Background(), cfg, gatedTasks(log, 0, nil))
	if err != nil {
		t.Fatal(err)
	}
	if e.disp == nil || e.gates[0] == nil || e.gates[1] == nil {
		t.Fatalf("gated tasks: want every worker gated and a dispatcher, got gates %v", e.gates)
	}
	if r.Completed() != r.Intended || r.Failed != 0 {
		t.Errorf("completed %d failed %d of %d intended: want all completed (%s)", r.Completed(), r.Failed, r.Intended, r)
	}
}

// Under every pacing but dispatch a gated task's worker is its own gate:
// it builds its request, then waits for its own slot and writes it,
// with no dispatcher; in closed loop nothing is gated.
func TestGatingIsChosenByPacing(t *testing.T) {
	for _, p := range []Pacing{"", PacingSpin, PacingSleep, PacingTimer, PacingNanosleep} {
		log := &requestLog{}
		cfg := Config{Ops: []string{"op"}, Workers: 2, Pacer: NewConstant(200), Duration: 100 * time.Millisecond, Pacing: p}
		r, e, err := runEngine(context.Background(), cfg, gatedTasks(log, 0, nil))
		if err != nil {
			t.Fatal(err)
		}
		if e.disp != nil {
			t.Errorf("pacing %q: want no dispatcher", e.cfg.Pacing)
		}
		for i, g := range e.gates {
			if g == nil || g.own == nil {
				t.Errorf("pacing %q: worker %d not its own gate", e.cfg.Pacing, i)
			}
		}
		if r.Completed() != r.Intended || r.Failed != 0 || r.Completed() == 0 {
			t.Errorf("pacing %q: completed %d failed %d of %d intended: want all completed (%s)", e.cfg.Pacing, r.Completed(), r.Failed, r.Intended, r)
		}
	}
	log := &requestLog{}
	cfg := Config{Ops: []string{"op"}, Workers: 2, Count: 20}
	_, e, err := runEngine(context.Background(), cfg, gatedTasks(log, 0, nil))
	if err != nil {
		t.Fatal(err)
	}
	if e.gates != nil || e.disp != nil {
		t.Errorf("closed loop: want nothing gated")
	}
}

// Several operations due at one instant go out on one wake-up of the
// dispatcher, each recorded with its own slot's intended start.
func TestOneWakeUpSendsEveryDueOperation(t *testing.T) {
	const bursts, size = 10, 4
	p := burstPacer{every: 20 * time.Millisecond, size: size}
	log := &requestLog{}
	cfg := Config{Ops: []string{"op"}, Workers: size, Pacer: p, Count: bursts * size, Trace: NewTrace(1000), Pacing: PacingDispatch}
	r, e, err := runEngine(context.Background(), cfg, gatedTasks(log, 0, nil))
	if err != nil {
		t.Fatal(err)
	}
	if r.Completed() != bursts*size || r.Dropped != 0 {
		t.Fatalf("completed %d dropped %d: want %d and 0 (%s)", r.Completed(), r.Dropped, bursts*size, r)
	}
	if e.disp.sleeps > bursts {
		t.Errorf("dispatcher's timer waits: got %d for %d instants, want at most one each", e.disp.sleeps, bursts)
	}
	// Each instant's operations are recorded at that instant, as many as
	// the schedule has there, and none was sent before it.
	recs := cfg.Trace.Records()
	if len(recs) != bursts*size {
		t.Fatalf("traced: got %d want %d", len(recs), bursts*size)
	}
	first := recs[0].Intended
	for _, rec := range recs {
		first = min(first, rec.Intended)
	}
	per := map[int64]int{}
	for _, rec := range recs {
		off := time.Duration(rec.Intended - first)
		if off%p.every != 0 {
			t.Errorf("intended start at %v from the first: not a slot of the schedule", off)
		}
		per[int64(off/p.every)]++
		if rec.Sent < rec.Intended {
			t.Errorf("sent %v before its intended start", time.Duration(rec.Intended-rec.Sent))
		}
	}
	for k := int64(0); k < bursts; k++ {
		if per[k] != size {
			t.Errorf("instant %d: %d operations recorded there, want %d", k, per[k], size)
		}
	}
}

// No request is written before its slot's time when its task reports no
// send of its own (no SendTimed: the write lead stays none; the lead's
// bound is TestGatedWritesBeginEarlyByTheirPath's), and each is built
// before it is written.
func TestNoRequestIsSentBeforeItsTime(t *testing.T) {
	for _, p := range gatedPacings {
		t.Run(string(p), func(t *testing.T) {
			log := &requestLog{}
			cfg := Config{Ops: []string{"op"}, Workers: 4, Pacer: NewConstant(500),
				Warmup: 100 * time.Millisecond, Duration: 400 * time.Millisecond, Pacing: p}
			r, _, err := runEngine(context.Background(), cfg, gatedTasks(log, time.Millisecond, nil))
			if err != nil {
				t.Fatal(err)
			}
			written := 0
			for _, q := range log.all() {
				if q.written.IsZero() {
					continue
				}
				written++
				if q.written.Before(q.slotAt) {
					t.Errorf("written %v before its slot's time", q.slotAt.Sub(q.written))
				}
				if q.written.Before(q.built) {
					t.Errorf("written before it was built")
				}
			}
			if int64(written) < r.Completed() {
				t.Errorf("written %d, fewer than the %d operations completed", written, r.Completed())
			}
		})
	}
}

// A stop leaves every worker's prepared request unsent: none of them is
// ever written, every waiting task is released, and what was written is
// what completed.
func TestUnsentRequestsAreNeverSent(t *testing.T) {
	for _, p := range gatedPacings {
		t.Run(string(p), func(t *testing.T) {
			log := &requestLog{}
			cfg := Config{Ops: []string{"op"}, Workers: 4, Pacer: NewConstant(20), Duration: 10 * time.Second, Pacing: p}
			ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
			defer cancel()
			r, _, err := runEngine(ctx, cfg, gatedTasks(log, 0, nil))
			if err != nil {
				t.Fatal(err)
			}
			if !r.Partial {
				t.Errorf("an interrupted run: want partial")
			}
			var written, unsent int64
			for _, q := range log.all() {
				switch {
				case !q.written.IsZero() && (q.interrupted || q.refused):
					t.Errorf("a request both written and left unsent")
				case !q.written.IsZero():
					written++
				case q.interrupted || q.refused:
					unsent++
				default:
					t.Errorf("a request neither written nor released: its task would wait forever")
				}
			}
			if written != r.Completed() {
				t.Errorf("written %d, completed %d: want equal", written, r.Completed())
			}
			if unsent != int64(cfg.Workers) {
				t.Errorf("unsent requests: got %d want one per worker (%d)", unsent, cfg.Workers)
			}
		})
	}
}

// A slot dropped past the drop bound is never sent: the request prepared
// for it goes with the next slot, and every request sent is within the
// bound of its own slot.
func TestDroppedSlotsAreNeverSent(t *testing.T) {
	for _, p := range gatedPacings {
		t.Run(string(p), func(t *testing.T) {
			log := &requestLog{}
			cfg := Config{Ops: []string{"op"}, Workers: 1, Pacer: NewConstant(1000), DropAfter: 5 * time.Millisecond,
				Duration: 500 * time.Millisecond, Trace: NewTrace(1000), Pacing: p}
			r, _, err := runEngine(context.Background(), cfg, gatedTasks(log, 30*time.Millisecond, nil))
			if err != nil {
				t.Fatal(err)
			}
			if r.Dropped == 0 {
				t.Fatalf("dropped: got 0, want the backlog of a worker in flight 30ms at 1000/s (%s)", r)
			}
			if got := r.Completed() + r.Dropped + r.Abandoned; got != r.Intended {
				t.Errorf("completed+dropped+abandoned %d, intended %d: want equal", got, r.Intended)
			}
			for _, rec := range cfg.Trace.Records() {
				if lag := time.Duration(rec.Sent - rec.Intended); lag > cfg.DropAfter {
					t.Errorf("sent %v after its slot, beyond the drop bound %v", lag, cfg.DropAfter)
				}
			}
			written := int64(0)
			for _, q := range log.all() {
				if !q.written.IsZero() {
					written++
				}
			}
			if written != r.Completed() {
				t.Errorf("written %d, completed %d: want equal (nothing written for a dropped slot)", written, r.Completed())
			}
		})
	}
}

// An operation that fails before its request is handed (a connection that
// cannot be opened) is counted as a failure at a slot of its own, paced.
func TestFailureBeforeHandingTakesItsSlot(t *testing.T) {
	for _, p := range gatedPacings {
		t.Run(string(p), func(t *testing.T) {
			log := &requestLog{}
			cfg := Config{Ops: []string{"op"}, Workers: 2, Pacer: NewConstant(200), Duration: 300 * time.Millisecond, Pacing: p}
			r, _, err := runEngine(context.Background(), cfg, gatedTasks(log, 0, errors.New("dial: refused")))
			if err != nil {
				t.Fatal(err)
			}
			if r.Failed == 0 || r.Failed != r.Completed() {
				t.Errorf("failed %d of %d completed: want every operation failed", r.Failed, r.Completed())
			}
			if got := r.Completed() + r.Dropped + r.Abandoned; got != r.Intended {
				t.Errorf("completed+dropped+abandoned %d, intended %d: want equal", got, r.Intended)
			}
			if max := int64(60 + 1); r.Intended > max {
				t.Errorf("intended %d: a 300ms phase at 200/s has at most %d", r.Intended, max)
			}
		})
	}
}

// Every slot of the schedule is sent, dropped, skipped as warm-up
// backlog or abandoned, once: none is lost between the dispatcher's
// claims, however the slots fall due against its wake-ups.
func TestGatedAccountsForEverySlot(t *testing.T) {
	for _, p := range gatedPacings {
		t.Run(string(p), func(t *testing.T) {
			const rate, warmup, measured = 10000, 3000, 10000
			for range 3 {
				log := &requestLog{}
				cfg := Config{Ops: []string{"op"}, Workers: 64, Pacer: NewConstant(rate),
					Warmup: warmup * time.Second / rate, Duration: measured * time.Second / rate, Pacing: p}
				r, _, err := runEngine(context.Background(), cfg, gatedTasks(log, 100*time.Microsecond, nil))
				if err != nil {
					t.Fatal(err)
				}
				if r.Intended != measured || r.Completed()+r.Dropped+r.Abandoned != measured {
					t.Errorf("intended %d, completed+dropped+abandoned %d: want %d each (%s)",
						r.Intended, r.Completed()+r.Dropped+r.Abandoned, measured, r)
				}
				written := int64(0)
				for _, q := range log.all() {
					if !q.written.IsZero() {
						written++
					}
				}
				if got := written + r.WarmupSkipped + r.Dropped + r.Abandoned; got != warmup+measured {
					t.Errorf("written %d + warm-up skipped %d + dropped %d + abandoned %d = %d: want every slot, %d",
						written, r.WarmupSkipped, r.Dropped, r.Abandoned, got, warmup+measured)
				}
			}
		})
	}
}

// stampedTask is a gatedTask whose requests are sent (SendTimed: as a
// kernel's transmit stamp says) path after the engine's clock reading
// before their write.
type stampedTask struct {
	gatedTask
	path func() time.Duration
	sent time.Time
}

func (t *stampedTask) BeginSend() { t.sent = time.Time{} }

func (t *stampedTask) Sent() (time.Time, bool) { return t.sent, !t.sent.IsZero() }

func (t *stampedTask) Do(ctx context.Context) (int, error) {
	op, err := t.gatedTask.Do(ctx)
	t.log.mu.Lock()
	if last := t.last; last != nil && !last.written.IsZero() {
		t.sent = last.began.Add(t.path())
		last.stamped = t.sent
	}
	t.log.mu.Unlock()
	return op, err
}

// A gated request's write begins early by the run's estimate of the 25th
// percentile of its path to its send, learnt as the run goes, so most
// requests are sent at or after their slot's instant and none begins its
// write more than maxWriteLead before it; a path longer than that bound
// is never compensated beyond it; one sent before its slot's instant is
// timed from its send, never with a latency shorter than its service.
func TestGatedWritesBeginEarlyByTheirPath(t *testing.T) {
	for _, p := range gatedPacings {
		for _, tc := range []struct {
			name     string
			lo, hi   time.Duration // the path, uniform
			leadLo   time.Duration // the lead learnt, within
			leadHi   time.Duration
			earlyMax float64 // share of sends before their slot, at most
		}{
			{"8–12µs", 8 * time.Microsecond, 12 * time.Microsecond, 8 * time.Microsecond, 15 * time.Microsecond, 0.4},
			{"100µs", 100 * time.Microsecond, 100 * time.Microsecond, maxWriteLead, maxWriteLead, 0},
		} {
			t.Run(string(p)+"/"+tc.name, func(t *testing.T) {
				log := &requestLog{}
				r := rand.New(rand.NewPCG(1, 2))
				var mu sync.Mutex
				path := func() time.Duration {
					mu.Lock()
					defer mu.Unlock()
					return tc.lo + time.Duration(r.Int64N(int64(tc.hi-tc.lo)+1))
				}
				cfg := Config{Ops: []string{"op"}, Workers: 2, Pacer: NewConstant(2000), Duration: time.Second, Pacing: p, Trace: NewTrace(4000)}
				res, e, err := runEngine(context.Background(), cfg, func(int) (Task, error) {
					return &stampedTask{gatedTask: gatedTask{log: log}, path: path}, nil
				})
				if err != nil {
					t.Fatal(err)
				}
				if res.Completed() != res.Intended || res.Failed != 0 {
					t.Fatalf("completed %d failed %d of %d intended: want all completed (%s)", res.Completed(), res.Failed, res.Intended, res)
				}
				for _, rec := range cfg.Trace.Records() {
					if rec.Latency < rec.Service {
						t.Fatalf("latency %v shorter than service time %v: a request sent early is timed from its send", rec.Latency, rec.Service)
					}
				}
				if got := e.wlead.early(); got < tc.leadLo || got > tc.leadHi {
					t.Errorf("write lead %v: want within %v–%v", got, tc.leadLo, tc.leadHi)
				}
				reqs := log.all()
				var early, n int
				for i, q := range reqs {
					if q.written.IsZero() {
						continue
					}
					if q.written.Before(q.slotAt.Add(-maxWriteLead)) {
						t.Errorf("a write began %v before its slot: want at most %v", q.slotAt.Sub(q.written), maxWriteLead)
					}
					if i >= len(reqs)/2 {
						if lead := q.slotAt.Sub(q.due); lead < tc.leadLo-time.Microsecond || lead > tc.leadHi {
							t.Errorf("a write due %v before its slot: want the lead learnt, %v–%v", lead, tc.leadLo, tc.leadHi)
						}
						n++
						if q.stamped.Before(q.slotAt) {
							early++
						}
					}
				}
				if share := float64(early) / float64(max(n, 1)); share > tc.earlyMax {
					t.Errorf("%.2f of the second half's requests sent before their slot: want at most %.2f", share, tc.earlyMax)
				}
			})
		}
	}
}
