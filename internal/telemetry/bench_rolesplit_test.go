package telemetry

import (
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/ftdc"
	"github.com/mongobench/mongobench/internal/testsupport/ftdcwrite"
)

// roleSplitChunk is a chunk as an 8.0 shard member writes it: the
// role-split layout, 5,500 metrics a sample, 300 samples (the reference
// and 299 after it).
func roleSplitChunk(b *testing.B) []byte {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	c := &ftdcwrite.Compressor{MaxSamples: 299}
	s := ftdcwrite.State{V8: true, Split: "shard", Filler: 5430, CacheMax: 1 << 30, Tickets: 128, NumCPUs: 8, ReadSectors: 1 << 20}
	var data []byte
	for i := range 300 {
		s.Inserts += 1000
		s.UserMs += 500
		s.WriteSectors += 8000
		if d := c.Add(ftdcwrite.Sample(t0.Add(time.Duration(i)*time.Second), s)); d != nil {
			data = d
		}
	}
	if data == nil {
		b.Fatal("no chunk")
	}
	return data
}

// BenchmarkFTDCRoleSplit reads an 8.0 shard member's chunk of 5,500
// metrics × 300 samples into per-second figures (decoding, the samples,
// every interval's figures): bench/ftdc.sh reads samples per second
// from it.
func BenchmarkFTDCRoleSplit(b *testing.B) {
	data := roleSplitChunk(b)
	b.ResetTimer()
	for b.Loop() {
		ch, err := ftdc.DecodeChunk(data)
		if err != nil {
			b.Fatal(err)
		}
		if len(ch.Metrics) < 5500 {
			b.Fatalf("%d metrics", len(ch.Metrics))
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

// BenchmarkFTDCRoleSplitFull decodes every value of the same chunk,
// sample by sample (Chunk.Rows over all its metrics).
func BenchmarkFTDCRoleSplitFull(b *testing.B) {
	data := roleSplitChunk(b)
	b.ResetTimer()
	for b.Loop() {
		ch, err := ftdc.DecodeChunk(data)
		if err != nil {
			b.Fatal(err)
		}
		all := make([]int, len(ch.Metrics))
		for i := range all {
			all[i] = i
		}
		rows := 0
		_ = ch.Rows(all, func(int, []int64) error { rows++; return nil })
		if rows != 300 {
			b.Fatalf("%d rows", rows)
		}
	}
	b.ReportMetric(float64(300*b.N)/b.Elapsed().Seconds(), "samples/s")
}
