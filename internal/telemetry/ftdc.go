package telemetry

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/ftdc"
	"github.com/mongobench/mongobench/internal/result"
)

// statusPrefixes are the serverStatus sections whose fields ServerFigures
// (and the FTDC window's figures) read: copied out of each FTDC sample,
// the rest of its thousands of metrics left in the chunk.
var statusPrefixes = []string{
	opcountersSection + ".", opLatenciesSection + ".", "connections.", "network.",
	"wiredTiger.cache.", "wiredTiger.checkpoint.", "wiredTiger.transaction.",
	"wiredTiger.concurrentTransactions.", "queues.execution.", "globalLock.currentQueue.",
	"metrics.operation.writeConflicts", "metrics.getLastError.wtime.",
}

// FTDCSamples returns the samples of a decoded FTDC chunk as the
// sampler's: each sample's serverStatus (the sections ServerFigures
// reads, each field under its dotted path, the first of duplicate keys)
// marked with Source "ftdc", the replication lag of each secondary from
// its replSetGetStatus, and its host from systemMetrics, all at the
// sample's own start. The sections are found where the chunk's layout
// puts them (ftdc.Layout: flat, or under the role-split layout's
// common, shard or router). A chunk whose samples have no start field
// gives none. A live getDiagnosticData sample is read by this same
// function, as a chunk of one sample (SampleFromDiagnosticData).
func FTDCSamples(c *ftdc.Chunk) []Sample {
	times := c.Times()
	if times == nil {
		return nil
	}
	layout := c.Layout()
	prefix := func(section string) string {
		if p, ok := layout.Path(section); ok {
			return p + "."
		}
		return ""
	}
	ftdcStatus, ftdcSystem := prefix(ftdc.SectionServerStatus), prefix(ftdc.SectionSystemMetrics)
	type field struct {
		key string
		m   int
	}
	var status []field
	var opcounters []field
	seen := map[string]bool{}
	sys := &chunkFields{c: c, index: map[string]int{}}
	for m, metric := range c.Metrics {
		p := metric.Path
		switch {
		case ftdcStatus != "" && strings.HasPrefix(p, ftdcStatus):
			k := p[len(ftdcStatus):]
			if seen[k] || !wanted(k) {
				continue
			}
			seen[k] = true
			status = append(status, field{k, m})
			if rest, ok := strings.CutPrefix(k, opcountersSection+"."); ok && !strings.Contains(rest, ".") {
				opcounters = append(opcounters, field{rest, m})
			}
		case ftdcSystem != "" && strings.HasPrefix(p, ftdcSystem):
			k := p[len(ftdcSystem):]
			if _, dup := sys.index[k]; !dup {
				sys.index[k] = m
			}
			if rest, ok := strings.CutPrefix(k, "disks."); ok {
				if dev, _, ok := strings.Cut(rest, "."); ok && !slices.Contains(sys.disks, dev) {
					sys.disks = append(sys.disks, dev)
				}
			}
		}
	}
	members := chunkMembers(c, layout)
	out := make([]Sample, 0, c.Samples)
	for s, at := range times {
		smp := Sample{Time: at}
		if len(status) > 0 {
			doc := make(map[string]any, len(status)+1)
			for _, f := range status {
				doc[f.key] = c.Value(f.m, s)
			}
			if len(opcounters) > 0 {
				ops := make(map[string]any, len(opcounters))
				for _, f := range opcounters {
					ops[f.key] = c.Value(f.m, s)
				}
				doc[opcountersSection] = ops
			}
			smp.Status = Status{Time: at, Doc: doc, Source: SourceFTDC, Lags: members.lags(s)}
		}
		if len(sys.index) > 0 {
			sys.sample = s
			h := hostFromSystemMetrics(HostSample{Time: at, Source: SourceFTDC}, sys)
			smp.Host = &h
		}
		out = append(out, smp)
	}
	return out
}

// replMembers are the members a chunk's replSetGetStatus lists: their
// names from the reference sample (names are not metrics), their state
// and optimeDate from each sample's metrics.
type replMembers struct {
	c     *ftdc.Chunk
	names []string
	state []int // metric of each member's state
	at    []int // metric of each member's optimeDate
}

