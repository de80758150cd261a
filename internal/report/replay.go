package report

import (
	"fmt"
	"math"

	"github.com/mongobench/mongobench/internal/replay"
	"github.com/mongobench/mongobench/internal/result"
)

// replayBlocks are the query shapes of a run that replayed a recording
// (any run with a replay section: mongobench replay, a recording named
// as run's or sweep's workload): what was replayed, then per shape the
// recording's latency against the replay's, the shapes that got slower
// first (replay.Rows); nil for any other run.
func replayBlocks(d *result.Doc) []Block {
	rows := replay.Rows(d)
	if rows == nil {
		return nil
	}
	rp := d.Replay
	rate := "—"
	if rp.RecordedRate != nil {
		rate = perSec(*rp.RecordedRate) + "/s"
	}
	intro := fmt.Sprintf("A replay of %s at ×%g: %s requests on %s connections (recorded %s over %s s). The shapes that got slower come first, by their p99 replayed ÷ recorded; latencies in milliseconds, the recording's from request to reply.",
		mdCells.Text(rp.Recording), rp.Speed, count(rp.Requests), count(int64(rp.Connections)), rate, sig3(rp.SpanMs/1000))
	t := newTable("shape", ">requests", ">share", ">p50 recorded", ">p50 replayed", ">p99 recorded", ">p99 replayed", ">p99 ×", ">docs recorded", ">docs replayed", ">errors", "error classes")
	for _, r := range rows {
		slower := mdCells.Missing
		if !math.IsNaN(r.Slower) {
			slower = fmt.Sprintf("%.2f", r.Slower)
		}
		t.Add(mdCells.Text(r.Op), count(r.Requests), sig3(100*r.Share)+"%",
			mdCells.Num(r.Recorded.P50), mdCells.Num(r.Replayed.P50), mdCells.Num(r.Recorded.P99), mdCells.Num(r.Replayed.P99),
			slower, docsText(r.RecordedDocs), docsText(r.ReplayedDocs), count(r.Errors.Total), errorClasses(r.Errors))
	}
	return []Block{{Text: intro}, {Table: t}}
}

// docsText is a shape's documents returned, "—" when its replies carry
// no cursor.
func docsText(n *int64) string {
	if n == nil {
		return mdCells.Missing
	}
	return count(*n)
}
