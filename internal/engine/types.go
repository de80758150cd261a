package engine

import (
	"errors"
	"time"

	"github.com/mongobench/mongobench/internal/hist"
	"github.com/mongobench/mongobench/internal/result"
)

// Result is what a run measured, in its measured phase only.
type Result struct {
	Mode    string // "open" or "closed"
	Pacer   string
	Pacing  Pacing // open loop: how workers waited for their slots
	Workers int
	// Start and End bound the measured phase: from the end of the warm-up
	// to the completion of its last operation.
	Start, End time.Time
	Partial    bool
	Reason     string
	// Planned is the measured phase's planned length for an open loop
	// bounded by a duration, 0 otherwise: a complete phase's achieved
	// rate is taken over at least that long (Span).
	Planned time.Duration
	// Ops is each operation type's totals, in Config.Ops order: the
	// run's tally once the phase has ended.
	Ops []OpTotals
	// Intervals are the phase's intervals; only the last one when the
	// run forgets them (Config.ForgetIntervals).
	Intervals []Interval
	pace      *pace
	// Intended is how many operations the schedule planned in the
	// measured phase: completed, skipped and abandoned (open loop: and
	// dropped).
	Intended int64
	// Failed counts measured operations that completed with an error.
	Failed  int64
	Late    int64
	Dropped int64
	// Abandoned counts measured operations a stop left undone: due but
	// never sent, or cancelled in flight after the grace period.
	Abandoned int64
	// Skipped counts measured operations whose task sent nothing because
	// the operation no longer applied (ErrSkipped): neither a success nor
	// a failure, in no operation type's figures.
	Skipped int64
	MaxLag  time.Duration
	// Lag is the distribution of send lag, from intended start to actual
	// send, of the measured operations (open loop only; nil otherwise).
	// It is the part of latency the client itself adds.
	Lag *hist.H
	// ReceiveLag is the distribution of receive lag, from a reply's
	// arrival at this host (the kernel's timestamp) to the worker's
	// return from its task, of the measured operations whose task knows
	// that arrival (ReplyTimed); nil when none did. Those operations end
	// at the arrival, so it is the part of the client's delay their
	// latency does not carry.
	ReceiveLag *hist.H
	// CPU is this process's CPU time (user and system) in the phase.
	CPU   time.Duration
	Cores int
	// ClientBound and ServerBound say what limited the run, with the
	// evidence in Reasons; NotJudged says why neither was judged (an
	// interrupted run).
	ClientBound bool
	ServerBound bool
	Reasons     []string
	NotJudged   string
	// Precision compares the send lag with the latencies reported.
	Precision Precision
	// WarmupSkipped counts warm-up slots never sent: dropped past the
	// drop bound, or still unsent when the measured phase began.
	WarmupSkipped int64
}

// OpTotals is one operation type over the measured phase. In closed loop
// Service is the same histogram as Latency. Parts and PartErrors count
// the successes of Count and the failures of Errors that were parts of
// other operations (Parts).
type OpTotals struct {
	Name              string
	Count             int64 // successes
	Errors            ErrorCounts
	Parts, PartErrors int64
	Latency, Service  *hist.H
}

// Interval is one reporting interval, bucketed by completion time.
type Interval struct {
	Index  int
	Start  time.Time
	Length time.Duration
	Ops    []IntervalOp
	// Sent counts the measured operations sent in the interval, by send
	// time (open loop): with Dropped, what the engine did with the slots
	// the schedule made due. Completions, which depend on the server,
	// are in Ops.
	Sent int64
	// Drained is when the workers' recordings were moved into the
	// interval: it holds what they recorded up to then, so a coordinator
	// woken late by a loaded machine shifts operations across the
	// boundary at Start+Length by Drained minus that boundary.
	Drained      time.Time
	Late         int64
	Dropped      int64
	MaxLag       time.Duration
	PeakInFlight int64
	CPU          time.Duration
	// Lag is the send lag (intended start to actual send) of the
	// operations sent in the interval (open loop; empty in closed loop).
	Lag result.Dist
	// ReceiveTimed counts the interval's operations whose reply's
	// arrival is known (ReplyTimed tasks), and MaxReceiveLag is the
	// largest of their receive lags (arrival to the task's return), to
	// the histograms' precision.
	ReceiveTimed  int64
	MaxReceiveLag time.Duration
}

// IntervalOp is one operation type in one interval. Parts and
// PartErrors count the successes of Count and the failures of Errors
// that were parts of other operations (Parts).
type IntervalOp struct {
	Name              string
	Count             int64
	Errors            ErrorCounts
	Parts, PartErrors int64
	Latency, Service  result.Dist
}

// Completed is the number of operations that finished in the interval,
// parts of operations left out.
func (iv *Interval) Completed() int64 {
	var n int64
	for _, op := range iv.Ops {
		n += op.Count + op.Errors.Total() - op.Parts - op.PartErrors
	}
	return n
}

// Failed is the number of operations that failed in the interval, parts
// of operations left out.
func (iv *Interval) Failed() int64 {
	var n int64
	for _, op := range iv.Ops {
		n += op.Errors.Total() - op.PartErrors
	}
	return n
}

// Result is the interval as a result document stores it, without the
// server's and host's figures of its span (the runner adds them); cores
// is the client's, for its CPU share.
func (iv *Interval) Result(cores int) result.Interval {
	ri := result.Interval{
		Start: iv.Start.UTC(), Seconds: iv.Length.Seconds(),
		Late: iv.Late, Dropped: iv.Dropped, MaxLag: float64(iv.MaxLag) / float64(time.Millisecond),
		PeakInFlight: result.Ptr(iv.PeakInFlight),
	}
	if iv.Length > 0 {
		ri.ClientCPU = result.F(CPUPercent(iv.CPU, iv.Length, cores))
	}
	if iv.ReceiveTimed > 0 {
		ri.MaxReceiveLag = result.F(float64(iv.MaxReceiveLag) / float64(time.Millisecond))
	}
	for _, op := range iv.Ops {
		s := result.OpStats{
			Name: op.Name, Count: op.Count, Errors: op.Errors.Result(),
			Latency: op.Latency, Service: op.Service, Parts: partCounts(op.Parts, op.PartErrors),
		}
		if iv.Length > 0 {
			s.Rate = float64(op.Count) / iv.Length.Seconds()
		}
		ri.Ops = append(ri.Ops, s)
	}
	return ri
}

// partCounts is an operation type's recordings that were parts of other
// operations; nil when none were.
func partCounts(count, errs int64) *result.PartCounts {
	if count == 0 && errs == 0 {
		return nil
	}
	return &result.PartCounts{Count: count, Errors: errs}
}

// Result is the operation type's totals as a result document stores
// them, its rate over phase.
func (t *OpTotals) Result(phase time.Duration) (result.OpStats, error) {
	s := result.OpStats{Name: t.Name, Count: t.Count, Errors: t.Errors.Result(), Parts: partCounts(t.Parts, t.PartErrors)}
	if phase > 0 {
		s.Rate = float64(t.Count) / phase.Seconds()
	}
	var err1, err2 error
	s.Latency, err1 = hist.Summarize(t.Latency)
	s.Service, err2 = hist.Summarize(t.Service)
	return s, errors.Join(err1, err2)
}
