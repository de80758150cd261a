package engine

import (
	"fmt"
	"time"
)

// Thresholds of the verdicts on what limited a run.
const (
	cpuBoundPercent = 90
	lagBound        = 500 * time.Millisecond
	// errorBound is the share of completed operations that failed past
	// which the server's failures, not the client, limited the run.
	errorBound = 0.10
	// lateBound is the share of intended operations sent late past which
	// the schedule counts as not kept.
	lateBound = 0.10
	// PrecisionBound is the share of the smallest latency p50 that the
	// send lag's p99 may reach before the latencies are said to carry the
	// client's own lag.
	PrecisionBound = 0.10
	// PrecisionFloor is the send lag p99 below which the client's lag is
	// not blamed, whatever its share: a lag under 0.1 ms moves no
	// reported latency past what a loopback round trip's own jitter
	// moves it, and a run of sub-millisecond operations (make demo: send
	// lag p99 0.023 ms beside a read p50 of 0.102 ms) would otherwise
	// warn on every run and teach users to ignore the warning.
	PrecisionFloor = 100 * time.Microsecond
)

// Imprecise is the rule that blames the client's timing: its send lag's
// p99 is both above PrecisionBound of the smallest latency p50 and at
// least PrecisionFloor, and the run was not server-bound (there, workers
// sent late because every one of them was waiting on a stalled server:
// the lag is the server's doing, and the server-bound verdict says so).
// When the share alone is above the bound, why says what clears the
// client.
func Imprecise(sendLagP99, latencyP50 time.Duration, serverBound bool) (flagged bool, why string) {
	if float64(sendLagP99) <= PrecisionBound*float64(latencyP50) {
		return false, ""
	}
	switch {
	case serverBound:
		return false, "the run is server-bound: the send lag is the workers waiting on the server, not the client's imprecision"
	case sendLagP99 < PrecisionFloor:
		return false, fmt.Sprintf("the send lag p99 is under %s, too small to change a reported latency", PrecisionFloor)
	}
	return true, ""
}

// Verdict says what limited a run, from evidence on each side. At most
// one of ClientBound and ServerBound is set; neither when nothing did,
// or when the run was not judged (NotJudged says why: an interrupted run
// is neither).
type Verdict struct {
	ClientBound bool
	ServerBound bool
	Reasons     []string
	NotJudged   string
}

// judge weighs the evidence, server side first: failures, and a schedule
// that fell behind while every worker was waiting on the server, mean the
// server limited the run, however busy the client was (a client spinning
// through fast failures is busy for the server's sake). Workers are not
// waiting on the server when their replies waited longer for this client
// to read them than the server took to answer (repliesWaited). Only then
// does the client's own evidence count: its CPU near all cores, replies
// waiting on it, or a schedule that fell behind while workers were free
// or waiting on it.
func judge(r *Result, cfg Config) Verdict {
	if r.Partial {
		return Verdict{NotJudged: fmt.Sprintf("%s: a run that did not finish is judged neither client- nor server-bound", r.Reason)}
	}
	completed := r.Completed()
	var failed int64
	for _, op := range r.Ops {
		failed += op.Errors.Total()
	}
	switch {
	case completed == 0 && r.Intended > 0:
		return serverBound(fmt.Sprintf("no operation completed of %d intended", r.Intended))
	case completed > 0 && float64(failed) >= errorBound*float64(completed):
		return serverBound(fmt.Sprintf("errors: %d of %d operations failed (%.0f%%)", failed, completed, 100*float64(failed)/float64(completed)))
	}
	behind := ""
	if r.Mode == "open" {
		behind = fellBehind(r, cfg)
	}
	busy := behind != "" && busyWhileBehind(r, cfg)
	waited := repliesWaited(r)
	if busy && waited == "" {
		return serverBound(fmt.Sprintf("all %d workers busy waiting on the server while %s (raise --threads only if the server has headroom)", cfg.Workers, behind))
	}
	var v Verdict
	if pct := CPUPercent(r.CPU, r.End.Sub(r.Start), r.Cores); pct >= cpuBoundPercent {
		v.Reasons = append(v.Reasons, fmt.Sprintf("client CPU at %.0f%% of %d cores", pct, r.Cores))
	}
	if waited != "" {
		v.Reasons = append(v.Reasons, waited)
	}
	switch {
	case busy:
		v.Reasons = append(v.Reasons, behind+" while every worker was in flight, its reply waiting for this client to read it")
	case behind != "":
		v.Reasons = append(v.Reasons, behind+" while workers were free, so the client itself could not keep the schedule")
	}
	v.ClientBound = len(v.Reasons) > 0
	return v
}

// replyWaitBound is the receive lag median from which replies are said
// to wait on the client: well above a wake-up's tens of microseconds.
const replyWaitBound = time.Millisecond

