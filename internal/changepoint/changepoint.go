// Package changepoint finds where a series of nightly figures changed:
// a deterministic E-Divisive means with Student's t-test (on ranks, so
// that a spike of a long-tailed series does not hide a step) as its
// significance test, windowed, with the weak-then-merge pass (the
// approach of Hunter and Apache Otava: candidates split at a weak
// threshold, ten times the p-value, then the weakest merged away until
// every change point left holds at the p-value and is at least the
// minimum magnitude).
//
// The series is read as nights arrive: after each value, the stretch
// since the last accepted change point (at most a window of values) is
// split and merged, and a change point found there at the same index
// on Confirm nights in a row is accepted for good. What is accepted
// after n values depends on the first n values only, so appending a
// night never moves or removes an older change point. Looking again
// every night tests more often than one pass over a finished series
// does; the confirmation and the minimum of values on each side
// (MinSize) bring the false alarms on series without a change back to
// those of one pass (see the package's tests for the figures).
//
// Confirmation takes about nine nights, so a step is also raised as a
// candidate as soon as three nights after it all leave the range the
// series had (an exact permutation test: Watch). A candidate may still
// be withdrawn; a confirmed change point never moves. The package is
// pure: no I/O, no randomness.
package changepoint

import (
	"context"
	"maps"
	"math"
	"slices"

	"github.com/mongobench/mongobench/internal/significance"
)

// Defaults, as Hunter's and Otava's.
const (
	DefaultWindow  = 50
	DefaultP       = 0.001
	DefaultMinSize = 5
	DefaultConfirm = 5
	// DefaultCandidateAfter: a step is a candidate three nights after it.
	DefaultCandidateAfter = 3
)

// Options tune the detector; zero values take the defaults.
type Options struct {
	// Window is the most values a split looks at, before and after.
	Window int
	// P is the largest p-value of the t-test for a change point.
	P float64
	// MinMagnitude is the smallest relative change of means a change
	// point must have (0.05: 5%); 0 keeps every significant one.
	MinMagnitude float64
	// MinSize is the fewest values on each side of a change point.
	MinSize int
	// Confirm is how many nights in a row a change point must be found,
	// at the same index, before it is accepted.
	Confirm int
	// CandidateAfter is the fewest values after a change for it to be
	// raised as a candidate (reported, not yet confirmed).
	CandidateAfter int
}

func (o Options) withDefaults() Options {
	if o.Window <= 0 {
		o.Window = DefaultWindow
	}
	if o.P <= 0 {
		o.P = DefaultP
	}
	if o.MinSize <= 0 {
		o.MinSize = DefaultMinSize
	}
	if o.Confirm <= 0 {
		o.Confirm = DefaultConfirm
	}
	if o.CandidateAfter <= 0 {
		o.CandidateAfter = DefaultCandidateAfter
	}
	if o.Window < 2*o.MinSize {
		o.Window = 2 * o.MinSize
	}
	return o
}

// Stats compare the values before and after a change point: those since
// the previous change point and until the next one, at most a window of
// each. P is Student's t-test on the two sides' ranks (the values'
// midranks among both sides).
type Stats struct {
	Before, After Side
	P             float64 // Student's t-test on ranks, two-sided
}

// Side is one side's summary.
type Side struct {
	N         int
	Mean, Std float64
	Min, Max  float64
	Median    float64
}

// Change is the relative change of the means, after/before − 1 (NaN
// when the mean before is 0).
func (s Stats) Change() float64 {
	if s.Before.Mean == 0 {
		return math.NaN()
	}
	return s.After.Mean/s.Before.Mean - 1
}

// Magnitude is the larger of the forward and backward relative changes,
// so a halving and a doubling weigh alike (Hunter's measure).
func (s Stats) Magnitude() float64 {
	if s.Before.Mean == 0 || s.After.Mean == 0 {
		if s.Before.Mean == s.After.Mean {
			return 0
		}
		return math.Inf(1)
	}
	return math.Max(math.Abs(s.After.Mean/s.Before.Mean-1), math.Abs(s.Before.Mean/s.After.Mean-1))
}

// Point is a change point.
type Point struct {
	// Index is the first value after the change.
	Index int
	// Found is how many values the series had when the change point was
	// accepted (Index < Found).
	Found int
	Stats Stats
}

// Detect finds the change points of x, oldest first.
func Detect(x []float64, o Options) []Point {
	p, _ := Watch(context.Background(), x, o, nil)
	return p
}

