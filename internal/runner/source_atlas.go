package runner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/mongobench/mongobench/internal/atlas"
	"github.com/mongobench/mongobench/internal/result"
)

// AtlasSource is where the run's host figures come from when the target
// is an Atlas cluster: the Atlas API's process and disk measurements, and
// the cluster's description for the instance fields.
type AtlasSource struct {
	Client           *atlas.Client
	Project, Cluster string
	// Process is the host:port Atlas names the measured node by; empty:
	// the host serverStatus names.
	Process string
	// Wait bounds how long the run waits after its end for Atlas's
	// measurements to arrive (they lag by minutes); Poll is how often it
	// asks meanwhile.
	Wait, Poll time.Duration
}

// atlasSource reads, after the run, the Atlas API's measurements of the
// measured window (the host's CPU, disk and memory), replacing the
// run's host series, and fills the instance fields from the cluster's
// description: for an Atlas target (Target.Atlas).
type atlasSource struct{}

func (atlasSource) Name() string { return "atlas" }
func (atlasSource) Reads() string {
	return "the Atlas API's process and disk measurements of the measured node over the run's window, and the cluster's description (with --atlas-project and --atlas-cluster)"
}
func (atlasSource) When() When    { return After }
func (atlasSource) Default() bool { return true }

func (atlasSource) after(ctx context.Context, r *run, d *result.Doc) { r.fromAtlas(ctx, d) }

// atlasGranularities are tried in order: 10 s where the cluster tier
// keeps it (M40 and up), else one minute.
var atlasGranularities = []string{"PT10S", "PT1M"}

// fromAtlas replaces the document's host series by Atlas's measurements of
// the measured window and fills the instance fields the user did not give
// from the cluster's description. What Atlas cannot give (yet) is left
// missing, with a note; nothing here fails the run.
func (r *run) fromAtlas(ctx context.Context, d *result.Doc) {
	a := r.opts.Target.Atlas
	if a == nil {
		return
	}
	note := func(format string, args ...any) { d.Notes = append(d.Notes, fmt.Sprintf(format, args...)) }
	if in, err := a.Client.Cluster(ctx, a.Project, a.Cluster); err != nil {
		note("Atlas cluster description: %v", err)
	} else {
		given := r.opts.Target.Described().Fields()
		for k, v := range in.Fields() {
			if _, ok := given[k]; !ok && k != "cost" {
				d.BenchConfig[k] = v
			}
		}
	}
	process := a.Process
	if process == "" {
		process, _ = r.before.Doc["host"].(string)
	}
	if process == "" {
		note("Atlas measurements: the server did not say its host name (serverStatus.host); give the process")
		return
	}
	w := atlas.Window{Start: d.Start, End: d.End}
	series, g, err := a.measurements(ctx, process, w)
	if err != nil {
		note("Atlas measurements: %v", err)
		return
	}
	if d.End.Sub(d.Start) < 2*g {
		note("Atlas measurements are every %v: the measured window (%v) holds fewer than two of them, too few to judge resource use", g, d.End.Sub(d.Start).Round(time.Second))
	}
	hostNames := slices.Concat(atlas.ProcessNames, atlas.DiskNames)
	keep := func(list []result.Series) []result.Series {
		return slices.DeleteFunc(list, func(s result.Series) bool { return slices.Contains(hostNames, s.Name) && s.Source != "serverStatus" })
	}
	d.Metrics.Measurements, d.Metrics.DiskMetrics = keep(d.Metrics.Measurements), keep(d.Metrics.DiskMetrics)
	for _, s := range series {
		if slices.Contains(atlas.DiskNames, s.Name) {
			d.Metrics.DiskMetrics = append(d.Metrics.DiskMetrics, s)
		} else if s.Name != result.OpTimeReads && s.Name != result.OpTimeWrites {
			d.Metrics.Measurements = append(d.Metrics.Measurements, s)
		}
	}
}

// measurements fetches the process's and its first disk partition's
// measurements of w at the finest granularity the cluster keeps, asking
// again every Poll until they reach the window's end or Wait has passed.
func (a *AtlasSource) measurements(ctx context.Context, process string, w atlas.Window) ([]result.Series, time.Duration, error) {
	deadline := time.Now().Add(a.Wait)
	for _, gran := range atlasGranularities {
		w.Granularity = gran
		for {
			series, g, err := a.fetch(ctx, process, w)
			var api *atlas.Error
			if errors.As(err, &api) && api.Code == "INVALID_GRANULARITY" {
				break // try the next granularity
			}
			if err != nil {
				return nil, 0, err
			}
			if arrived(series, w.End, g) || !time.Now().Before(deadline) {
				return series, g, nil
			}
			select {
			case <-ctx.Done():
				return series, g, nil
			case <-time.After(a.Poll):
			}
		}
	}
	return nil, 0, errors.New("the cluster keeps none of the granularities PT10S, PT1M")
}

func (a *AtlasSource) fetch(ctx context.Context, process string, w atlas.Window) ([]result.Series, time.Duration, error) {
	m, err := a.Client.ProcessMeasurements(ctx, a.Project, process, w)
	if err != nil {
		return nil, 0, err
	}
	series := within(m.Series, w)
	parts, err := a.Client.Partitions(ctx, a.Project, process)
	if err != nil || len(parts) == 0 {
		return series, m.Granularity, nil // the disk series are then missing
	}
	dm, err := a.Client.DiskMeasurements(ctx, a.Project, process, parts[0], w)
	if err != nil {
		return series, m.Granularity, nil
	}
	return append(series, within(dm.Series, w)...), m.Granularity, nil
}

// within keeps the data points stamped inside the window.
func within(series []result.Series, w atlas.Window) []result.Series {
	for i := range series {
		series[i].DataPoints = slices.DeleteFunc(series[i].DataPoints, func(p result.DataPoint) bool {
			return p.Timestamp.Before(w.Start.Truncate(time.Second)) || p.Timestamp.After(w.End)
		})
	}
	return series
}

// arrived reports whether Atlas's CPU series has a value for the window's
// last full granule.
func arrived(series []result.Series, end time.Time, g time.Duration) bool {
	for _, s := range series {
		if s.Name != result.CPUUser {
			continue
		}
		for _, p := range s.DataPoints {
			if p.Value != nil && !p.Timestamp.Before(end.Add(-2*g)) {
				return true
			}
		}
	}
	return false
}
