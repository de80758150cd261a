package progress

import (
	"fmt"
	"strings"
	"time"

	"github.com/mongobench/mongobench/internal/texttable"
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
		progress, texttable.PerSec(s.OpsPerSec), texttable.TextCells.Num(s.P99), s.Errors, s.Late)
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

// LiveStart formats the line shown when the engine starts, as in
// "warm-up 0:10 (not measured), then 1:00 measured" or "measuring 1:00";
// total is 0 for a phase bounded by its operations alone.
func LiveStart(warmup, total time.Duration) string {
	measured := "measuring"
	if total > 0 {
		measured += " " + clock(total)
	}
	if warmup <= 0 {
		return measured
	}
	return fmt.Sprintf("warm-up %s (not measured), then %s", clock(warmup), measured)
}

// LiveWarmup formats the warm-up's progress, as in "warm-up 0:04/0:10
// (not measured)".
func LiveWarmup(elapsed, warmup time.Duration) string {
	return fmt.Sprintf("warm-up %s/%s (not measured)", clock(min(elapsed, warmup)), clock(warmup))
}

// StudyStep is the header of one step of a study (a run of sweep, sla,
// calibrate, catalog run or plan).
type StudyStep struct {
	N     int    // the step's position, from 1
	Total int    // the steps the study makes; 0 when its search decides as it goes
	What  string // what the step varies, e.g. "4,000/s"
	// Elapsed is the study's time so far; Left the estimate of the time
	// its remaining steps take (0: no estimate), a lower bound when
	// AtLeast (the planned phases alone, before any step measured how
	// long setting up takes).
	Elapsed, Left time.Duration
	AtLeast       bool
}

// StepLine formats a study step's header, as in "step 3/7: 4,000/s
// (2:10 so far, about 5:20 left)".
func StepLine(s StudyStep) string {
	line := fmt.Sprintf("step %d", s.N)
	if s.Total > 0 {
		line += fmt.Sprintf("/%d", s.Total)
	}
	if s.What != "" {
		line += ": " + s.What
	}
	var when []string
	if s.N > 1 {
		when = append(when, clock(s.Elapsed)+" so far")
	}
	switch {
	case s.Left > 0 && s.AtLeast:
		when = append(when, "at least "+clock(s.Left)+" left")
	case s.Left > 0:
		when = append(when, "about "+clock(s.Left)+" left")
	}
	if len(when) > 0 {
		line += " (" + strings.Join(when, ", ") + ")"
	}
	return line
}

// Fit cuts s to at most width terminal columns, ending it in "…" when
// cut; width ≤ 0 leaves it whole. Columns are counted as
// texttable.Width counts them ("—" is one column, though three bytes).
func Fit(s string, width int) string {
	if width <= 0 || texttable.Width(s) <= width {
		return s
	}
	var b strings.Builder
	used := 0
	for _, r := range s {
		w := texttable.Width(string(r))
		if used+w > width-1 {
			break
		}
		b.WriteRune(r)
		used += w
	}
	return b.String() + "…"
}