// DetectContext is Detect, stopped with ctx's error when ctx is done
// (it looks again after each value: a look is at most a window's work).
func DetectContext(ctx context.Context, x []float64, o Options) ([]Point, error) {
	return Watch(ctx, x, o, nil)
}

// Watch finds the change points of x as Detect does, reading it night by
// night, and after each night n (x[:n] read) hands night the change
// points accepted so far and the candidates open then. A candidate is
// what a person is told before a change is confirmed: a step is raised
// CandidateAfter nights after it when those nights all left the range
// the series had, kept open while the values after it still differ, and
// then confirmed (accepted, never moved again) or withdrawn. A nil night
// only detects; the change points are the same either way. It stops
// with ctx's error when ctx is done (it looks after each value).
func Watch(ctx context.Context, x []float64, o Options, night func(n int, accepted []Point, candidates []Candidate)) ([]Point, error) {
	o = o.withDefaults()
	var accepted []Point
	var open []Candidate
	start := 0
	streak := map[int]int{} // nights in a row each split was found
	for n := 2; n <= len(x); n++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if lo := max(start, n-o.Window); n-lo >= 2*o.MinSize {
			seg := x[lo:n]
			next := map[int]int{}
			last := -1
			for _, cp := range merge(seg, split(seg, o), o) {
				at := lo + cp
				next[at] = streak[at] + 1
				if next[at] >= o.Confirm {
					last = at
				}
			}
			streak = next
			if last >= 0 {
				for _, at := range sortedKeys(next) {
					if at <= last && next[at] >= o.Confirm {
						accepted = append(accepted, Point{Index: at, Found: n})
					}
				}
				start, streak = last, map[int]int{}
			}
		}
		if night != nil {
			open = candidates(x[:n], start, accepted, open, o)
			night(n, accepted, open)
		}
	}
	idx := make([]int, len(accepted))
	for i, p := range accepted {
		idx[i] = p.Index
	}
	for i := range accepted {
		accepted[i].Stats = around(x, idx, i, o.Window)
	}
	return accepted, nil
}

// Candidate is a change not yet confirmed: the first value after it
// (Index), the night it was raised (Raised: how many values the series
// had then) and its values before and after as of the latest night. It
// may still be withdrawn; a confirmed change point never moves.
type Candidate struct {
	Index  int
	Raised int
	Stats  Stats
}

// candidateKeepP is the largest p-value at which an open candidate
// with at least MinSize values after it stays open: its newest MinSize
// values must still differ from those before it.
const candidateKeepP = 0.01

// candidates carries the open candidates to the last value of x: each
// kept while it is not confirmed (an accepted change point within two
// values of it), its values after still differ from those before, and
// it has not waited past the nights a confirmation takes; then, when
// none is open, a new tail candidate if the series' newest values raise
// one.
func candidates(x []float64, start int, accepted []Point, open []Candidate, o Options) []Candidate {
	n := len(x)
	var out []Candidate
	for _, c := range open {
		if c.Index <= start || confirmed(c.Index, accepted) {
			continue
		}
		after := n - c.Index
		lo := max(start, c.Index-o.Window)
		before := x[lo:c.Index]
		c.Stats = compare(before, x[c.Index:min(n, c.Index+o.Window)])
		if after > 2*(o.MinSize+o.Confirm) {
			continue
		}
		if after >= o.MinSize {
			// The newest values must still differ from those before: a
			// few nights out of line that came back are no change.
			recent := compare(before, x[n-o.MinSize:])
			if recent.P > candidateKeepP || recent.Magnitude() <= o.MinMagnitude {
				continue
			}
		}
		out = append(out, c)
	}
	if len(out) > 0 {
		// One change at a time: until the open candidate is confirmed or
		// withdrawn, the values after it are its own, and a later tail
		// would be judged against values that already changed.
		return out
	}
	for k := o.CandidateAfter; k < o.MinSize; k++ {
		at := n - k
		lo := max(start, at-o.Window)
		if at-lo < o.MinSize || confirmed(at, accepted) {
			continue
		}
		before, after := x[lo:at], x[at:]
		if TailP(len(before), k) > o.P || !beyond(before, after) {
			continue
		}
		st := compare(before, after)
		if st.Magnitude() > o.MinMagnitude {
			out = append(out, Candidate{Index: at, Raised: n, Stats: st})
			break
		}
	}
	return out
}

func confirmed(at int, accepted []Point) bool {
	for _, p := range accepted {
		if abs(p.Index-at) <= 2 {
			return true
		}
	}
	return false
}

