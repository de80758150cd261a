package changes

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"math"
	"slices"
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
	// Stage is "candidate" while the change is reported but not yet
	// confirmed (its first nights), "confirmed" once the detector has
	// accepted it (it never moves again), "withdrawn" when a candidate
	// did not hold; changes stored without a stage were confirmed.
	Stage  string `bson:"stage,omitempty" json:"stage,omitempty"`
	Status Status `bson:"status" json:"status"`
	Why    string `bson:"why,omitempty" json:"why,omitempty"`
	// Found is when the change was first stored, Alerted when a run of
	// changes --fail-on-new first failed on it (it never fails twice on
	// one change).
	Found   time.Time  `bson:"found" json:"found"`
	Alerted *time.Time `bson:"alerted,omitempty" json:"alerted,omitempty"`
	// ClientHost says whether the client host moved across the change
	// (Series.ClientHost: Steady, the words of what moved, or "" when a
	// side's runs have no canary); worked out at each look, never stored.
	ClientHost string `bson:"-" json:"clientHost,omitempty"`

	// indexID is the id a confirmed change had before candidates were
	// raised (from its own first changed run), for Merge to find a change
	// stored then.
	indexID string
}

// The stages of a change.
const (
	Candidate = "candidate"
	Confirmed = "confirmed"
	Withdrawn = "withdrawn"
)

// StageName is the change's stage, "confirmed" for a change stored
// without one.
func (c Change) StageName() string {
	if c.Stage == "" {
		return Confirmed
	}
	return c.Stage
}

// Regression says whether the change makes its metric worse.
func (c Change) Regression() bool { return c.Direction == "regression" }

// Alerts says whether --fail-on-new fails on the change: a new
// regression not alerted on before, candidate or confirmed (a candidate
// that is later confirmed keeps its id, so it alerts once).
func (c Change) Alerts() bool {
	return c.Status == New && c.Regression() && c.Alerted == nil && c.Stage != Withdrawn
}

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

// Find finds the changes of a series, oldest first within each metric:
// its confirmed change points, and the candidate open after its last
// run. A change keeps the id of the candidate it was first raised as,
// so its triage and its alert carry over when it is confirmed. A change
// with a configuration change across it is Expected, else New. It stops
// with ctx's error when ctx is done.
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
		var raised []changepoint.Candidate // every candidate, as first raised
		var open []changepoint.Candidate   // those open after the last run
		points, err := changepoint.Watch(ctx, vals, opts, func(n int, _ []changepoint.Point, cs []changepoint.Candidate) {
			for _, c := range cs {
				if !slices.ContainsFunc(raised, func(r changepoint.Candidate) bool { return r.Index == c.Index }) {
					raised = append(raised, c)
				}
			}
			if n == len(vals) {
				open = cs
			}
		})
		if err != nil {
			return nil, err
		}
		small := func(st changepoint.Stats) bool {
			return m.Stat == "errors" && math.Abs(st.After.Mean-st.Before.Mean) < j.MinAbs
		}
		for _, p := range points {
			if small(p.Stats) {
				continue
			}
			c := change(s.Key, name, m, runs, vals, p.Index, p.Stats)
			c.Stage, c.indexID = Confirmed, c.ID
			for _, r := range raised {
				if r.Raised <= p.Found && r.Index >= p.Index-2 && r.Index <= p.Index+2 {
					c.ID = ID(s.Key, name, runs[r.Index].ID)
					break
				}
			}
			out = append(out, c)
		}
		for _, cand := range open {
			if small(cand.Stats) {
				continue
			}
			c := change(s.Key, name, m, runs, vals, cand.Index, cand.Stats)
			c.Stage = Candidate
			out = append(out, c)
		}
	}
	return out, nil
}

// change describes the change of a metric's series at index i.
func change(k Key, name string, m significance.Metric, runs []Run, vals []float64, i int, st changepoint.Stats) Change {
	last, first := runs[i-1], runs[i]
	c := Change{
		ID: ID(k, name, first.ID), Series: k, Metric: name, Unit: m.Unit,
		Before: st.Before.Median, After: st.After.Median,
		RunsBefore: st.Before.N, RunsAfter: st.After.N,
		Change: st.Change(), Magnitude: st.Magnitude(), P: st.P,
		LastStable:    RunRef{ID: last.ID, Start: last.Start, Config: last.Config, Value: vals[i-1]},
		FirstChanged:  RunRef{ID: first.ID, Start: first.Start, Config: first.Config, Value: vals[i]},
		ConfigChanges: last.Config.Diff(first.Config),
		Status:        New,
	}
	up := st.After.Mean > st.Before.Mean
	c.Direction = "improvement"
	if up != (m.Better == significance.HigherIsBetter) {
		c.Direction = "regression"
	}
	if len(c.ConfigChanges) > 0 {
		c.Status = Expected
	}
	return c
}

// Merge brings found changes into the stored list: a change stored
// before keeps its status, why, found and alerted, and takes the figures
// found now (more runs after it); a change not stored before is found at
// now. A confirmed change stored before candidates existed keeps the id
// it was stored under. A stored candidate found no more is withdrawn.
// It returns the merged changes in the order found, then the withdrawn.
func Merge(stored, found []Change, now time.Time) []Change {
	byID := map[string]Change{}
	for _, c := range stored {
		byID[c.ID] = c
	}
	seen := map[string]bool{}
	out := make([]Change, len(found))
	for i, c := range found {
		old, ok := byID[c.ID]
		if !ok && c.indexID != "" {
			if old, ok = byID[c.indexID]; ok {
				c.ID = c.indexID
			}
		}
		if ok {
			c.Status, c.Why, c.Found, c.Alerted = old.Status, old.Why, old.Found, old.Alerted
		} else {
			c.Found = now
		}
		seen[c.ID] = true
		out[i] = c
	}
	for _, c := range stored {
		if c.Stage == Candidate && !seen[c.ID] {
			c.Stage = Withdrawn
			out = append(out, c)
		}
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
