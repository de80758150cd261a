package changes

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"time"

	"github.com/mongobench/mongobench/internal/changepoint"
	"github.com/mongobench/mongobench/internal/significance"
)

// RunRef names a run at the edge of a change.
type RunRef struct {
	ID     string    `bson:"runId" json:"runId"`
	Start  time.Time `bson:"start" json:"start"`
	Config Config    `bson:"config" json:"config"`
	Value  float64   `bson:"value" json:"value"`
}

// Change is a change point of a series' metric, as triaged.
type Change struct {
	ID     string `bson:"_id" json:"id"`
	Series Key    `bson:"series" json:"series"`
	Metric string `bson:"metric" json:"metric"`
	Unit   string `bson:"unit" json:"unit"`
	// Direction is "regression" or "improvement".
	Direction string `bson:"direction" json:"direction"`
	// Before and After are the medians of the runs on each side (back to
	// the previous change point and on to the next, at most a window);
	// Change is After/Before − 1 of their means, Magnitude the larger
	// of the forward and backward relative changes, P the t-test's.
	Before     float64 `bson:"before" json:"before"`
	After      float64 `bson:"after" json:"after"`
	RunsBefore int     `bson:"runsBefore" json:"runsBefore"`
	RunsAfter  int     `bson:"runsAfter" json:"runsAfter"`
	Change     float64 `bson:"change" json:"change"`
	Magnitude  float64 `bson:"magnitude" json:"magnitude"`
	P          float64 `bson:"p" json:"p"`
	// LastStable and FirstChanged are the suspect range; ConfigChanges
	// what differs in their configuration.
	LastStable    RunRef   `bson:"lastStable" json:"lastStable"`
	FirstChanged  RunRef   `bson:"firstChanged" json:"firstChanged"`
	ConfigChanges []string `bson:"configChanges,omitempty" json:"configChanges,omitempty"`
	Status        Status   `bson:"status" json:"status"`
	Why           string   `bson:"why,omitempty" json:"why,omitempty"`
	// Found is when the change was first stored, Alerted when a run of
	// changes --fail-on-new first failed on it (it never fails twice on
	// one change).
	Found   time.Time  `bson:"found" json:"found"`
	Alerted *time.Time `bson:"alerted,omitempty" json:"alerted,omitempty"`
}

// Regression says whether the change makes its metric worse.
func (c Change) Regression() bool { return c.Direction == "regression" }

// Alerts says whether --fail-on-new fails on the change: a new
// regression not alerted on before.
func (c Change) Alerts() bool { return c.Status == New && c.Regression() && c.Alerted == nil }

// Options tune the detection.
type Options struct {
	Window int
	P      float64
	// MinEffect overrides the minimum effect by metric kind or name
	// (significance.DefaultMinEffect otherwise).
	MinEffect map[string]float64
	// Metrics, when given, are the only metrics looked at.
	Metrics []string
}

// ID is a change's stable identity: its series, metric and first
// changed run. Found again on a later night, it has the same ID.
func ID(k Key, metric, firstChanged string) string {
	h := sha256.Sum256([]byte(k.String() + "\x00" + metric + "\x00" + firstChanged))
	return hex.EncodeToString(h[:5])
}

// Find finds the changes of a series, oldest first within each metric.
// A change with a configuration change across it is Expected, else New.
// It stops with ctx's error when ctx is done.
func Find(ctx context.Context, s Series, o Options) ([]Change, error) {
	var out []Change
	metrics := s.Metrics()
	if len(o.Metrics) > 0 {
		metrics = o.Metrics
	}
	for _, name := range metrics {
		m, err := significance.ParseMetric(name)
		if err != nil {
			continue
		}
		runs, vals := s.Values(name)
		j := significance.JudgeFor(m, o.MinEffect, 0)
		opts := changepoint.Options{Window: o.Window, P: o.P, MinMagnitude: j.MinEffect}
		points, err := changepoint.DetectContext(ctx, vals, opts)
		if err != nil {
			return nil, err
		}
		for _, p := range points {
			if m.Stat == "errors" && math.Abs(p.Stats.After.Mean-p.Stats.Before.Mean) < j.MinAbs {
				continue
			}
			last, first := runs[p.Index-1], runs[p.Index]
			c := Change{
				ID: ID(s.Key, name, first.ID), Series: s.Key, Metric: name, Unit: m.Unit,
				Before: p.Stats.Before.Median, After: p.Stats.After.Median,
				RunsBefore: p.Stats.Before.N, RunsAfter: p.Stats.After.N,
				Change: p.Stats.Change(), Magnitude: p.Stats.Magnitude(), P: p.Stats.P,
				LastStable:    RunRef{ID: last.ID, Start: last.Start, Config: last.Config, Value: vals[p.Index-1]},
				FirstChanged:  RunRef{ID: first.ID, Start: first.Start, Config: first.Config, Value: vals[p.Index]},
				ConfigChanges: last.Config.Diff(first.Config),
				Status:        New,
			}
			up := p.Stats.After.Mean > p.Stats.Before.Mean
			c.Direction = "improvement"
			if up != (m.Better == significance.HigherIsBetter) {
				c.Direction = "regression"
			}
			if len(c.ConfigChanges) > 0 {
				c.Status = Expected
			}
			out = append(out, c)
		}
	}
	return out, nil
}

// Merge brings found changes into the stored list: a change stored
// before keeps its status, why, found and alerted, and takes the figures
// found now (more runs after it); a change not stored before is found at
// now. It returns the merged changes in the order found.
func Merge(stored, found []Change, now time.Time) []Change {
	byID := map[string]Change{}
	for _, c := range stored {
		byID[c.ID] = c
	}
	out := make([]Change, len(found))
	for i, c := range found {
		if old, ok := byID[c.ID]; ok {
			c.Status, c.Why, c.Found, c.Alerted = old.Status, old.Why, old.Found, old.Alerted
		} else {
			c.Found = now
		}
		out[i] = c
	}
	return out
}

// MarshalJSON writes a figure that is not a number (a mean of 0 below a
// relative change) as null: JSON has no NaN.
func (c Change) MarshalJSON() ([]byte, error) {
	type plain Change
	return json.Marshal(struct {
		plain
		Before    *float64 `json:"before"`
		After     *float64 `json:"after"`
		Change    *float64 `json:"change"`
		Magnitude *float64 `json:"magnitude"`
		P         *float64 `json:"p"`
	}{plain(c), finite(c.Before), finite(c.After), finite(c.Change), finite(c.Magnitude), finite(c.P)})
}

func finite(v float64) *float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil
	}
	return &v
}
