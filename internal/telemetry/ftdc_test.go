package telemetry

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/ftdc"
	"github.com/mongobench/mongobench/internal/testsupport/ftdcwrite"
)

// ftdcStates are 12 seconds of a mongod: 1,000 inserts a second, a
// checkpoint running in seconds 5 and 6 (completing in 6, 1,800 ms),
// 3 of 128 tickets out, 25% of a 2-core host's CPU as user time, and the
// data disk writing 4 MB a second (100 I/Os of 40 kB).
func ftdcStates(v8 bool) []ftdcwrite.State {
	var out []ftdcwrite.State
	s := ftdcwrite.State{V8: v8, CacheMax: 1 << 30, CacheUsed: 600 << 20, Tickets: 128, TicketsOut: 3, Connections: 20,
		NumCPUs: 2, MemTotalKB: 8 << 20, MemAvailableKB: 4 << 20, Reads: 5000, ReadSectors: 1 << 20}
	for i := range 12 {
		out = append(out, s)
		s.Inserts += 1000
		s.WriteOps += 1000
		s.WriteMicros += 1000 * 250
		s.CacheDirty += 10 << 20
		s.Checkpointing = i+1 == 5 || i+1 == 6
		if i+1 == 7 {
			s.Checkpoints++
			s.CheckpointMs = 1800
		}
		s.UserMs += 500
		s.IdleMs += 1500
		s.Writes += 100
		s.WriteSectors += 4 << 20 / 512
		s.WriteMs += 100
		s.IOTimeMs += 200
	}
	return out
}

