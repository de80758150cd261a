package engine

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// A Task performs one operation and returns the index of its operation
// type (into Config.Ops) and its error. Each worker owns one Task, so a
// Task needs no locking of its own state.
type Task interface {
	Do(ctx context.Context) (op int, err error)
}

// ErrSkipped is what a task returns (wrapped or not) for an operation it
// sent nothing for because it no longer applies: a replayed getMore
// whose cursor the candidate has already closed. The operation is
// counted in Result.Skipped, never as a success or a failure; its slot
// counts as served for the achieved rate.
var ErrSkipped = errors.New("operation skipped: it no longer applies")

// ReplyTimed is a Task that knows when its last operation's last reply
// reached this host: the kernel's receive timestamp, taken before this
// process was woken to read it. The engine ends the operation there, so
// neither the worker's wake-up nor its wait for a CPU adds to the
// latency and service time it records, and keeps the difference as the
// receive lag. ok is false when the time is unknown (no reply read, or a
// connection without timestamps); the engine then ends the operation
// when Do returns.
type ReplyTimed interface {
	Task
	ReplyArrived() (at time.Time, ok bool)
}

// SlotTask is a Task whose operation depends on its slot: in open loop
// the engine calls DoSlot with the number n of the slot claimed (the
// pacer's At(n) is its intended start) in place of Do. A recording's
// replay sends request n of the recording there.
type SlotTask interface {
	Task
	DoSlot(ctx context.Context, n int64) (op int, err error)
}

// SendTimed is a Task that knows when its operation's request was
// written, which may be later than the engine's call: the lean wire
// client stamps each operation's first request just before its write
// system call, so building the command is not counted as the server's
// time, and a replay's request waits for its connection's earlier
// replies, as the application's did. The engine calls BeginSend before
// each operation; Sent is when that operation's first request was
// written, ok false when none was. The operation's service time counts
// from then (completion − actual send), and the time before it stays in
// the latency, which counts from the intended start; the send lag
// remains the engine's call − intended start, the schedule's own delay.
type SendTimed interface {
	Task
	BeginSend()
	Sent() (at time.Time, ok bool)
}

// TaskFunc adapts a function to a Task.
type TaskFunc func(ctx context.Context) (int, error)

// Do calls f.
func (f TaskFunc) Do(ctx context.Context) (int, error) { return f(ctx) }

var _ Task = TaskFunc(nil)

// NewTask builds the Task of one worker.
type NewTask func(worker int) (Task, error)

// Phase marks a boundary of the measured phase.
type Phase int

// Phase boundaries reported to Config.OnPhase.
const (
	MeasureStart Phase = iota
	MeasureEnd
)

