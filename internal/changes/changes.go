// Package changes finds where stored runs changed over time and keeps
// the list a person triages: runs grouped into series (same test,
// variant and label, and the tags the user names), one value per run per
// metric (significance.RunValues), change points found by
// changepoint.Detect, each described by its values before and after,
// its magnitude, p-value and direction, and its suspect range (the last
// stable run and the first changed one, with what differs in their
// configuration: a changed server version, instance or workload makes
// the change expected). A change has a status (new, acknowledged,
// hidden, expected) and alerts once. The package is pure.
package changes

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/significance"
)

// Status is where a change is in its triage.
type Status string

const (
	New          Status = "new"
	Acknowledged Status = "acknowledged"
	Hidden       Status = "hidden"
	Expected     Status = "expected"
)

// Key names a series.
type Key struct {
	Test    string   `bson:"test" json:"test"`
	Label   string   `bson:"label,omitempty" json:"label,omitempty"`
	Variant string   `bson:"variant,omitempty" json:"variant,omitempty"` // the variant as JSON, without its repetition
	Tags    []string `bson:"tags,omitempty" json:"tags,omitempty"`       // of the named tags, those the runs carry
}

// String is the series as people read it.
func (k Key) String() string {
	s := k.Test
	if k.Variant != "" && k.Variant != "{}" {
		s += " " + k.Variant
	}
	if k.Label != "" {
		s += " label " + k.Label
	}
	if len(k.Tags) > 0 {
		s += " tags " + strings.Join(k.Tags, ",")
	}
	return s
}

// Config is what a run was measured on, in so far as a change of it
// explains a change of the figures.
type Config struct {
	ServerVersion string `bson:"serverVersion,omitempty" json:"serverVersion,omitempty"`
	Instance      string `bson:"instance,omitempty" json:"instance,omitempty"`
	// Workload is a digest of the test's effective configuration
	// (test_config, less its seed), so an edited workload file shows.
	Workload string `bson:"workload,omitempty" json:"workload,omitempty"`
}

// ConfigOf reads a run's configuration.
func ConfigOf(d *result.Doc) Config {
	c := Config{ServerVersion: d.Target.ServerVersion}
	inst := map[string]any{}
	for _, k := range []string{"atlasInstanceType", "atlasDiskType", "atlasIOPS", "atlasDiskSizeGB"} {
		if v, ok := d.BenchConfig[k]; ok && v != nil {
			inst[k] = v
		}
	}
	if v, ok := d.Variant["instance"]; ok {
		inst["variant"] = v
	}
	if len(inst) > 0 {
		b, _ := json.Marshal(inst)
		c.Instance = string(b)
	}
	tc := map[string]any{}
	for k, v := range d.TestConfig {
		if k != "seed" && k != "repetition" {
			tc[k] = v
		}
	}
	b, _ := json.Marshal(tc)
	sum := sha256.Sum256(b)
	c.Workload = hex.EncodeToString(sum[:6])
	return c
}

// Diff lists what differs from a to b, one line each.
func (a Config) Diff(b Config) []string {
	var out []string
	if a.ServerVersion != b.ServerVersion {
		out = append(out, fmt.Sprintf("server version %s → %s", orNone(a.ServerVersion), orNone(b.ServerVersion)))
	}
	if a.Instance != b.Instance {
		out = append(out, fmt.Sprintf("instance %s → %s", orNone(a.Instance), orNone(b.Instance)))
	}
	if a.Workload != b.Workload {
		out = append(out, fmt.Sprintf("workload configuration %s → %s", orNone(a.Workload), orNone(b.Workload)))
	}
	return out
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// Run is one run of a series.
type Run struct {
	ID     string
	Start  time.Time
	Config Config
	Values significance.Values
	// Canary is the client host's canary taken around the run (before
	// and after it), none when the run has none.
	Canary []result.Canary
}

// Series is the runs of one key, oldest first.
type Series struct {
	Key  Key
	Runs []Run
}

// Group sorts whole, complete runs into series: a run group's clients'
// own results and partial runs are left out (runs judged invalid are
// left out before, by validity.Filter). tags are the tags that part
// series: a run's key carries those of them it has.
func Group(docs []result.Doc, tags []string) ([]Series, error) {
	byKey := map[string]*Series{}
	for i := range docs {
		d := &docs[i]
		if d.Partial || (d.Group != nil && d.Group.ClientIndex != nil) {
			continue
		}
		k := keyOf(d, tags)
		id := k.String()
		s := byKey[id]
		if s == nil {
			s = &Series{Key: k}
			byKey[id] = s
		}
		v, err := significance.RunValues(d)
		if err != nil {
			return nil, err
		}
		s.Runs = append(s.Runs, Run{ID: d.RunID, Start: d.Start, Config: ConfigOf(d), Values: v, Canary: d.Canary.Readings()})
	}
	out := make([]Series, 0, len(byKey))
	for _, id := range slices.Sorted(maps.Keys(byKey)) {
		s := byKey[id]
		sort.SliceStable(s.Runs, func(a, b int) bool {
			if !s.Runs[a].Start.Equal(s.Runs[b].Start) {
				return s.Runs[a].Start.Before(s.Runs[b].Start)
			}
			return s.Runs[a].ID < s.Runs[b].ID
		})
		out = append(out, *s)
	}
	return out, nil
}

func keyOf(d *result.Doc, tags []string) Key {
	v := map[string]any{}
	for k, x := range d.Variant {
		if k != "repetition" && k != "order" {
			v[k] = x
		}
	}
	b, _ := json.Marshal(v)
	k := Key{Test: d.TestName, Label: d.Label, Variant: string(b)}
	for _, t := range tags {
		if slices.Contains(d.Tags, t) {
			k.Tags = append(k.Tags, t)
		}
	}
	return k
}

// Metrics lists the metric names a series' runs have, in table order.
func (s Series) Metrics() []string {
	seen := map[string]bool{}
	var names []string
	for _, r := range s.Runs {
		for n := range r.Values {
			if !seen[n] {
				seen[n] = true
				names = append(names, n)
			}
		}
	}
	sort.Strings(names)
	significance.SortMetrics(names)
	return names
}

// Values is the metric's series: the runs that have it and their values.
func (s Series) Values(metric string) ([]Run, []float64) {
	var runs []Run
	var vals []float64
	for _, r := range s.Runs {
		if v, ok := r.Values[metric]; ok && !math.IsNaN(v) {
			runs = append(runs, r)
			vals = append(vals, v)
		}
	}
	return runs, vals
}
