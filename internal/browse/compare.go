package browse

import (
	"fmt"
	"slices"

	"github.com/mongobench/mongobench/internal/hist"
	"github.com/mongobench/mongobench/internal/result"
)

// Comparison is several runs side by side, per operation type, with the
// exact merge of their histograms.
type Comparison struct {
	Runs []Head
	Ops  []OpComparison
	// Charts are the latency percentile distributions, one per operation
	// type, a line per run and one for the merge.
	Charts []Chart
}

// Head is what identifies a run in a comparison or a list.
type Head struct {
	RunID, Test, Label, Workload, Mode string
	Tags                               []string
	Start                              string
	Seconds                            float64
	Target                             *float64
	Achieved                           float64
	Partial                            bool
}

// HeadOf is d's heading.
func HeadOf(d *result.Doc) Head {
	return Head{
		RunID: d.RunID, Test: d.TestName, Label: d.Label, Workload: workloadOf(d), Mode: d.Schedule.Mode, Tags: d.Tags,
		Start: d.Start.UTC().Format("2006-01-02 15:04:05"), Seconds: d.Duration / 1000,
		Target: d.Schedule.TargetRate, Achieved: d.Schedule.AchievedRate, Partial: d.Partial,
	}
}

// OpComparison is one operation type across the runs.
type OpComparison struct {
	Name string
	// Rows has one entry per run, in the runs' order; a run without the
	// operation type has nil.
	Rows []*result.OpStats
	// Merged is the exact merge of every run's histograms (counts and
	// errors added); nil when a run lacks the type or its histogram,
	// which Missing then says.
	Merged  *result.OpStats
	Missing string
}

// Compare puts runs side by side. Latency and service time of the merge
// come from the runs' histograms merged, never from their percentiles.
func Compare(docs []result.Doc) (Comparison, error) {
	c := Comparison{}
	var names []string
	for i := range docs {
		c.Runs = append(c.Runs, HeadOf(&docs[i]))
		for _, o := range docs[i].Ops {
			if !slices.Contains(names, o.Name) {
				names = append(names, o.Name)
			}
		}
	}
	for _, name := range names {
		oc := OpComparison{Name: name}
		for i := range docs {
			oc.Rows = append(oc.Rows, opOf(&docs[i], name))
		}
		merged, missing, err := mergeOps(oc.Rows, c.Runs)
		if err != nil {
			return c, fmt.Errorf("%s: %w", name, err)
		}
		oc.Merged, oc.Missing = merged, missing
		c.Ops = append(c.Ops, oc)
		chart, err := distributionChart(name, c.Runs, oc)
		if err != nil {
			return c, err
		}
		if chart != nil {
			c.Charts = append(c.Charts, *chart)
		}
	}
	return c, nil
}

func opOf(d *result.Doc, name string) *result.OpStats {
	for i := range d.Ops {
		if d.Ops[i].Name == name {
			return &d.Ops[i]
		}
	}
	return nil
}

// mergeOps adds the counts and merges the histograms of rows.
func mergeOps(rows []*result.OpStats, heads []Head) (*result.OpStats, string, error) {
	m := &result.OpStats{}
	var lat, svc []result.Dist
	for i, r := range rows {
		if r == nil {
			return nil, "run " + heads[i].RunID + " has no such operation", nil
		}
		if (r.Latency.Count > 0 && r.Latency.Hist == "") || (r.Service.Count > 0 && r.Service.Hist == "") {
			return nil, "run " + heads[i].RunID + " has no stored histogram", nil
		}
		m.Name = r.Name
		m.Count += r.Count
		m.Errors = m.Errors.Add(r.Errors)
		lat, svc = append(lat, r.Latency), append(svc, r.Service)
	}
	var err error
	if m.Latency, err = hist.MergeDists(lat...); err != nil {
		return nil, "", err
	}
	m.Service, err = hist.MergeDists(svc...)
	return m, "", err
}