// Config says how to drive a run.
type Config struct {
	// Ops names the operation types a Task can return.
	Ops []string
	// Workers is the number of closed-loop workers, or the most
	// operations in flight at once in open loop.
	Workers int
	// Pacer lays out the open-loop schedule; nil means closed loop.
	Pacer Pacer
	// Warmup runs before the measured phase; its operations are not
	// recorded.
	Warmup time.Duration
	// Duration bounds the measured phase; Count bounds its operations.
	// At least one must be set; the run stops at whichever comes first.
	Duration time.Duration
	Count    int64
	// Interval is the reporting interval (default one second).
	Interval time.Duration
	// LateAfter is the schedule lag past which an operation counts late
	// (default 10ms); DropAfter the lag past which it is dropped instead
	// of sent (default 10s).
	LateAfter time.Duration
	DropAfter time.Duration
	// Drain is how long past the measured phase's end an open-loop
	// backlog (slots due in the phase, not yet sent) is still sent; what
	// is left then is counted abandoned (default 1s).
	Drain time.Duration
	// Pacing is how an open-loop worker waits for its slot's time
	// (default PacingSpin).
	Pacing Pacing
	// Trace, when set, keeps every measured successful operation's
	// timeline (the calibration mode, bench/responder.sh).
	Trace *Trace
	// AtReturn ends every operation when its task returns, not at its
	// reply's arrival (ReplyTimed); bench/responder.sh compares the two.
	AtReturn bool
	// Grace is how long in-flight operations may run after a stop is
	// requested before they are cancelled (default 5s), and
	// InterruptGrace how long once ctx is cancelled (Ctrl-C; default 1s,
	// so an interrupted run ends within two seconds even against a server
	// that stopped answering).
	Grace          time.Duration
	InterruptGrace time.Duration
	// Classify maps an operation's error to its class (default: Other).
	Classify Classifier
	// OnPhase is called at the measured phase's start and end
	// (telemetry snapshots go here), and OnInterval after each interval
	// closes (the last one, when a short tail joined it, is handed again
	// with the same Index: it replaces the one handed before). Both run
	// in order on a goroutine of their own, so a slow callback never
	// delays the measurement; all have returned when Run returns.
	OnPhase    func(Phase, time.Time)
	OnInterval func(*Interval)
	// ForgetIntervals keeps only the last closed interval in the result
	// (Result.Intervals): every interval is handed to OnInterval, which
	// keeps what it needs, so a run of any length holds constant memory.
	ForgetIntervals bool
	// Tally, when set, is the run's tally for its readers (the live
	// line, the abort judge, the live metrics): the engine adds each
	// closed interval to it before calling OnInterval, and the result's
	// operation totals are its figures. Nil: the engine keeps its own.
	Tally *Tally
	// AtPhase is called on the engine's own goroutine at the measured
	// phase's start and end, with the boundary's time, before OnPhase, for
	// snapshots that must be taken at the boundary itself (the workload's
	// counters, the host's CPU). It must be quick: no network, no waiting.
	AtPhase func(Phase, time.Time)
	// AtWorkerMeasured is called just before a worker's first measured
	// operation (the first whose slot is in the measured phase) is sent,
	// once per worker, on the goroutine that writes its requests: the
	// worker's own, or under PacingDispatch possibly the dispatcher's. A
	// worker runs one operation at a time, so everything its task did
	// before is warm-up: a snapshot of the task's own counters here
	// splits the warm-up from the measured phase exactly, however late
	// the engine's goroutine begins the phase. It must be quick: no
	// network, no waiting.
	AtWorkerMeasured func(worker int)
	// Share makes the run one client's part of a run group: Workers,
	// Count and the Pacer's schedule are the group's, and the run does
	// this client's part of them (see Share).
	Share Share
	// StartAt, when set, is the wall-clock instant the run (its warm-up)
	// starts, chosen by a run group so its clients' schedules and
	// intervals line up; Run waits for it once the tasks are built. An
	// instant already past starts the schedule in the past: its slots are
	// then late or dropped and counted, as any other.
	StartAt time.Time
}

func (c *Config) withDefaults() Config {
	out := *c
	if out.Interval <= 0 {
		out.Interval = time.Second
	}
	if out.LateAfter <= 0 {
		out.LateAfter = 10 * time.Millisecond
	}
	if out.DropAfter <= 0 {
		out.DropAfter = 10 * time.Second
	}
	if out.Drain <= 0 {
		out.Drain = time.Second
	}
	if out.Pacing == "" {
		out.Pacing = PacingSpin
	}
	if out.Grace <= 0 {
		out.Grace = 5 * time.Second
	}
	if out.InterruptGrace <= 0 {
		out.InterruptGrace = time.Second
	}
	if out.Classify == nil {
		out.Classify = func(error) Class { return Other }
	}
	if out.Share.Grouped() {
		out.Workers = int(out.Share.Part(int64(out.Workers)))
		if out.Pacer == nil {
			out.Count = out.Share.Part(out.Count)
		} else {
			out.Pacer = newSharePacer(out.Pacer, out.Share)
		}
	}
	return out
}

func (c *Config) validate() error {
	var errs []error
	if len(c.Ops) == 0 {
		errs = append(errs, errors.New("no operation types"))
	}
	if c.Workers < 1 {
		errs = append(errs, fmt.Errorf("workers: got %d, want at least 1", c.Workers))
	}
	if c.Duration <= 0 && c.Count <= 0 {
		errs = append(errs, errors.New("neither a duration nor an operation count bounds the run"))
	}
	if c.Warmup < 0 || c.Duration < 0 || c.Count < 0 {
		errs = append(errs, errors.New("warm-up, duration and count must not be negative"))
	}
	if err := c.Share.Check(); err != nil {
		errs = append(errs, err)
	} else if c.Share.Grouped() {
		if c.Workers < c.Share.Clients {
			errs = append(errs, fmt.Errorf("workers: got %d for %d clients, want at least one per client", c.Workers, c.Share.Clients))
		}
		if c.Pacer == nil && c.Count > 0 && c.Count < int64(c.Share.Clients) {
			errs = append(errs, fmt.Errorf("count: got %d for %d clients, want at least one operation per client", c.Count, c.Share.Clients))
		}
	}
	if _, ok := pacings[c.Pacing]; !ok && c.Pacing != "" {
		errs = append(errs, fmt.Errorf("pacing: got %q, want one of %s", c.Pacing, pacingNames()))
	}
	return errors.Join(errs...)
}

// Mode is "open" with a pacer and "closed" without.
func (c *Config) Mode() string {
	if c.Pacer != nil {
		return "open"
	}
	return "closed"
}