func abs(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// TailP is the chance, with no change, that the newest k of n+k values
// all lie beyond every one of the n before them, on either side: the
// exact permutation probability 2·k!·n!/(n+k)! of the k extreme ranks.
func TailP(n, k int) float64 {
	p := 2.0
	for i := 1; i <= k; i++ {
		p *= float64(i) / float64(n+i)
	}
	return min(p, 1)
}

// beyond says whether every value of after lies on one side of every
// value of before.
func beyond(before, after []float64) bool {
	bmin, bmax := slices.Min(before), slices.Max(before)
	amin, amax := slices.Min(after), slices.Max(after)
	return amin > bmax || amax < bmin
}

// around compares the values on each side of change point i of idx:
// back to the previous change point and on to the next, at most window
// values each.
func around(x []float64, idx []int, i, window int) Stats {
	lo, hi := 0, len(x)
	if i > 0 {
		lo = idx[i-1]
	}
	if i+1 < len(idx) {
		hi = idx[i+1]
	}
	lo = max(lo, idx[i]-window)
	hi = min(hi, idx[i]+window)
	return compare(x[lo:idx[i]], x[idx[i]:hi])
}

func compare(left, right []float64) Stats {
	l, r := ranks(left, right)
	return Stats{Before: side(left), After: side(right), P: significance.StudentT(l, r).P}
}

// ranks replaces the values of left and right by their midranks among
// both: the t-test on ranks (Conover and Iman's rank transform), which a
// single spike of a long-tailed series cannot swamp as it swamps the
// t-test on the values.
func ranks(left, right []float64) ([]float64, []float64) {
	all := append(append([]float64{}, left...), right...)
	idx := make([]int, len(all))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case all[a] < all[b]:
			return -1
		case all[a] > all[b]:
			return 1
		}
		return 0
	})
	rk := make([]float64, len(all))
	for i := 0; i < len(idx); {
		j := i + 1
		for j < len(idx) && all[idx[j]] == all[idx[i]] {
			j++
		}
		for k := i; k < j; k++ {
			rk[idx[k]] = float64(i+j+1) / 2
		}
		i = j
	}
	return rk[:len(left)], rk[len(left):]
}

func side(x []float64) Side {
	s := Side{N: len(x), Mean: math.NaN(), Std: math.NaN(), Min: math.NaN(), Max: math.NaN(), Median: math.NaN()}
	if len(x) == 0 {
		return s
	}
	sum := 0.0
	s.Min, s.Max = x[0], x[0]
	for _, v := range x {
		sum += v
		s.Min, s.Max = math.Min(s.Min, v), math.Max(s.Max, v)
	}
	s.Mean = sum / float64(len(x))
	ss := 0.0
	for _, v := range x {
		ss += (v - s.Mean) * (v - s.Mean)
	}
	s.Std = 0
	if len(x) > 1 {
		s.Std = math.Sqrt(ss / float64(len(x)-1))
	}
	s.Median = significance.Median(x)
	return s
}

// split is E-Divisive over seg: the split with the largest q̂ among the
// stretches between the change points found so far, accepted while its
// t-test (against its neighbouring change points) passes the weak
// threshold, ten times P. It returns the change points in order.
func split(seg []float64, o Options) []int {
	weak := math.Min(1, o.P*10)
	var cps []int
	type cand struct {
		at int
		q  float64
		ok bool
	}
	memo := map[[2]int]cand{}
	for {
		bounds := append(append([]int{0}, cps...), len(seg))
		best := cand{}
		bestK := -1
		for k := 0; k+1 < len(bounds); k++ {
			a, b := bounds[k], bounds[k+1]
			c, seen := memo[[2]int{a, b}]
			if !seen {
				at, q, ok := qhat(seg[a:b], o.MinSize)
				c = cand{at: a + at, q: q, ok: ok}
				memo[[2]int{a, b}] = c
			}
			if c.ok && (!best.ok || c.q > best.q) {
				best, bestK = c, k
			}
		}
		if !best.ok {
			return cps
		}
		a, b := bounds[bestK], bounds[bestK+1]
		if compare(seg[a:best.at], seg[best.at:b]).P > weak {
			return cps
		}
		cps = insert(cps, best.at)
	}
}

func insert(s []int, v int) []int {
	i := 0
	for i < len(s) && s[i] < v {
		i++
	}
	s = append(s, 0)
	copy(s[i+1:], s[i:])
	s[i] = v
	return s
}

