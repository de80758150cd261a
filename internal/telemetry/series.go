package telemetry

import (
	"cmp"
	"maps"
	"slices"
	"time"

	"github.com/mongobench/mongobench/internal/result"
)

// Figures are the server and host figures of one interval between two
// samples. A map is nil when its source is missing at either end.
type Figures struct {
	Start  time.Time
	End    time.Time
	Server map[string]float64
	Host   map[string]float64
}

// Intervals returns the figures of each interval between consecutive
// samples.
func Intervals(samples []Sample) []Figures {
	samples = sortedByTime(samples)
	var out []Figures
	for i := 1; i < len(samples); i++ {
		out = append(out, FigureOf(samples[i-1], samples[i]))
	}
	return out
}

// Window returns the server and host figures of the interval [from, to],
// for result.Interval.Server and result.Interval.Host. It uses the samples
// nearest each bound, no further from it than half the interval's length;
// a map is nil when no such pair of samples exists.
func Window(samples []Sample, from, to time.Time) (server, host map[string]float64) {
	slack := to.Sub(from) / 2
	hasStatus := func(s Sample) bool { return s.Status.Doc != nil }
	if a, b, ok := bounds(samples, from, to, slack, hasStatus); ok {
		server = ServerFigures(a.Status, b.Status)
	}
	hasHost := func(s Sample) bool { return s.Host != nil }
	if a, b, ok := bounds(samples, from, to, slack, hasHost); ok {
		host = HostFigures(*a.Host, *b.Host)
	}
	return server, host
}

// bounds finds the samples with a source nearest from and to.
func bounds(samples []Sample, from, to time.Time, slack time.Duration, has func(Sample) bool) (a, b Sample, ok bool) {
	i, j := nearest(samples, from, slack, has), nearest(samples, to, slack, has)
	if i < 0 || j < 0 || !samples[j].Time.After(samples[i].Time) {
		return Sample{}, Sample{}, false
	}
	return samples[i], samples[j], true
}

// nearest is the index of the sample with a source nearest t and at most
// slack away, or -1.
func nearest(samples []Sample, t time.Time, slack time.Duration, has func(Sample) bool) int {
	best := -1
	for i, s := range samples {
		d := s.Time.Sub(t).Abs()
		if d <= slack && has(s) && (best < 0 || d < samples[best].Time.Sub(t).Abs()) {
			best = i
		}
	}
	return best
}

// seriesSpec says where a result series' values come from.
type seriesSpec struct {
	name, units string
	disk        bool // a DiskMetrics series
	value       func(Figures) (float64, bool)
	source      func(Sample) bool // whether a sample carries the source
	server      bool              // a serverStatus figure, not the host's
}

func hostKey(key string) func(Figures) (float64, bool) {
	return func(f Figures) (float64, bool) { v, ok := f.Host[key]; return v, ok }
}

func serverKey(key string) func(Figures) (float64, bool) {
	return func(f Figures) (float64, bool) { v, ok := f.Server[key]; return v, ok }
}

func hasCPU(s Sample) bool  { return s.Host != nil && s.Host.CPU != nil }
func hasProc(s Sample) bool { return s.Host != nil && s.Host.Proc != nil }
func hasDisk(s Sample) bool { return s.Host != nil && s.Host.Disk != nil }

func hasOpLatency(section string) func(Sample) bool {
	return func(s Sample) bool {
		_, ok := Lookup(s.Status.Doc, opLatenciesSection+"."+section+".latency")
		return ok
	}
}

const (
	unitPercent     = "PERCENT"
	unitMillis      = "MILLISECONDS"
	unitPerSecond   = "SCALAR_PER_SECOND"
	unitBytesPerSec = "BYTES_PER_SECOND"
	unitBytes       = "BYTES"
	unitScalar      = "SCALAR"
	unitSeconds     = "SECONDS"
)

