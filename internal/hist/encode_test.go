package hist

import (
	"math/rand/v2"
	"testing"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"
)

// histograms are shapes an encoding must carry: empty, one value, the
// geometry's ends, a latency-like spread, counts needing every varint
// length, and long runs of empty buckets.
func histograms() map[string]*H {
	rng := rand.New(rand.NewPCG(3, 4))
	out := map[string]*H{}
	out["empty"] = New()
	one := New()
	Record(one, 250*time.Microsecond)
	out["one value"] = one
	ends := New()
	Record(ends, 0)
	Record(ends, 2*time.Hour)
	out["the geometry's ends"] = ends
	spread := New()
	for range 100_000 {
		Record(spread, time.Duration((0.2+rng.ExpFloat64())*float64(time.Millisecond)))
	}
	out["a latency spread"] = spread
	big := New()
	for i, c := range []int64{1, 200, 70_000, 1 << 30, 1 << 50} {
		_ = big.RecordValues(int64(10*(i+1)), c)
	}
	out["counts of every varint length"] = big
	sparse := New()
	for _, us := range []int64{1, 3_000, 3_000_000, 3_000_000_000} {
		_ = sparse.RecordValue(us)
	}
	out["long runs of empty buckets"] = sparse
	return out
}

// TestEncodeIsTheLibrarysBitForBit: our encoding of every shape is the
// HdrHistogram library's, byte for byte, and decodes to the same counts.
func TestEncodeIsTheLibrarysBitForBit(t *testing.T) {
	for name, h := range histograms() {
		want, err := h.Encode(hdr.V2CompressedEncodingCookieBase)
		if err != nil {
			t.Fatal(err)
		}
		got, err := Encode(h)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if got != string(want) {
			t.Errorf("%s: encoded\n%s\nthe library's\n%s", name, got, want)
		}
		back, err := Decode(got)
		if err != nil || !back.Equals(h) {
			t.Errorf("%s: decoded %v (%v), want the same histogram", name, back, err)
		}
	}
}

func BenchmarkEncode(b *testing.B) {
	h := histograms()["a latency spread"]
	b.Run("ours", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := Encode(h); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("library", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := h.Encode(hdr.V2CompressedEncodingCookieBase); err != nil {
				b.Fatal(err)
			}
		}
	})
}