func chunkMembers(c *ftdc.Chunk, layout ftdc.Layout) replMembers {
	out := replMembers{c: c}
	rs, ok := layout.Document(c.Reference, ftdc.SectionReplSetGetStatus)
	path, _ := layout.Path(ftdc.SectionReplSetGetStatus)
	if !ok {
		return out
	}
	arr, err := rs.LookupErr("members")
	if err != nil || arr.Type != bson.TypeArray {
		return out
	}
	vals, err := arr.Array().Values()
	if err != nil {
		return out
	}
	for i, v := range vals {
		m, ok := v.DocumentOK()
		if !ok {
			continue
		}
		name, _ := m.Lookup("name").StringValueOK()
		base := fmt.Sprintf("%s.members.%d.", path, i)
		st, at := c.Find(base+"state"), c.Find(base+"optimeDate")
		if name == "" || st < 0 || at < 0 || c.Metrics[at].Type != bson.TypeDateTime {
			continue
		}
		out.names = append(out.names, name)
		out.state = append(out.state, st)
		out.at = append(out.at, at)
	}
	return out
}

// lags are the secondaries' lags in sample s (lagsOf).
func (r replMembers) lags(s int) map[string]float64 {
	if len(r.names) == 0 {
		return nil
	}
	ms := make([]replMember, len(r.names))
	for i, n := range r.names {
		ms[i] = replMember{name: n, state: r.c.Value(r.state[i], s), at: time.UnixMilli(r.c.Value(r.at[i], s))}
	}
	return lagsOf(ms)
}

func wanted(path string) bool {
	for _, p := range statusPrefixes {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

// chunkFields reads systemMetrics from a chunk's columns, one sample at a
// time.
type chunkFields struct {
	c      *ftdc.Chunk
	index  map[string]int // path under systemMetrics → metric
	disks  []string
	sample int
}

func (f *chunkFields) number(path string) (float64, bool) {
	m, ok := f.index[path]
	if !ok {
		return 0, false
	}
	return float64(f.c.Value(m, f.sample)), true
}

func (f *chunkFields) children(path string) []string {
	if path == "disks" {
		return f.disks
	}
	return nil
}

// FTDCPairs pairs consecutive samples across the chunks given to Add, in
// order: the last sample of one chunk pairs with the first of the next,
// so no second between two chunks is lost. Samples further apart than
// FTDCGap make no pair.
type FTDCPairs struct {
	prev *Sample
}

// Add calls fn(before, after) for each consecutive pair of the chunk's
// samples, the previous chunk's last sample first.
func (p *FTDCPairs) Add(c *ftdc.Chunk, fn func(before, after Sample)) {
	for _, s := range FTDCSamples(c) {
		if p.prev != nil && s.Time.After(p.prev.Time) && s.Time.Sub(p.prev.Time) <= FTDCGap {
			fn(*p.prev, s)
		}
		if p.prev == nil || s.Time.After(p.prev.Time) {
			smp := s
			p.prev = &smp
		}
	}
}

// FigureOf returns the server and host figures between two samples, as
// Intervals does for each of its pairs.
func FigureOf(before, after Sample) Figures {
	f := Figures{Start: before.Time, End: after.Time, Server: ServerFigures(before.Status, after.Status)}
	if before.Host != nil && after.Host != nil {
		f.Host = HostFigures(*before.Host, *after.Host)
	}
	return f
}

// FTDCGap is the longest time between two FTDC samples still taken as
// one interval: the server samples every second, and a longer gap (a
// restart, a stall of the collector) is left out rather than spread.
const FTDCGap = 5 * time.Second

// Attach adds series read from FTDC files to a run's metrics: a series
// the run lacks is added, one an earlier attach stored (source ftdc) is
// replaced, and one the run measured itself (this host, a node exporter,
// Atlas, its own serverStatus) is kept, its name returned in kept.
func Attach(m *result.Metrics, from result.Metrics) (added, kept []string) {
	put := func(list *[]result.Series, s result.Series) {
		i := slices.IndexFunc(*list, func(x result.Series) bool { return x.Name == s.Name && x.Member == "" })
		switch {
		case i < 0:
			*list = append(*list, s)
			added = append(added, s.Name)
		case (*list)[i].Source == SourceFTDC:
			(*list)[i] = s
			added = append(added, s.Name)
		default:
			kept = append(kept, s.Name)
		}
	}
	for _, s := range from.Measurements {
		put(&m.Measurements, s)
	}
	for _, s := range from.DiskMetrics {
		put(&m.DiskMetrics, s)
	}
	return added, kept
}
