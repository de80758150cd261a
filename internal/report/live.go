package report

import (
	"fmt"
	"time"
)

// LiveStatus is the state of a running measurement, for the one-line
// progress display.
type LiveStatus struct {
	Elapsed time.Duration // time into the measured phase
	Total   time.Duration // planned length of the measured phase; 0 when open-ended
	// OpsPerSec is successful operations per second over the last interval.
	OpsPerSec float64
	// P99 is the last interval's p99 latency in milliseconds, nil when no
	// operation completed in it.
	P99    *float64
	Errors int64 // failed operations so far
	Late   int64 // operations sent late so far (open loop)
}

// Live formats a progress line such as
// "0:12/1:00  995.2 ops/s  p99 2.10 ms  errors 3  late 0".
func Live(s LiveStatus) string {
	progress := clock(s.Elapsed)
	if s.Total > 0 {
		progress += "/" + clock(s.Total)
	}
	return fmt.Sprintf("%s  %s ops/s  p99 %s ms  errors %d  late %d",
		progress, perSec(s.OpsPerSec), textCells.Num(s.P99), s.Errors, s.Late)
}

// clock formats d as m:ss, or h:mm:ss from an hour up.
func clock(d time.Duration) string {
	sec := int64(max(d, 0) / time.Second)
	h, m, s := sec/3600, sec/60%60, sec%60
	if h > 0 {
		return fmt.Sprintf("%d:%02d:%02d", h, m, s)
	}
	return fmt.Sprintf("%d:%02d", m, s)
}