var seriesSpecs = []seriesSpec{
	{result.CPUUser, unitPercent, false, hostKey(KeyCPUUser), hasCPU, false},
	{result.CPUKernel, unitPercent, false, hostKey(KeyCPUKernel), hasCPU, false},
	{result.CPUIOWait, unitPercent, false, hostKey(KeyCPUIOWait), hasCPU, false},
	{result.ProcessCPUUser, unitPercent, false, hostKey(KeyProcCPUUser), hasProc, false},
	{result.ProcessCPUKernel, unitPercent, false, hostKey(KeyProcCPUKernel), hasProc, false},
	{result.OpTimeWrites, unitMillis, false, serverKey(KeyWriteLatency), hasOpLatency("writes"), true},
	{result.OpTimeReads, unitMillis, false, serverKey(KeyReadLatency), hasOpLatency("reads"), true},
	{result.DiskIOPS, unitPerSecond, true, hostKey(KeyDiskIOPS), hasDisk, false},
	{result.DiskReadBytes, unitBytesPerSec, true, hostKey(KeyDiskRead), hasDisk, false},
	{result.DiskWriteBytes, unitBytesPerSec, true, hostKey(KeyDiskWrite), hasDisk, false},
}

// Series returns the measured phase's host, process and server latency
// series, one data point per sampling interval lying inside [start, end],
// stamped with the interval's start. A point whose samples are missing has
// a nil value; a series with no source in any sample (a remote host, a
// server without opLatencies, a data directory without a block device) is
// left out.
func Series(samples []Sample, start, end time.Time, every time.Duration) result.Metrics {
	return series(seriesSpecs, samples, start, end, every)
}

// FTDCSeries are the series of samples read from FTDC files: those of
// Series, and the server's own figures the diagnosis reads (the cache,
// checkpoints, tickets, queued operations, eviction by application
// threads), whose serverStatus sections an FTDC sample always carries.
func FTDCSeries(samples []Sample, start, end time.Time) result.Metrics {
	return series(append(slices.Clone(seriesSpecs), ftdcSpecs...), samples, start, end, time.Second)
}

// ftdcSpecs are the server series FTDCSeries adds.
var ftdcSpecs = []seriesSpec{
	{result.CacheUsed, unitBytes, false, serverKey(KeyCacheBytes), hasStatus(KeyCacheBytes), true},
	{result.CacheDirty, unitBytes, false, serverKey(KeyCacheDirty), hasStatus(KeyCacheDirty), true},
	{result.CacheMax, unitBytes, false, serverKey(KeyCacheMax), hasStatus(KeyCacheMax), true},
	{result.CacheAppEviction, unitPerSecond, false, serverKey(KeyAppEviction), hasStatus(KeyAppEviction), true},
	{result.CheckpointRunning, unitScalar, false, serverKey(KeyCheckpointing), hasStatus(KeyCheckpointing), true},
	{result.CheckpointsCompleted, unitScalar, false, serverKey(KeyCheckpoints), hasStatus(KeyCheckpoints), true},
	{result.TicketsOut, unitScalar, false, serverKey(KeyTicketsOut), hasStatus(KeyTicketsOut), true},
	{result.TicketsTotal, unitScalar, false, serverKey(KeyTicketsTotal), hasStatus(KeyTicketsTotal), true},
	{result.QueueTotal, unitScalar, false, serverKey(KeyQueued), hasStatus(KeyQueued), true},
}

// hasStatus says whether a sample's serverStatus gives the figure key:
// its gauge or counter, read as ServerFigures reads it.
func hasStatus(key string) func(Sample) bool {
	return func(s Sample) bool {
		if s.Status.Doc == nil {
			return false
		}
		_, ok := ServerFigures(s.Status, Status{Time: s.Status.Time.Add(time.Second), Doc: s.Status.Doc})[key]
		return ok
	}
}

func series(specs []seriesSpec, samples []Sample, start, end time.Time, every time.Duration) result.Metrics {
	in := within(sortedByTime(samples), start, end)
	m := result.Metrics{Measurements: []result.Series{}, DiskMetrics: []result.Series{}}
	for _, spec := range specs {
		if !slices.ContainsFunc(in, spec.source) {
			continue
		}
		// A boundary mark carries the host only: the server's series pass
		// over it rather than lose the intervals on either side.
		src := slices.DeleteFunc(slices.Clone(in), func(s Sample) bool { return s.Mark && !spec.source(s) })
		s := result.Series{Name: spec.name, Units: spec.units, Source: sourceOf(src, spec),
			GranularitySec: every.Seconds(), DataPoints: points(Intervals(src), spec.value)}
		if spec.disk {
			m.DiskMetrics = append(m.DiskMetrics, s)
		} else {
			m.Measurements = append(m.Measurements, s)
		}
	}
	return m
}

