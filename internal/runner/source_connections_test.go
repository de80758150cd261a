package runner_test

import (
	"slices"
	"strconv"
	"testing"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/runner"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// TestConnectionsSource: a run that names the connections source, against
// the real server, stores the server's own connection counts as series
// marked serverStatus at the run's granularity, a point per sampling
// interval of the measured phase; while the run's workers are connected
// the server counts at least as many connections as there are workers.
// Every other source reads as before (the run's host from /proc).
func TestConnectionsSource(t *testing.T) {
	uri := testenv.URI(t)
	threads := 4
	sc := scenario(t, testenv.DBName(t), map[string]string{"duration": "3s", "warmup": "0s", "threads": "4", "interval": "1s"}, "records=200")
	target := runner.Target{Target: spec.Target{URI: uri}, Kind: "test", Telemetry: runner.SourceNames()}
	d := run(t, sc, target)
	byName := map[string]result.Series{}
	for _, s := range d.Metrics.Measurements {
		byName[s.Name] = s
	}
	for _, name := range []string{runner.SeriesConnections, runner.SeriesConnectionsAvailable, runner.SeriesConnectionsCreated} {
		s, ok := byName[name]
		if !ok {
			t.Fatalf("no series %s: got %v (notes %q)", name, keysOf(byName), d.Notes)
		}
		if s.Source != "serverStatus" || s.GranularitySec != 1 {
			t.Errorf("%s: source %q, granularity %gs; want serverStatus, 1s", name, s.Source, s.GranularitySec)
		}
		if len(s.DataPoints) < 2 {
			t.Errorf("%s: %d points over a 3 s phase sampled every second, want at least 2", name, len(s.DataPoints))
		}
		for _, p := range s.DataPoints {
			if p.Timestamp.Before(d.Start) || p.Timestamp.After(d.End) {
				t.Errorf("%s: a point at %v, outside the measured phase %v–%v", name, p.Timestamp, d.Start, d.End)
			}
			if p.Value != nil && *p.Value < 0 {
				t.Errorf("%s: %g at %v, want a count or rate ≥ 0", name, *p.Value, p.Timestamp)
			}
		}
	}
	for _, name := range []string{runner.SeriesConnections, runner.SeriesConnectionsAvailable, runner.SeriesConnectionsCreated} {
		var vals []string
		for _, p := range byName[name].DataPoints {
			if p.Value == nil {
				vals = append(vals, "—")
			} else {
				vals = append(vals, strconv.FormatFloat(*p.Value, 'f', 1, 64))
			}
		}
		t.Logf("%s: %v", name, vals)
	}
	var most float64
	for _, p := range byName[runner.SeriesConnections].DataPoints {
		if p.Value != nil {
			most = max(most, *p.Value)
		}
	}
	if most < float64(threads) {
		t.Errorf("%s: at most %g connections while %d workers ran, want at least %d: %+v", runner.SeriesConnections, most, threads, threads, byName[runner.SeriesConnections].DataPoints)
	}
	if cpu, ok := byName[result.CPUUser]; !ok || cpu.Source == "serverStatus" {
		t.Errorf("the host's CPU series %+v: want it read as before, by the host sources", cpu)
	}
}

func keysOf(m map[string]result.Series) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
