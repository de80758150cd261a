package engine

import "time"

// pace is what the health verdict reads of every interval, kept as the
// intervals close so a run that forgets them (Config.ForgetIntervals)
// is judged on all of them: each interval's largest send lag, and
// whether every worker was in flight in an interval that fell behind.
type pace struct {
	lags       lagSeries
	busyBehind bool
}

func (p *pace) add(iv *Interval, cfg Config) {
	p.lags.add(iv.MaxLag)
	behind := iv.Dropped > 0 || iv.Late > 0 || iv.MaxLag > cfg.LateAfter
	if behind && iv.PeakInFlight >= int64(cfg.Workers) {
		p.busyBehind = true
	}
}

// maxLagBuckets bounds a lagSeries: 1,024 buckets of 16 bytes whatever
// the run's length (a week of 100 ms intervals is 6 million).
const maxLagBuckets = 1024

// lagSeries holds each interval's largest send lag in order, in buckets
// of equal width (a power of two intervals; every bucket but the last
// full): while the run has at most maxLagBuckets intervals each bucket is
// one interval and the means below are exact; past that, neighbouring
// buckets merge in pairs, so a series takes constant memory.
type lagSeries struct {
	buckets []lagBucket
	width   int // intervals per full bucket
	limit   int // buckets kept; maxLagBuckets unless a test sets it
}

type lagBucket struct {
	sum time.Duration
	n   int
}

func (s *lagSeries) add(l time.Duration) {
	if s.width == 0 {
		s.width = 1
	}
	if k := len(s.buckets); k > 0 && s.buckets[k-1].n < s.width {
		s.buckets[k-1].sum += l
		s.buckets[k-1].n++
		return
	}
	limit := s.limit
	if limit == 0 {
		limit = maxLagBuckets
	}
	if len(s.buckets) >= limit {
		s.halve()
	}
	s.buckets = append(s.buckets, lagBucket{sum: l, n: 1})
}

// halve merges neighbouring buckets in pairs and doubles the width.
func (s *lagSeries) halve() {
	k := 0
	for i := 0; i < len(s.buckets); i += 2 {
		b := s.buckets[i]
		if i+1 < len(s.buckets) {
			b.sum += s.buckets[i+1].sum
			b.n += s.buckets[i+1].n
		}
		s.buckets[k] = b
		k++
	}
	s.buckets = s.buckets[:k]
	s.width *= 2
}

// joinLast replaces the last two intervals' lags with their joined
// interval's (a short closing tail joins the interval before it). last
// and prev are the lags the two were added with.
func (s *lagSeries) joinLast(prev, last, joined time.Duration) {
	for _, l := range []time.Duration{last, prev} {
		k := len(s.buckets) - 1
		if k < 0 {
			return
		}
		s.buckets[k].sum -= l
		if s.buckets[k].n--; s.buckets[k].n == 0 {
			s.buckets = s.buckets[:k]
		}
	}
	s.add(joined)
}

func (s *lagSeries) count() int {
	n := 0
	for _, b := range s.buckets {
		n += b.n
	}
	return n
}

// meanFirst is the mean of the first n intervals' lags, meanLast of the
// last n. Exact while every bucket is one interval; a bucket that the
// boundary cuts counts with its mean for the intervals inside it.
func (s *lagSeries) meanFirst(n int) time.Duration {
	return s.mean(n, func(i int) lagBucket { return s.buckets[i] })
}

func (s *lagSeries) meanLast(n int) time.Duration {
	return s.mean(n, func(i int) lagBucket { return s.buckets[len(s.buckets)-1-i] })
}

func (s *lagSeries) mean(n int, at func(int) lagBucket) time.Duration {
	if n <= 0 {
		return 0
	}
	var sum float64
	left := n
	for i := 0; i < len(s.buckets) && left > 0; i++ {
		b := at(i)
		take := min(b.n, left)
		sum += float64(b.sum) * float64(take) / float64(b.n)
		left -= take
	}
	return time.Duration(sum / float64(n-left))
}
