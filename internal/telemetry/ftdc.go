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
	var out []Sample
	_ = EachFTDCSample(c, func(s Sample) error { // fn returns no error
		out = append(out, s)
		return nil
	})
	return out
}

// EachFTDCSample calls fn with each sample of the chunk, in order, as
// FTDCSamples gives them, decoding only the metrics the figures read,
// sample by sample: a chunk of any length costs the figures' few
// metrics. fn's error ends it.
func EachFTDCSample(c *ftdc.Chunk, fn func(Sample) error) error {
	tm := c.TimeMetric()
	if tm < 0 {
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
	// want are the chunk's metrics read; a field's pos is its place in
	// want and in each row.
	want := []int{tm}
	col := func(m int) int {
		want = append(want, m)
		return len(want) - 1
	}
	type field struct {
		key string
		pos int
	}
	var status []field
	var opcounters []field
	seen := map[string]bool{}
	sys := &chunkFields{index: map[string]int{}}
	for m, metric := range c.Metrics {
		p := metric.Path
		switch {
		case ftdcStatus != "" && strings.HasPrefix(p, ftdcStatus):
			k := p[len(ftdcStatus):]
			if seen[k] || !wanted(k) {
				continue
			}
			seen[k] = true
			pos := col(m)
			status = append(status, field{k, pos})
			if rest, ok := strings.CutPrefix(k, opcountersSection+"."); ok && !strings.Contains(rest, ".") {
				opcounters = append(opcounters, field{rest, pos})
			}
		case ftdcSystem != "" && strings.HasPrefix(p, ftdcSystem):
			k := p[len(ftdcSystem):]
			if _, dup := sys.index[k]; dup || !wantedSystem(k) {
				continue
			}
			sys.index[k] = col(m)
			if rest, ok := strings.CutPrefix(k, "disks."); ok {
				if dev, _, ok := strings.Cut(rest, "."); ok && !slices.Contains(sys.disks, dev) {
					sys.disks = append(sys.disks, dev)
				}
			}
		}
	}
	members := chunkMembers(c, layout)
	for i := range members.names {
		members.state[i], members.at[i] = col(members.state[i]), col(members.at[i])
	}
	return c.Rows(want, func(_ int, row []int64) error {
		at := time.UnixMilli(row[0]).UTC()
		smp := Sample{Time: at}
		if len(status) > 0 {
			doc := make(map[string]any, len(status)+1)
			for _, f := range status {
				doc[f.key] = row[f.pos]
			}
			if len(opcounters) > 0 {
				ops := make(map[string]any, len(opcounters))
				for _, f := range opcounters {
					ops[f.key] = row[f.pos]
				}
				doc[opcountersSection] = ops
			}
			smp.Status = Status{Time: at, Doc: doc, Source: SourceFTDC, Lags: members.lags(row), States: members.states(row)}
		}
		if len(sys.index) > 0 {
			sys.row = row
			h := hostFromSystemMetrics(HostSample{Time: at, Source: SourceFTDC}, sys)
			smp.Host = &h
		}
		return fn(smp)
	})
}

// wantedSystem are the systemMetrics fields hostFromSystemMetrics reads.
func wantedSystem(path string) bool {
	return strings.HasPrefix(path, "cpu.") || strings.HasPrefix(path, "disks.") || strings.HasPrefix(path, "memory.")
}

// replMembers are the members a chunk's replSetGetStatus lists: their
// names from the reference sample (names are not metrics), their state
// and optimeDate from each sample's metrics (as chunk metrics, then as
// places in a row).
type replMembers struct {
	names []string
	state []int
	at    []int
}

func chunkMembers(c *ftdc.Chunk, layout ftdc.Layout) replMembers {
	var out replMembers
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

// lags are the secondaries' lags in a row (lagsOf).
func (r replMembers) lags(row []int64) map[string]float64 {
	if len(r.names) == 0 {
		return nil
	}
	ms := make([]replMember, len(r.names))
	for i, n := range r.names {
		ms[i] = replMember{name: n, state: row[r.state[i]], at: time.UnixMilli(row[r.at[i]])}
	}
	return lagsOf(ms)
}

// states are the members' states in a row (MemberStates).
func (r replMembers) states(row []int64) map[string]int64 {
	if len(r.names) == 0 {
		return nil
	}
	out := make(map[string]int64, len(r.names))
	for i, n := range r.names {
		out[n] = row[r.state[i]]
	}
	return out
}

func wanted(path string) bool {
	for _, p := range statusPrefixes {
		if strings.HasPrefix(path, p) {
			return true
		}
	}
	return false
}

// chunkFields reads systemMetrics from a row of a chunk's metrics, one
// sample at a time.
type chunkFields struct {
	index map[string]int // path under systemMetrics → place in the row
	disks []string
	row   []int64
}

func (f *chunkFields) number(path string) (float64, bool) {
	i, ok := f.index[path]
	if !ok {
		return 0, false
	}
	return float64(f.row[i]), true
}

func (f *chunkFields) children(path string) []string {
	if path == "disks" {
		return f.disks
	}
	return nil
}

// FTDCPairs pairs consecutive samples across the chunks given to Add, in
// order: the last sample of one chunk pairs with the first of the next,
// so no interval between two chunks is lost. Whatever the sampling
// period (100 ms, 1 s, 10 s, or one that changes), each pair spans its
// samples' own starts. A pause longer than FTDCGapPeriods times the
// spacings on either side of it (the larger: a period that changes
// from 1 s to 10 s is no gap) is a gap (a host asleep, a restart, a
// stalled collector), never spread as a rate. A sample at or before the
// previous one's time pairs with nothing. Each pair is judged once the
// sample after it is read: Flush judges the last.
type FTDCPairs struct {
	// Stale, when set, is called with each sample at or before the
	// previous one's time.
	Stale   func(Sample)
	prev    *Sample
	spacing time.Duration // of the pair before the pending one
	pending *pendingPair
}

type pendingPair struct {
	before, after Sample
}

// FTDCGapPeriods is how many sampling periods apart two samples may be
// and still make one interval.
const FTDCGapPeriods = 3

// FTDCFirstGap is the longest interval of a read that has no spacing
// beside it to be judged by (its only pair): the server's longest
// period.
const FTDCFirstGap = time.Minute

// minPeriod is the server's shortest sampling period
// (diagnosticDataCollectionPeriodMillis).
const minPeriod = 100 * time.Millisecond

// Add calls fn(before, after) for each consecutive pair of the chunk's
// samples, the previous chunk's last sample first; Flush gives the last.
func (p *FTDCPairs) Add(c *ftdc.Chunk, fn func(before, after Sample)) {
	_ = p.Each(c, nil, fn, nil) // the callbacks return no error
}

// Each reads the chunk's samples in order: sample (when set) is called
// with each sample that comes after the previous one, pair with each
// consecutive pair, gap (when set) with each two consecutive samples
// too far apart to be one interval; a sample at or before the previous
// one's time is given to Stale (when set) and to nothing else. sample's
// error ends the read.
func (p *FTDCPairs) Each(c *ftdc.Chunk, sample func(Sample) error, pair func(before, after Sample), gap func(before, after Sample)) error {
	return EachFTDCSample(c, func(s Sample) error {
		if p.prev != nil && !s.Time.After(p.prev.Time) {
			if p.Stale != nil {
				p.Stale(s)
			}
			return nil
		}
		if sample != nil {
			if err := sample(s); err != nil {
				return err
			}
		}
		if p.prev != nil {
			next := s.Time.Sub(p.prev.Time)
			p.judge(next, pair, gap)
			p.pending = &pendingPair{before: *p.prev, after: s}
		}
		smp := s
		p.prev = &smp
		return nil
	})
}

// Flush judges the last pair read, which has no sample after it.
func (p *FTDCPairs) Flush(pair func(before, after Sample), gap func(before, after Sample)) {
	p.judge(0, pair, gap)
	p.pending = nil
}

// judge gives the pending pair to pair or gap, by the spacings before
// and after it (next, 0 when none).
func (p *FTDCPairs) judge(next time.Duration, pair func(before, after Sample), gap func(before, after Sample)) {
	if p.pending == nil {
		return
	}
	q := p.pending
	dt := q.after.Time.Sub(q.before.Time)
	limit := FTDCFirstGap
	if ref := max(p.spacing, next); ref > 0 {
		limit = FTDCGapPeriods * max(ref, minPeriod)
	}
	switch {
	case dt <= limit:
		pair(q.before, q.after)
	case gap != nil:
		gap(q.before, q.after)
	}
	p.spacing = dt
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