func writeFTDC(t *testing.T, states []ftdcwrite.State, t0 time.Time) string {
	t.Helper()
	var samples []bson.D
	for i, s := range states {
		samples = append(samples, ftdcwrite.Sample(t0.Add(time.Duration(i)*time.Second), s))
	}
	dir := t.TempDir()
	name := filepath.Join(dir, "metrics."+t0.Format("2006-01-02T15-04-05Z")+"-00000")
	if err := os.WriteFile(name, ftdcwrite.File(ftdcwrite.Metadata(states[0]), samples, 4), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

// An FTDC file's samples give the same figures as serverStatus and the
// host's /proc do, with MongoDB 7.0's and 8.0's names alike, across
// chunk boundaries (chunks of 5 samples here).
func TestFTDCFigures(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, v8 := range []bool{false, true} {
		dir := writeFTDC(t, ftdcStates(v8), t0)
		files, err := ftdc.Files(dir)
		if err != nil {
			t.Fatal(err)
		}
		var figs []Figures
		var pairs FTDCPairs
		info, err := ftdc.Scan{Files: files}.Run(func(c *ftdc.Chunk, _ ftdc.Document) error {
			pairs.Add(c, func(a, b Sample) { figs = append(figs, FigureOf(a, b)) })
			return nil
		})
		pairs.Flush(func(a, b Sample) { figs = append(figs, FigureOf(a, b)) }, nil)
		if err != nil {
			t.Fatal(err)
		}
		wantVersion := map[bool]string{false: "7.0.12", true: "8.0.4"}[v8]
		if info.Chunks != 3 || len(info.Versions) != 1 || info.Versions[0] != wantVersion {
			t.Fatalf("v8 %v: %+v", v8, info)
		}
		if len(figs) != 11 {
			t.Fatalf("v8 %v: %d intervals from 12 samples", v8, len(figs))
		}
		for i, f := range figs {
			want := map[string]float64{
				"insertPerSec": 1000, "queryPerSec": 0, "updatePerSec": 0,
				KeyWriteLatency: 0.25, KeyConnections: 20, KeyConnCreated: 0, KeyQueued: 0,
				KeyCacheBytes: 600 << 20, KeyCacheDirty: float64(i+1) * (10 << 20), KeyCacheMax: 1 << 30,
				KeyAppEviction: 0, KeyTicketsOut: 3, KeyTicketsTotal: 256,
				KeyCheckpointing: 0, KeyCheckpoints: 0,
			}
			if i+1 == 5 || i+1 == 6 {
				want[KeyCheckpointing] = 1
			}
			if i+1 == 7 {
				want[KeyCheckpoints], want[KeyCheckpointMs] = 1, 1800
			}
			sameFigures(t, f.End.Format(time.TimeOnly)+" server", f.Server, want)
			sameFigures(t, f.End.Format(time.TimeOnly)+" host", f.Host, map[string]float64{
				KeyCPUUser: 25, KeyCPUKernel: 0, KeyCPUIOWait: 0, KeyCPUSteal: 0,
				KeyDiskIOPS: 100, KeyDiskRead: 0, KeyDiskWrite: 4 << 20, KeyDiskUtil: 20, KeyDiskQueue: 0, KeyDiskWait: 1,
				KeyMemAvailable: 4 << 30,
			})
		}
	}
}

// A window reads only the chunks that may hold its samples, and a file
// whose successor starts before the window is not opened at all.
func TestFTDCWindowSkips(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	states := ftdcStates(true)
	a := writeFTDC(t, states, t0)
	b := writeFTDC(t, states, t0.Add(time.Minute))
	files, _ := ftdc.Files(a)
	more, _ := ftdc.Files(b)
	files = append(files, more...)
	var first, last time.Time
	n := 0
	info, err := ftdc.Scan{Files: files, From: t0.Add(time.Minute + 6*time.Second), To: t0.Add(time.Minute + 7*time.Second)}.Run(
		func(c *ftdc.Chunk, _ ftdc.Document) error {
			ts := c.Times()
			if first.IsZero() {
				first = ts[0]
			}
			last = ts[len(ts)-1]
			n++
			return nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if info.Skipped != 1 || info.Files != 1 || n != 1 || !first.Equal(t0.Add(time.Minute+5*time.Second)) || !last.Equal(t0.Add(time.Minute+9*time.Second)) {
		t.Fatalf("%+v: %d chunks from %s to %s; want the second file's second chunk (seconds 5 to 9) alone", info, n, first, last)
	}
}

// BenchmarkFTDCWindow reads one chunk shaped like a real mongod's (the
// sections the figures read, plus 3,000 other metrics, 300 samples) into
// per-second figures: decoding, the samples and every interval's
// figures. bench/ftdc.sh reads samples per second from it.
func BenchmarkFTDCWindow(b *testing.B) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := &ftdcwrite.Compressor{MaxSamples: 299}
	var data []byte
	s := ftdcwrite.State{CacheMax: 1 << 30, Tickets: 128, NumCPUs: 8, ReadSectors: 1 << 20}
	for i := range 300 {
		s.Inserts += 1000
		s.UserMs += 500
		s.WriteSectors += 8000
		doc := ftdcwrite.Sample(t0.Add(time.Duration(i)*time.Second), s)
		var other bson.D
		for g := range 30 {
			var sec bson.D
			for m := range 100 {
				sec = append(sec, bson.E{Key: "m" + string(rune('a'+m%26)) + string(rune('a'+m/26)), Value: int64(i * (m % 7))})
			}
			other = append(other, bson.E{Key: "g" + string(rune('a'+g)), Value: sec})
		}
		doc = append(doc[:len(doc)-1], bson.E{Key: "other", Value: other}, doc[len(doc)-1])
		if d := c.Add(doc); d != nil {
			data = d
		}
	}
	if data == nil {
		b.Fatal("no chunk")
	}
	b.ResetTimer()
	for b.Loop() {
		ch, err := ftdc.DecodeChunk(data)
		if err != nil {
			b.Fatal(err)
		}
		var p FTDCPairs
		n := 0
		count := func(a, z Sample) {
			if FigureOf(a, z).Server != nil {
				n++
			}
		}
		p.Add(ch, count)
		p.Flush(count, nil)
		if n != 299 {
			b.Fatalf("%d intervals", n)
		}
	}
	b.ReportMetric(float64(300*b.N)/b.Elapsed().Seconds(), "samples/s")
}
