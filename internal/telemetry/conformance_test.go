package telemetry

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/ftdc"
	"github.com/mongobench/mongobench/internal/testsupport/ftdcwrite"
)

// What real servers write, read through the files' one path (FTDCRead):
// each test is a row of issue 33's table or one of its cases.

var confT0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

// confSeries is n samples of a mongod doing 1,000 inserts a second, at the
// times at(i), each state changed by edit (when set) before it is
// written.
func confSeries(n int, base ftdcwrite.State, at func(i int) time.Time, edit func(i int, s *ftdcwrite.State)) []bson.D {
	s := base
	s.NumCPUs, s.MemTotalKB, s.MemAvailableKB, s.Tickets, s.CacheMax = 2, 8<<20, 4<<20, 128, 1<<30
	var out []bson.D
	for i := range n {
		if edit != nil {
			edit(i, &s)
		}
		out = append(out, ftdcwrite.Sample(at(i), s))
		secs := int64(1)
		if i+1 < n {
			secs = max(1, int64(at(i+1).Sub(at(i))/time.Millisecond))
		}
		s.Inserts += secs // one insert a millisecond: 1,000 a second whatever the period
		s.UserMs += secs / 2
		s.IdleMs += secs * 3 / 2
	}
	return out
}

func every(d time.Duration) func(int) time.Time {
	return func(i int) time.Time { return confT0.Add(time.Duration(i) * d) }
}

// confWrite puts a file of docs (chunks of perChunk samples after each
// reference) in a new directory.
func confWrite(t *testing.T, name string, metadata bson.D, docs []bson.D, perChunk int) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, name), ftdcwrite.File(metadata, docs, perChunk), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// confRead is what a read of the window gives.
type readOut struct {
	samples     int
	first, last time.Time
	figs        []Figures
	gaps        [][2]time.Time
	info        ftdc.Info
}

func confRead(t *testing.T, r FTDCRead) readOut {
	t.Helper()
	var o readOut
	info, err := r.Visit(context.Background(), FTDCVisit{
		Sample: func(at time.Time) {
			if o.samples == 0 {
				o.first = at
			}
			o.samples++
			o.last = at
		},
		Figure: func(f Figures) { o.figs = append(o.figs, f) },
		Gap:    func(from, to time.Time) { o.gaps = append(o.gaps, [2]time.Time{from, to}) },
	})
	if err != nil {
		t.Fatal(err)
	}
	o.info = info
	return o
}

// every interval's inserts are 1,000 a second
func wantInserts(t *testing.T, what string, figs []Figures) {
	t.Helper()
	for _, f := range figs {
		if v, ok := f.Server["insertPerSec"]; !ok || math.Abs(v-1000) > 1e-6 {
			t.Fatalf("%s: %v to %v: %v inserts/s (%v), want 1,000", what, f.Start, f.End, v, ok)
		}
	}
}

