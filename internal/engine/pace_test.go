package engine

import (
	"math/rand/v2"
	"testing"
	"time"
)

// exactMeans is the verdict's thirds read from every lag.
func exactMeans(lags []time.Duration) (first, last time.Duration) {
	n := len(lags) / 3
	return meanLag(lags[:n]), meanLag(lags[len(lags)-n:])
}

func meanLag(lags []time.Duration) time.Duration {
	var sum time.Duration
	for _, l := range lags {
		sum += l
	}
	return sum / time.Duration(len(lags))
}

// TestLagSeriesIsBoundedAndExactWhileShort: up to the bucket limit the
// thirds' means are exact; past it the series keeps at most the limit's
// buckets and its means stay within a bucket's share of the exact ones,
// for a flat lag, a lag that grows and a noisy one; the joined closing
// tail replaces the last two lags.
func TestLagSeriesIsBoundedAndExactWhileShort(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	shapes := map[string]func(i, n int) time.Duration{
		"flat":  func(int, int) time.Duration { return 3 * time.Millisecond },
		"grows": func(i, n int) time.Duration { return time.Duration(i) * time.Second / time.Duration(n) },
		"noisy": func(int, int) time.Duration { return time.Duration(rng.Int64N(int64(time.Second))) },
	}
	for name, shape := range shapes {
		for _, n := range []int{7, 64, 65, 1000, 100_003} {
			s := lagSeries{limit: 64}
			lags := make([]time.Duration, n)
			for i := range lags {
				lags[i] = shape(i, n)
				s.add(lags[i])
			}
			if len(s.buckets) > 64 || s.count() != n {
				t.Fatalf("%s %d: %d buckets holding %d lags", name, n, len(s.buckets), s.count())
			}
			first, last := exactMeans(lags)
			gf, gl := s.meanFirst(n/3), s.meanLast(n/3)
			tol := time.Duration(0)
			if n > 64 {
				// a cut bucket counts with its mean: off by at most its width's share of the range
				tol = time.Duration(float64(s.width) / float64(n/3) * float64(time.Second))
			}
			if d := (gf - first).Abs(); d > tol+1 {
				t.Errorf("%s %d: first third's mean %v, exact %v (tolerance %v)", name, n, gf, first, tol)
			}
			if d := (gl - last).Abs(); d > tol+1 {
				t.Errorf("%s %d: last third's mean %v, exact %v (tolerance %v)", name, n, gl, last, tol)
			}
		}
	}
	// The closing tail joins the interval before it, also right after a halving.
	for _, n := range []int{3, 64, 65, 129} {
		s := lagSeries{limit: 64}
		for range n - 1 {
			s.add(time.Millisecond)
		}
		s.add(5 * time.Millisecond)
		s.joinLast(time.Millisecond, 5*time.Millisecond, 5*time.Millisecond)
		if s.count() != n-1 {
			t.Fatalf("%d: after joining the tail the series holds %d lags, want %d", n, s.count(), n-1)
		}
		var sum time.Duration
		for _, b := range s.buckets {
			sum += b.sum
		}
		if want := time.Duration(n-2)*time.Millisecond + 5*time.Millisecond; sum != want {
			t.Errorf("%d: lags sum to %v after joining the tail, want %v", n, sum, want)
		}
	}
}
