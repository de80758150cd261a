package report

import (
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mongobench/mongobench/internal/result"
)

// RunsTable writes one line per run, in the order given: start, run id,
// test, label, mode, target rate, achieved rate, p99 latency per
// operation type, and its state (RunState) at now; then, when the list
// is not all of the total stored in where, how many it shows.
func RunsTable(w io.Writer, docs []result.Doc, total int, now time.Time, where string) error {
	if len(docs) == 0 {
		_, err := fmt.Fprintf(w, "no runs stored in %s\n", where)
		return err
	}
	if len(docs) < total {
		defer func() {
			_, _ = fmt.Fprintf(w, "the newest %d of %d runs stored in %s (--limit 0 lists all)\n", len(docs), total, where)
		}()
	}
	t := newTable("start", "run", "test", "label", "mode", ">rate", ">ops/s", "p99 ms", "state")
	for i := range docs {
		d := &docs[i]
		partial := RunState(d, now)
		t.Add(textCells.Text(stamp(d.Start)), textCells.Text(d.RunID), textCells.Text(d.TestName),
			textCells.Text(d.Label), textCells.Text(d.Schedule.Mode), textCells.Opt(d.Schedule.TargetRate, perSec),
			perSec(d.Schedule.AchievedRate), p99s(d), partial)
	}
	return t.WriteText(w, true)
}

// p99s lists the p99 latency of each operation type, as in
// "read 2.10, update 3.40".
func p99s(d *result.Doc) string {
	parts := make([]string, len(d.Ops))
	for i, o := range d.Ops {
		parts[i] = o.Name + " " + textCells.Num(o.Latency.P99)
	}
	return strings.Join(parts, ", ")
}

// RunState is how a run's state reads in lists: "running" or "lost" (a
// registered run whose client stopped writing: its figures are those of
// its last write, `results rebuild` makes its result), "partial" (stopped
// early), or "" for a complete run.
func RunState(d *result.Doc, now time.Time) string {
	if st := d.State(now); st != "" {
		return st
	}
	if d.Partial {
		return "partial"
	}
	return ""
}
