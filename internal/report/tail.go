package report

import (
	"fmt"

	"github.com/mongobench/mongobench/internal/result"
)

// tailBlocks are the evidence of where the run's p99 tail fell
// (diagnosis.tail; its verdict is the headline's): each condition that
// co-occurred with it, with its figures.
func tailBlocks(t *result.Tail) []Block {
	tb := newTable("condition", ">tail %", ">time %", ">lift", "series", "source")
	for _, c := range t.Causes {
		tb.Add(c.Condition, mdCells.Num(result.F(100*c.TailShare)), mdCells.Num(result.F(100*c.TimeShare)),
			mdCells.Num(result.F(c.Lift)), c.Series, c.Source)
	}
	return []Block{{Table: tb},
		Block{Text: fmt.Sprintf("The latency chart shades the seconds with %s. tail %%: share of the run's %d operations above their type's p99; time %%: share of the run's seconds; lift: their ratio.", t.Causes[0].Condition, t.Above)}}
}

// tailSpans are the time ranges of the intervals meeting the tail's best
// cause, or nil.
func tailSpans(d *result.Doc) [][2]float64 {
	if d.Diagnosis == nil || d.Diagnosis.Tail == nil || len(d.Diagnosis.Tail.Causes) == 0 {
		return nil
	}
	var s [][2]float64
	for _, i := range d.Diagnosis.Tail.Causes[0].Intervals {
		if i < 0 || i >= len(d.Intervals) {
			continue
		}
		iv := d.Intervals[i]
		to := intervalEnd(d, iv)
		from := to - iv.Seconds
		if n := len(s); n > 0 && s[n-1][1] >= from-1e-9 {
			s[n-1][1] = to
		} else {
			s = append(s, [2]float64{from, to})
		}
	}
	return s
}
