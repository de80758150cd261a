package hist

import (
	"errors"
	"fmt"
	"time"

	hdr "github.com/HdrHistogram/hdrhistogram-go"

	"github.com/mongobench/mongobench/internal/result"
)

// Geometry of every histogram mongobench records, in microseconds.
const (
	Lowest  = 1
	Highest = int64(time.Hour / time.Microsecond)
	Digits  = 3
)

// H is an HDR histogram of microseconds.
type H = hdr.Histogram

// New returns an empty histogram with the standard geometry.
func New() *H { return hdr.New(Lowest, Highest, Digits) }

// Record adds one duration. Durations below 1 µs count as 1 µs and those
// above one hour as one hour, so nothing recorded is ever lost.
func Record(h *H, d time.Duration) {
	us := int64(d / time.Microsecond)
	switch {
	case us < Lowest:
		us = Lowest
	case us > Highest:
		us = Highest
	}
	_ = h.RecordValue(us) // cannot fail: us is inside the geometry
}

// Merge adds src into dst. Both must have the standard geometry; it is an
// error for any count to be lost.
func Merge(dst, src *H) error {
	if dropped := dst.Merge(src); dropped != 0 {
		return fmt.Errorf("merge lost %d values outside the histogram range", dropped)
	}
	return nil
}

// Encode returns the histogram as base64 text of the compressed
// HdrHistogram V2 encoding.
func Encode(h *H) (string, error) {
	s, err := encode(h)
	if err != nil {
		return "", fmt.Errorf("encode histogram: %w", err)
	}
	return s, nil
}

// Decode reads a histogram written by Encode (or any HdrHistogram V2
// compressed base64 encoder).
func Decode(s string) (*H, error) {
	if s == "" {
		return nil, errors.New("decode histogram: empty encoding")
	}
	h, err := hdr.Decode([]byte(s))
	if err != nil {
		return nil, fmt.Errorf("decode histogram: %w", err)
	}
	return h, nil
}

// Quantiles reported in every summary, as percentiles.
var summaryPercentiles = []float64{50, 95, 99, 99.9}

// Summarize returns the stored summary of h in milliseconds, with the
// encoded histogram. An empty histogram has a count of zero and no
// percentiles.
func Summarize(h *H) (result.Dist, error) {
	d := result.Dist{Count: h.TotalCount()}
	if d.Count == 0 {
		return d, nil
	}
	enc, err := Encode(h)
	if err != nil {
		return d, err
	}
	d.Hist = enc
	fillPercentiles(&d, h)
	return d, nil
}

// Summary returns the summary of h in milliseconds without its encoded
// histogram, for a figure that is kept without it (a long run's coarse
// intervals).
func Summary(h *H) result.Dist {
	d := result.Dist{Count: h.TotalCount()}
	if d.Count > 0 {
		fillPercentiles(&d, h)
	}
	return d
}

func fillPercentiles(d *result.Dist, h *H) {
	v := h.ValueAtPercentiles(summaryPercentiles)
	d.Mean = result.F(h.Mean() / 1000)
	d.Min = ms(h.Min())
	d.P50 = ms(v[50])
	d.P95 = ms(v[95])
	d.P99 = ms(v[99])
	d.P999 = ms(v[99.9])
	d.Max = ms(h.Max())
}

// Percentile returns the p-th percentile of h in milliseconds, or nil when
// h is empty.
func Percentile(h *H, p float64) *float64 {
	if h.TotalCount() == 0 {
		return nil
	}
	return ms(h.ValueAtPercentile(p))
}

func ms(us int64) *float64 { return result.F(float64(us) / 1000) }

// FromDist decodes the histogram stored in a summary.
func FromDist(d result.Dist) (*H, error) {
	if d.Count == 0 {
		return New(), nil
	}
	return Decode(d.Hist)
}

// AddDist merges the histogram stored in a summary into dst. A summary
// that counts operations but holds no histogram cannot be merged.
func AddDist(dst *H, d result.Dist) error {
	if d.Count > 0 && d.Hist == "" {
		return errors.New("a distribution has no stored histogram")
	}
	h, err := FromDist(d)
	if err != nil {
		return err
	}
	return Merge(dst, h)
}

// MergeDists is the summary of the exact merge of the histograms stored
// in ds (every run's, client's or interval's, never an average of their
// percentiles).
func MergeDists(ds ...result.Dist) (result.Dist, error) {
	h := New()
	for _, d := range ds {
		if err := AddDist(h, d); err != nil {
			return result.Dist{}, err
		}
	}
	return Summarize(h)
}

// SameDist reports whether two stored distributions hold the same
// histogram, bucket for bucket.
func SameDist(a, b result.Dist) (bool, error) {
	ha, err := FromDist(a)
	if err != nil {
		return false, err
	}
	hb, err := FromDist(b)
	if err != nil {
		return false, err
	}
	return ha.TotalCount() == hb.TotalCount() && ha.Equals(hb), nil
}

// CountAbove is how many values of h lie above v microseconds: the
// counts of the buckets whose lowest equivalent value exceeds v. With v a
// percentile of a histogram of the same geometry (the highest value of
// its bucket), it counts exactly the values beyond that bucket.
func CountAbove(h *H, v int64) int64 {
	var n int64
	for _, b := range h.Distribution() {
		if b.From > v {
			n += b.Count
		}
	}
	return n
}