// Row 1: an 8.x shard member's chunks of 5,500 metrics × 299 samples
// after the reference (1.6 million values, above the old decompressor's
// limit of a million) are read whole.
func TestLargeChunks(t *testing.T) {
	docs := confSeries(600, ftdcwrite.State{V8: true, Split: "shard", Filler: 5430}, every(time.Second), nil)
	dir := confWrite(t, "metrics.2026-03-01T12-00-00Z-00000", ftdcwrite.Metadata(ftdcwrite.State{V8: true, Split: "shard"}), docs, 299)
	metrics := 0
	if _, err := (ftdc.Scan{Files: []string{filepath.Join(dir, "metrics.2026-03-01T12-00-00Z-00000")}}).Run(func(c *ftdc.Chunk, _ ftdc.Document) error {
		metrics = len(c.Metrics)
		if c.Samples != 300 {
			t.Errorf("a chunk of %d samples, want 300", c.Samples)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	o := confRead(t, FTDCRead{Path: dir})
	if metrics < 5500 || o.samples != 600 || len(o.figs) != 599 || len(o.gaps) != 0 {
		t.Fatalf("%d metrics, %d samples, %d intervals, %d gaps: want ≥ 5,500, 600, 599, 0", metrics, o.samples, len(o.figs), len(o.gaps))
	}
	wantInserts(t, "large chunks", o.figs)
	if lag := o.figs[0].Server[KeyReplLag]; lag != 1.5 {
		t.Errorf("replication lag %v, want 1.5 s from shard.replSetGetStatus", lag)
	}
}

// A metric count that changes from chunk to chunk (14 counts here; a
// new schema starts a new chunk): every sample is read, and the samples
// either side of each change make an interval.
func TestMetricCountChanges(t *testing.T) {
	docs := confSeries(280, ftdcwrite.State{}, every(time.Second), func(i int, s *ftdcwrite.State) { s.Filler = 10 + i/20 })
	dir := confWrite(t, "metrics.interim", ftdcwrite.Metadata(ftdcwrite.State{}), docs, 299)
	o := confRead(t, FTDCRead{Path: dir})
	if o.info.Chunks != 14 || o.samples != 280 || len(o.figs) != 279 {
		t.Fatalf("%d chunks, %d samples, %d intervals: want 14, 280, 279", o.info.Chunks, o.samples, len(o.figs))
	}
	wantInserts(t, "metric count changes", o.figs)
}

// A server shutting down answers serverStatus with an error document:
// its intervals have no server figure (missing, never zero), the host's
// are read, and the samples after it read as before.
func TestStatusErrorDocument(t *testing.T) {
	docs := confSeries(21, ftdcwrite.State{}, every(time.Second), func(i int, s *ftdcwrite.State) { s.StatusError = i >= 10 && i < 15 })
	o := confRead(t, FTDCRead{Path: confWrite(t, "metrics.interim", ftdcwrite.Metadata(ftdcwrite.State{}), docs, 299)})
	if o.samples != 21 || len(o.figs) != 20 {
		t.Fatalf("%d samples, %d intervals: want 21, 20", o.samples, len(o.figs))
	}
	for i, f := range o.figs {
		errSide := i+1 >= 10 && i < 15 // one of its samples is an error document
		if (f.Server == nil) != errSide || f.Host[KeyCPUUser] != 25 {
			t.Errorf("interval %d: server %v, host CPU %v: want server figures %v, host 25%%", i, f.Server, f.Host[KeyCPUUser], !errSide)
		}
	}
}

// Row 4: samples not one second apart. The last 325 samples of a 7.0
// file 10 s apart: the window ends at the file's last sample and a
// window inside them has their samples and intervals, 1,000 inserts a
// second over each pair's own starts; an interim file at 100 ms; a host
// asleep for 7 minutes is a gap, no interval.
func TestSamplingPeriods(t *testing.T) {
	at := func(i int) time.Time {
		if i < 100 {
			return confT0.Add(time.Duration(i) * time.Second)
		}
		return confT0.Add(99*time.Second + time.Duration(i-99)*10*time.Second)
	}
	docs := confSeries(425, ftdcwrite.State{}, at, nil)
	dir := confWrite(t, "metrics.2026-03-01T12-00-00Z-00000", ftdcwrite.Metadata(ftdcwrite.State{}), docs, 299)
	o := confRead(t, FTDCRead{Path: dir})
	if o.samples != 425 || len(o.figs) != 424 || len(o.gaps) != 0 || !o.last.Equal(at(424)) {
		t.Fatalf("%d samples, %d intervals, gaps %v, last %v: want 425, 424, none, %v", o.samples, len(o.figs), o.gaps, o.last, at(424))
	}
	wantInserts(t, "1 s then 10 s", o.figs)
	in := confRead(t, FTDCRead{Path: dir, From: at(200), To: at(300)})
	if in.samples != 101 || len(in.figs) != 100 || in.figs[0].End.Sub(in.figs[0].Start) != 10*time.Second {
		t.Fatalf("a window of 10 s samples: %d samples, %d intervals: want 101, 100 of 10 s", in.samples, len(in.figs))
	}

	fast := confRead(t, FTDCRead{Path: confWrite(t, "metrics.interim", nil, confSeries(50, ftdcwrite.State{}, every(100*time.Millisecond), nil), 9)})
	if fast.samples != 50 || len(fast.figs) != 49 {
		t.Fatalf("100 ms: %d samples, %d intervals: want 50, 49", fast.samples, len(fast.figs))
	}
	wantInserts(t, "100 ms", fast.figs)

	sleep := func(i int) time.Time {
		if i < 30 {
			return confT0.Add(time.Duration(i) * time.Second)
		}
		return confT0.Add(7*time.Minute + time.Duration(i)*time.Second)
	}
	slept := confRead(t, FTDCRead{Path: confWrite(t, "metrics.interim", nil, confSeries(60, ftdcwrite.State{}, sleep, nil), 299)})
	if slept.samples != 60 || len(slept.figs) != 58 || len(slept.gaps) != 1 || !slept.gaps[0][0].Equal(sleep(29)) || !slept.gaps[0][1].Equal(sleep(30)) {
		t.Fatalf("a host asleep: %d samples, %d intervals, gaps %v: want 60, 58, one from %v to %v", slept.samples, len(slept.figs), slept.gaps, sleep(29), sleep(30))
	}
	wantInserts(t, "around a sleep", slept.figs)
}

// Samples at equal or earlier times than the one before them are read
// as samples of the window but make no interval.
func TestBackwardSamples(t *testing.T) {
	docs := confSeries(10, ftdcwrite.State{}, func(int) time.Time { return confT0 }, nil)
	o := confRead(t, FTDCRead{Path: confWrite(t, "metrics.interim", nil, docs, 299)})
	if o.samples != 1 || len(o.figs) != 0 || !o.first.Equal(confT0) {
		t.Fatalf("10 samples at one time: %d samples, %d intervals: want one sample at %v, no interval", o.samples, len(o.figs), confT0)
	}
}

// A metadata-only file (a server stopped before its first sample), a
// chunk of only its reference sample (no deltas), type 2 metadata
// deltas between the chunks, and a file torn inside its last document:
// each read, the torn one up to the document torn.
func TestDocumentKinds(t *testing.T) {
	dir := t.TempDir()
	meta := ftdcwrite.Metadata(ftdcwrite.State{V8: true})
	if err := os.WriteFile(filepath.Join(dir, "metrics.2026-03-01T11-00-00Z-00000"), ftdcwrite.MetadataDoc(meta, confT0.Add(-time.Hour)), 0o644); err != nil {
		t.Fatal(err)
	}
	docs := confSeries(12, ftdcwrite.State{V8: true}, every(time.Second), nil)
	var b []byte
	b = append(b, ftdcwrite.MetadataDoc(meta, confT0)...)
	one := &ftdcwrite.Compressor{MaxSamples: 299}
	one.Add(docs[0])
	b = append(b, ftdcwrite.ChunkDoc(one.Flush(), confT0)...) // the reference alone
	var mc ftdcwrite.MetadataCompressor
	periodic := func(v string) bson.D {
		return bson.D{{Key: "start", Value: bson.NewDateTimeFromTime(confT0)}, {Key: "getParameter", Value: bson.D{{Key: "start", Value: bson.NewDateTimeFromTime(confT0)},
			{Key: "wiredTigerConcurrentReadTransactions", Value: v}, {Key: "end", Value: bson.NewDateTimeFromTime(confT0)}}}, {Key: "end", Value: bson.NewDateTimeFromTime(confT0)}}
	}
	for i, v := range []string{"128", "64", "32"} {
		d, ix := mc.Add(periodic(v))
		if i > 0 && ix != i {
			t.Fatalf("periodic metadata %d: index %d, want a delta", i, ix)
		}
		b = append(b, ftdcwrite.PeriodicDoc(d, ix, confT0)...)
	}
	c := &ftdcwrite.Compressor{MaxSamples: 299}
	for _, d := range docs[1:] {
		c.Add(d)
	}
	last := len(b)
	b = append(b, ftdcwrite.ChunkDoc(c.Flush(), confT0.Add(time.Second))...)
	full := filepath.Join(dir, "metrics.2026-03-01T12-00-00Z-00000")
	if err := os.WriteFile(full, b, 0o644); err != nil {
		t.Fatal(err)
	}
	o := confRead(t, FTDCRead{Path: dir})
	if o.samples != 12 || len(o.figs) != 11 || len(o.info.Versions) != 1 || o.info.Files != 2 || len(o.info.Torn) != 0 {
		t.Fatalf("%d samples, %d intervals, %+v: want 12, 11, one version, two files", o.samples, len(o.figs), o.info)
	}
	wantInserts(t, "document kinds", o.figs)

	// torn: the last chunk cut after 100 of its bytes
	if err := os.WriteFile(full, b[:last+100], 0o644); err != nil {
		t.Fatal(err)
	}
	o = confRead(t, FTDCRead{Path: dir})
	want := full + ": ends early at byte " + strconv.Itoa(last) + ": its last document of " + strconv.Itoa(len(b)-last) + " bytes is cut after 100"
	if o.samples != 1 || len(o.info.Torn) != 1 || !strings.HasPrefix(o.info.Torn[0], want) {
		t.Fatalf("torn: %d samples, %v: want the one whole chunk's sample and %q", o.samples, o.info.Torn, want)
	}
}
