// Command dayrun writes a day of one-second intervals as a streamed run
// of a results file: it repeats the intervals of a real run (the last
// run of IN) for 86,400 seconds (-n), appending each interval and its
// telemetry at full resolution as the results file's stream does, keeps
// them on the runner's ladder, and ends with the run's line, its
// document bounded as a long run's is. bench/day-of-intervals.sh imports
// it and opens it with every reader.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"time"

	"github.com/mongobench/mongobench/internal/merge"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/store"
)

func main() {
	in := flag.String("in", "", "results file holding the run to repeat (its last run)")
	out := flag.String("out", "", "results file to write")
	n := flag.Int("n", 86400, "one-second intervals to write")
	id := flag.String("id", "", "the day run's id")
	planName := flag.String("plan", "", "mark the run as this plan's run of -candidate, for plan --from-results")
	candidate := flag.String("candidate", "", "the plan's candidate the run measured")
	flag.Parse()
	var v result.Variant
	if *planName != "" {
		v.Plan, v.Candidate = result.Ptr(*planName), result.Ptr(*candidate)
	}
	if err := write(*in, *out, *n, *id, v); err != nil {
		fmt.Fprintln(os.Stderr, "dayrun:", err)
		os.Exit(1)
	}
}

func write(in, out string, n int, id string, v result.Variant) error {
	runs, err := store.ReadFile(in)
	if err != nil || len(runs) == 0 {
		return fmt.Errorf("read %s: %v (%d runs)", in, err, len(runs))
	}
	d := runs[len(runs)-1]
	src := d.Intervals[:len(d.Intervals)-1] // the last may be longer
	if len(src) == 0 {
		return fmt.Errorf("%s: its run has no whole interval", in)
	}
	d.RunID, d.Label = id, "day-of-intervals"
	d.Variant = v.Over(d.Variant)
	d.ID = append(result.Ordered(nil), d.ID...)
	for i := range d.ID {
		if d.ID[i].Key == "label" {
			d.ID[i].Value = d.Label
		}
	}
	ctx, f := context.Background(), store.NewFile(out)
	ladder := merge.NewLadder(time.Second, merge.LadderPoints)
	var batch []result.Interval
	var readings []store.Reading
	for k := range n {
		iv := src[k%len(src)]
		iv.Start, iv.Seconds = d.Start.Add(time.Duration(k)*time.Second), 1
		if err := ladder.Add(k, iv); err != nil {
			return err
		}
		batch = append(batch, iv)
		readings = append(readings, store.Reading{T: iv.Start, Seconds: 1, Server: iv.Server, Host: iv.Host})
		if len(batch) == 1000 || k == n-1 {
			if err := f.Append(ctx, d.RunID, batch, readings); err != nil {
				return err
			}
			batch, readings = batch[:0], readings[:0]
		}
	}
	ivs, err := ladder.Intervals()
	if err != nil {
		return err
	}
	whole, err := merge.Rebuild(&d, ivs) // the day's totals and histograms, exactly its intervals'
	if err != nil {
		return err
	}
	d = *whole
	d.Resolution = &result.Resolution{IntervalSec: ladder.Every().Seconds(), FullIntervalSec: 1, FullIntervals: ladder.Full(),
		Collection: store.IntervalsCollection}
	d.Metrics = result.Metrics{Measurements: stretch(d.Metrics.Measurements, d.Start, n, ladder.Every()),
		DiskMetrics: stretch(d.Metrics.DiskMetrics, d.Start, n, ladder.Every()), Members: stretch(d.Metrics.Members, d.Start, n, ladder.Every())}
	b, err := store.Fit(&d)
	if err != nil {
		return err
	}
	return f.Save(ctx, b)
}

// stretch repeats each series' readings over n seconds from start, one
// reading per every, as a run of that length keeps them.
func stretch(list []result.Series, start time.Time, n int, every time.Duration) []result.Series {
	out := make([]result.Series, 0, len(list))
	for _, s := range list {
		if len(s.DataPoints) == 0 {
			continue
		}
		src := s.DataPoints
		s.DataPoints, s.GranularitySec = nil, every.Seconds()
		for k := 0; time.Duration(k)*every < time.Duration(n)*time.Second; k++ {
			s.DataPoints = append(s.DataPoints, result.DataPoint{Timestamp: start.Add(time.Duration(k) * every), Value: src[k%len(src)].Value})
		}
		out = append(out, s)
	}
	return out
}
