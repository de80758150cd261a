package telemetry

import (
	"os"
	"time"

	"github.com/prometheus/procfs"
)

// Sched is the scheduler's account of this process's threads at one
// reading (from /proc/self/task/*/schedstat), by thread id: the time
// each ran on a CPU and the time it waited on a run queue, ready to run.
type Sched map[int]procfs.ProcSchedstat

// ReadSched reads this process's threads' scheduler statistics; nil
// where /proc does not have them (another platform, a kernel without
// schedstats).
func ReadSched() Sched {
	threads, err := procfs.AllThreads(os.Getpid())
	if err != nil {
		return nil
	}
	out := make(Sched, len(threads))
	for _, t := range threads {
		if s, err := t.Schedstat(); err == nil {
			out[t.PID] = s
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// SchedBetween is how long this process's threads ran and waited for a
// CPU between two readings: a thread in both counts its difference, a
// thread born between them all of its own, a thread that ended nothing
// (its last counts are gone). ok is false when either reading is
// missing.
func SchedBetween(before, after Sched) (ran, waited time.Duration, ok bool) {
	if before == nil || after == nil {
		return 0, 0, false
	}
	for tid, a := range after {
		b := before[tid] // zero for a thread born since
		if a.RunningNanoseconds >= b.RunningNanoseconds {
			ran += time.Duration(a.RunningNanoseconds - b.RunningNanoseconds)
		}
		if a.WaitingNanoseconds >= b.WaitingNanoseconds {
			waited += time.Duration(a.WaitingNanoseconds - b.WaitingNanoseconds)
		}
	}
	return ran, waited, true
}
