package studyview

import (
	"strconv"

	"github.com/mongobench/mongobench/internal/study"
)

// calibrationTable is the table of steps WriteCalibration writes, the
// knee marked.
func calibrationTable(steps []study.ThreadStep, c study.Calibration) *table {
	cl := cells
	knee, found := c.Knee(steps)
	t := newTable(">threads", ">achieved/s", ">gain", ">p99 ms", ">errors", "")
	for i, s := range steps {
		note := ""
		switch {
		case found && i == knee:
			note = "← knee"
		case found && i == knee+1:
			note = "past the knee"
		}
		t.Add(strconv.Itoa(s.Threads), thousands(s.Achieved), cl.Opt(study.Gain(steps, i), study.SignedGain), cl.Num(s.P99), count(s.Errors), note)
	}
	return t
}