// repliesWaited describes replies that waited longer for the client to
// read them than the server took to answer, or returns "": the receive
// lag's median (ReplyTimed tasks) at least replyWaitBound and at least
// the service time's median of the most frequent operation type. Workers
// are then in flight for the client's sake, not the server's.
func repliesWaited(r *Result) string {
	if r.ReceiveLag == nil || r.ReceiveLag.TotalCount() == 0 {
		return ""
	}
	var top *OpTotals
	for i := range r.Ops {
		if op := &r.Ops[i]; op.Service != nil && op.Service.TotalCount() > 0 && (top == nil || op.Count > top.Count) {
			top = op
		}
	}
	if top == nil {
		return ""
	}
	wait := time.Duration(r.ReceiveLag.ValueAtPercentile(50)) * time.Microsecond
	svc := time.Duration(top.Service.ValueAtPercentile(50)) * time.Microsecond
	if wait < replyWaitBound || wait < svc {
		return ""
	}
	return fmt.Sprintf("replies waited %v (receive lag p50) for the client to read them, longer than the server took to answer (%s service time p50 %v)",
		wait.Round(time.Microsecond), top.Name, svc.Round(time.Microsecond))
}

func serverBound(why string) Verdict { return Verdict{ServerBound: true, Reasons: []string{why}} }

// CPUPercent is cpu as a percent of all cores over wall time.
func CPUPercent(cpu, wall time.Duration, cores int) float64 {
	if wall <= 0 || cores <= 0 {
		return 0
	}
	return 100 * cpu.Seconds() / (wall.Seconds() * float64(cores))
}

// fellBehind describes a schedule that was not kept, or returns "":
// operations dropped, a share of them late, or lag in the last third of
// the run well above the first third's.
func fellBehind(r *Result, cfg Config) string {
	if r.Dropped > 0 {
		return fmt.Sprintf("%d operations were dropped after lagging more than %v", r.Dropped, cfg.DropAfter)
	}
	if r.Intended > 0 && float64(r.Late) >= lateBound*float64(r.Intended) {
		return fmt.Sprintf("%d of %d operations were sent more than %v late", r.Late, r.Intended, cfg.LateAfter)
	}
	lags := &r.paceOf(cfg).lags
	n := lags.count() / 3
	if n == 0 {
		return ""
	}
	first, last := lags.meanFirst(n), lags.meanLast(n)
	if last < lagBound || last < 2*first {
		return ""
	}
	return fmt.Sprintf("schedule lag grew from %v to %v", first.Round(time.Millisecond), last.Round(time.Millisecond))
}

// paceOf is the run's pace: the coordinator's, or one read from the
// result's intervals when it was built by hand.
func (r *Result) paceOf(cfg Config) *pace {
	if r.pace != nil {
		return r.pace
	}
	p := &pace{}
	for i := range r.Intervals {
		p.add(&r.Intervals[i], cfg)
	}
	return p
}

// busyWhileBehind reports whether every worker was in flight in an
// interval where the schedule fell behind: the client then waited on the
// server rather than failing to keep up itself.
func busyWhileBehind(r *Result, cfg Config) bool {
	return r.paceOf(cfg).busyBehind
}

// Precision is the client's verdict on its own timing: the send lag's p99
// against the smallest latency p50 of any operation type.
type Precision struct {
	// Judged is false when the data to judge is missing; Note says why.
	Judged bool
	Note   string
	// SendLagP99 is the send lag's 99th percentile; Op the operation type
	// with the smallest latency p50, LatencyP50.
	SendLagP99 time.Duration
	Op         string
	LatencyP50 time.Duration
	// Share is SendLagP99 / LatencyP50; Flagged when Imprecise says so
	// (Note then says why a share above PrecisionBound is not flagged).
	Share   float64
	Flagged bool
}

// judgePrecision compares the client's send lag with the latencies it
// reports.
func judgePrecision(r *Result) Precision {
	if r.Mode != "open" {
		return Precision{Note: "closed loop: operations have no intended start, so no send lag"}
	}
	if r.Lag == nil || r.Lag.TotalCount() == 0 {
		return Precision{Note: "no operation was sent in the measured phase"}
	}
	var p Precision
	for _, op := range r.Ops {
		if op.Latency == nil || op.Latency.TotalCount() == 0 {
			continue
		}
		p50 := time.Duration(op.Latency.ValueAtPercentile(50)) * time.Microsecond
		if p.Op == "" || p50 < p.LatencyP50 {
			p.Op, p.LatencyP50 = op.Name, p50
		}
	}
	if p.Op == "" {
		return Precision{Note: "no operation succeeded, so there is no latency to compare the send lag with"}
	}
	p.Judged = true
	p.SendLagP99 = time.Duration(r.Lag.ValueAtPercentile(99)) * time.Microsecond
	p.Share = float64(p.SendLagP99) / float64(p.LatencyP50)
	p.Flagged, p.Note = Imprecise(p.SendLagP99, p.LatencyP50, r.ServerBound)
	return p
}
