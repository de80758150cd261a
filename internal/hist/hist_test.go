package hist

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/result"
)

func TestRecordClampsToGeometry(t *testing.T) {
	h := New()
	Record(h, 10*time.Nanosecond)
	Record(h, 2*time.Hour)
	if got := h.TotalCount(); got != 2 {
		t.Fatalf("count: got %d want 2", got)
	}
	if got := h.Min(); got != Lowest {
		t.Errorf("min: got %d want %d", got, Lowest)
	}
	if got := h.Max(); !h.ValuesAreEquivalent(got, Highest) {
		t.Errorf("max: got %d want ~%d", got, Highest)
	}
}

func TestMergeIsExact(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	whole, a, b := New(), New(), New()
	for i := 0; i < 100000; i++ {
		d := time.Duration(r.ExpFloat64() * float64(3*time.Millisecond))
		Record(whole, d)
		if i%3 == 0 {
			Record(a, d)
		} else {
			Record(b, d)
		}
	}
	merged := New()
	for _, h := range []*H{a, b} {
		if err := Merge(merged, h); err != nil {
			t.Fatal(err)
		}
	}
	if !merged.Equals(whole) {
		t.Fatalf("merged histogram differs from the one recorded whole")
	}
}

func TestEncodeDecodeRoundTrip(t *testing.T) {
	h := New()
	for i := 1; i <= 5000; i++ {
		Record(h, time.Duration(i)*7*time.Microsecond)
	}
	d, err := Summarize(h)
	if err != nil {
		t.Fatal(err)
	}
	back, err := FromDist(d)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []float64{50, 95, 99, 99.9, 100} {
		if got, want := back.ValueAtPercentile(p), h.ValueAtPercentile(p); got != want {
			t.Errorf("p%v after decode: got %d want %d", p, got, want)
		}
	}
	if got, want := *d.P99, float64(h.ValueAtPercentile(99))/1000; got != want {
		t.Errorf("summary p99: got %v want %v", got, want)
	}
}

func TestSummarizeEmptyHasNoPercentiles(t *testing.T) {
	d, err := Summarize(New())
	if err != nil {
		t.Fatal(err)
	}
	if d.Count != 0 || d.P50 != nil || d.P99 != nil || d.Max != nil || d.Mean != nil || d.Hist != "" {
		t.Fatalf("empty summary: got %+v, want count 0 and no percentiles", d)
	}
	if Percentile(New(), 99) != nil {
		t.Fatalf("percentile of empty histogram: got a value, want nil")
	}
}

func TestDecodeRejectsGarbage(t *testing.T) {
	for _, s := range []string{"", "not base64!", "aGVsbG8="} {
		if _, err := Decode(s); err == nil {
			t.Errorf("Decode(%q): got nil error, want one", s)
		}
	}
}

// TestMergeDists merges stored summaries exactly: the merge of the
// summaries of parts is the summary of the whole.
func TestMergeDists(t *testing.T) {
	sum := func(us ...int64) result.Dist {
		h := New()
		for _, v := range us {
			Record(h, time.Duration(v)*time.Microsecond)
		}
		d, err := Summarize(h)
		if err != nil {
			t.Fatal(err)
		}
		return d
	}
	tests := []struct {
		name string
		in   []result.Dist
		want result.Dist
	}{
		{"none", nil, sum()},
		{"one", []result.Dist{sum(5, 7)}, sum(5, 7)},
		{"parts", []result.Dist{sum(1, 2), sum(), sum(3000, 4_000_000)}, sum(1, 2, 3000, 4_000_000)},
	}
	for _, tc := range tests {
		got, err := MergeDists(tc.in...)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got.Hist != tc.want.Hist || got.Count != tc.want.Count || fmt.Sprint(deref(got.P99)) != fmt.Sprint(deref(tc.want.P99)) {
			t.Errorf("%s: got %d values (%s), want %d (%s)", tc.name, got.Count, got.Hist, tc.want.Count, tc.want.Hist)
		}
	}
	if _, err := MergeDists(result.Dist{Count: 3}); err == nil {
		t.Error("a summary without its histogram merged; want an error")
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}
