package engine

import (
	"fmt"
	"time"
)

// Thresholds past which the client, not the server, is judged to limit a
// run.
const (
	cpuBoundPercent = 90
	lagBound        = 500 * time.Millisecond
)

// judgeClient says whether the load generator ran out of headroom: its CPU
// saturated, or the open-loop schedule fell behind without bound.
func judgeClient(r *Result, cfg Config) (bool, []string) {
	var reasons []string
	if pct := CPUPercent(r.CPU, r.End.Sub(r.Start), r.Cores); pct >= cpuBoundPercent {
		reasons = append(reasons, fmt.Sprintf("client CPU at %.0f%% of %d cores", pct, r.Cores))
	}
	if r.Mode == "open" {
		if why := lagGrowth(r, cfg); why != "" {
			reasons = append(reasons, why)
		}
	}
	return len(reasons) > 0, reasons
}

// CPUPercent is cpu as a percent of all cores over wall time.
func CPUPercent(cpu, wall time.Duration, cores int) float64 {
	if wall <= 0 || cores <= 0 {
		return 0
	}
	return 100 * cpu.Seconds() / (wall.Seconds() * float64(cores))
}

// lagGrowth explains a schedule that fell behind for good: operations
// dropped, or lag in the last third of the run well above the first third.
func lagGrowth(r *Result, cfg Config) string {
	busy := allBusy(r.Intervals, cfg.Workers)
	cause := "workers were free, so the client itself could not keep the schedule"
	if busy {
		cause = fmt.Sprintf("all %d workers were busy: raise --threads, or the server cannot sustain the rate", cfg.Workers)
	}
	if r.Dropped > 0 {
		return fmt.Sprintf("%d operations dropped after lagging more than %v (%s)", r.Dropped, cfg.DropAfter, cause)
	}
	n := len(r.Intervals) / 3
	if n == 0 {
		return ""
	}
	first := meanLag(r.Intervals[:n])
	last := meanLag(r.Intervals[len(r.Intervals)-n:])
	if last < lagBound || last < 2*first {
		return ""
	}
	return fmt.Sprintf("schedule lag grew from %v to %v (%s)", first.Round(time.Millisecond), last.Round(time.Millisecond), cause)
}

func meanLag(ivs []Interval) time.Duration {
	var sum time.Duration
	for _, iv := range ivs {
		sum += iv.MaxLag
	}
	return sum / time.Duration(len(ivs))
}

// allBusy reports whether every worker was in flight at some point of the
// lagging intervals.
func allBusy(ivs []Interval, workers int) bool {
	for _, iv := range ivs {
		if iv.MaxLag >= lagBound && iv.PeakInFlight >= int64(workers) {
			return true
		}
	}
	return false
}