// qhat finds the split τ of x (at least minSize values each side) with
// the largest E-Divisive statistic q̂(τ) = mn/(m+n) · (2/(mn) Σ|xᵢ−yⱼ| −
// C(m,2)⁻¹ Σ|xᵢ−xₖ| − C(n,2)⁻¹ Σ|yⱼ−yₗ|), α = 1; the first of equal ones.
// The sums of distances are kept as τ moves, each value's distances to
// those before it (a Fenwick tree over the values' ranks) and to all
// (prefix sums of the sorted values) found in O(log n): O(n log n) in
// all, so a look at a wide window stays cheap.
func qhat(x []float64, minSize int) (int, float64, bool) {
	n := len(x)
	if n < 2*minSize {
		return 0, 0, false
	}
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case x[a] < x[b]:
			return -1
		case x[a] > x[b]:
			return 1
		}
		return 0
	})
	rank := make([]int, n)
	pre := make([]float64, n+1) // prefix sums of the sorted values
	for r, i := range order {
		rank[i] = r
		pre[r+1] = pre[r] + x[i]
	}
	right := 0.0 // Σ|·| within the right: all of x at first
	for r := range n {
		right += x[order[r]] * float64(2*r-n+1)
	}
	left := fenwick{cnt: make([]int, n+1), sum: make([]float64, n+1)}
	cross, within := 0.0, 0.0 // Σ|x−y| across τ; Σ|·| within the left
	bestTau, bestQ, found := 0, 0.0, false
	for tau := 0; tau < n; tau++ {
		if tau >= minSize && n-tau >= minSize {
			m, k := float64(tau), float64(n-tau)
			q := 2 * cross / (m * k)
			if tau >= 2 {
				q -= within / (m * (m - 1) / 2)
			}
			if n-tau >= 2 {
				q -= right / (k * (k - 1) / 2)
			}
			q *= m * k / (m + k)
			if !found || q > bestQ {
				bestTau, bestQ, found = tau, q, true
			}
		}
		v, r := x[tau], rank[tau]
		// Distances from x[tau] to the values before it (col) and to all
		// others (all): those ranked below it, then those above.
		c, sm := left.upTo(r)
		col := v*float64(c) - sm + (left.total - sm) - v*float64(tau-c)
		all := v*float64(r) - pre[r] + (pre[n] - pre[r+1]) - v*float64(n-r-1)
		row := all - col // to the values after it
		cross += row - col
		within += col
		right -= row
		left.add(r, v)
	}
	return bestTau, bestQ, found
}

// fenwick counts and sums values by rank.
type fenwick struct {
	cnt   []int
	sum   []float64
	total float64
}

func (f *fenwick) add(rank int, v float64) {
	f.total += v
	for i := rank + 1; i < len(f.cnt); i += i & -i {
		f.cnt[i]++
		f.sum[i] += v
	}
}

// upTo is how many values of rank below r there are, and their sum.
func (f *fenwick) upTo(r int) (int, float64) {
	c, s := 0, 0.0
	for i := r; i > 0; i -= i & -i {
		c += f.cnt[i]
		s += f.sum[i]
	}
	return c, s
}

// merge removes the weakest change points, one at a time, recomputing
// their neighbours, until every one left has p ≤ P and a magnitude above
// MinMagnitude: the weakest is the one with the largest p-value while
// any is above P, then the one with the smallest magnitude.
func merge(seg []float64, cps []int, o Options) []int {
	for len(cps) > 0 {
		weakest, worstP := -1, -1.0
		for i := range cps {
			if s := aroundAll(seg, cps, i); s.P > worstP {
				weakest, worstP = i, s.P
			}
		}
		if worstP <= o.P {
			weakest = -1
			smallest := math.Inf(1)
			for i := range cps {
				if m := aroundAll(seg, cps, i).Magnitude(); m < smallest {
					weakest, smallest = i, m
				}
			}
			if smallest > o.MinMagnitude || (o.MinMagnitude == 0 && smallest >= 0) {
				return cps
			}
		}
		cps = append(cps[:weakest:weakest], cps[weakest+1:]...)
	}
	return cps
}

// aroundAll compares the values on each side of change point i of cps,
// from the previous change point to the next.
func aroundAll(seg []float64, cps []int, i int) Stats {
	lo, hi := 0, len(seg)
	if i > 0 {
		lo = cps[i-1]
	}
	if i+1 < len(cps) {
		hi = cps[i+1]
	}
	return compare(seg[lo:cps[i]], seg[cps[i]:hi])
}

func sortedKeys(m map[int]int) []int {
	return slices.Sorted(maps.Keys(m))
}