// sourceOf names where a series' values come from: serverStatus for the
// server's own figures, else the host readings' source.
func sourceOf(samples []Sample, spec seriesSpec) string {
	if spec.server {
		for _, s := range samples {
			if s.Status.Source != "" {
				return s.Status.Source
			}
		}
		return "serverStatus"
	}
	for _, s := range samples {
		if spec.source(s) {
			return s.Host.Source
		}
	}
	return ""
}

func points(figs []Figures, value func(Figures) (float64, bool)) []result.DataPoint {
	out := make([]result.DataPoint, len(figs))
	for i, f := range figs {
		out[i].Timestamp = f.Start
		if v, ok := value(f); ok {
			out[i].Value = result.F(v)
		}
	}
	return out
}

// within keeps the samples taken in [start, end].
func within(samples []Sample, start, end time.Time) []Sample {
	var out []Sample
	for _, s := range samples {
		if !s.Time.Before(start) && !s.Time.After(end) {
			out = append(out, s)
		}
	}
	return out
}

// sortedByTime returns the samples oldest first, copying only when they are
// out of order.
func sortedByTime(samples []Sample) []Sample {
	less := func(a, b Sample) int { return a.Time.Compare(b.Time) }
	if slices.IsSortedFunc(samples, less) {
		return samples
	}
	out := slices.Clone(samples)
	slices.SortStableFunc(out, less)
	return out
}

// LagSeries are the secondaries' replication lag series over [start,
// end], one per secondary the samples name (ReplicationLag, in seconds,
// Member the secondary), in name order: one point per sampling interval,
// stamped with its start, the lag read at its end; missing where that
// sample did not read it. Nil when no sample read a lag.
func LagSeries(samples []Sample, start, end time.Time, every time.Duration) []result.Series {
	in, names, source := memberSamples(samples, start, end, func(s Sample) []string { return slices.Collect(maps.Keys(s.Status.Lags)) })
	var out []result.Series
	for _, name := range names {
		sr := result.Series{Name: result.ReplicationLag, Units: unitSeconds, Source: source, GranularitySec: every.Seconds(),
			Member: name, Role: "secondary", DataPoints: make([]result.DataPoint, 0, max(len(in)-1, 0))}
		for i := 1; i < len(in); i++ {
			p := result.DataPoint{Timestamp: in[i-1].Time}
			if v, ok := in[i].Status.Lags[name]; ok {
				p.Value = result.F(v)
			}
			sr.DataPoints = append(sr.DataPoints, p)
		}
		out = append(out, sr)
	}
	return out
}

// memberSamples are the samples over [start, end] (boundary marks left
// out), the member names any of them reads (namesOf), sorted, and where
// those figures came from.
func memberSamples(samples []Sample, start, end time.Time, namesOf func(Sample) []string) (in []Sample, names []string, source string) {
	in = slices.DeleteFunc(slices.Clone(within(sortedByTime(samples), start, end)), func(s Sample) bool { return s.Mark })
	for _, s := range in {
		for _, name := range namesOf(s) {
			if !slices.Contains(names, name) {
				names = append(names, name)
			}
			source = cmp.Or(s.Status.Source, "replSetGetStatus")
		}
	}
	slices.Sort(names)
	return in, names, source
}

// StateSeries are the replica set members' state series over [start,
// end], one per member the samples name (MemberState, Member the member,
// Role its state at the first point), in name order: one point per
// sample, stamped with its time, the state it read; missing where that
// sample did not read it. Nil when no sample read a state.
func StateSeries(samples []Sample, start, end time.Time, every time.Duration) []result.Series {
	in, names, source := memberSamples(samples, start, end, func(s Sample) []string { return slices.Collect(maps.Keys(s.Status.States)) })
	var out []result.Series
	for _, name := range names {
		sr := result.Series{Name: result.MemberState, Units: "state", Source: source, GranularitySec: every.Seconds(),
			Member: name, DataPoints: make([]result.DataPoint, 0, len(in))}
		for _, s := range in {
			p := result.DataPoint{Timestamp: s.Time}
			if v, ok := s.Status.States[name]; ok {
				p.Value = result.F(float64(v))
				if sr.Role == "" {
					sr.Role = StateName(v)
				}
			}
			sr.DataPoints = append(sr.DataPoints, p)
		}
		out = append(out, sr)
	}
	return out
}

// StateName is a replica set member state's name as replSetGetStatus's
// stateStr words it, in lower case ("primary", "secondary", ...), and
// "unknown" for a state it does not name.
func StateName(state int64) string {
	if name, ok := result.MemberStateName(state); ok {
		return name
	}
	return "unknown"
}
