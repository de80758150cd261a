package changepoint

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// noise draws a multiplicative noise factor.
type noise struct {
	name  string
	level float64 // the noise's coefficient of variation, roughly
	draw  func(r *rand.Rand, level float64) float64
}

var (
	// normal: value × (1 + level·Z).
	normal = func(r *rand.Rand, level float64) float64 { return 1 + level*r.NormFloat64() }
	// longTailed: lognormal, with one value in 50 a spike of 1.5–3×, as
	// latency percentiles go on a shared machine.
	longTailed = func(r *rand.Rand, level float64) float64 {
		v := math.Exp(level * r.NormFloat64())
		if r.IntN(50) == 0 {
			v *= 1.5 + 1.5*r.Float64()
		}
		return v
	}
)

// series is a synthetic nightly series: base 100, a step of the given
// relative size at each change (alternating up and down, so the level
// stays near 100), noise on every value.
func series(r *rand.Rand, n int, changes []int, step float64, nz noise) []float64 {
	x := make([]float64, n)
	level := 100.0
	next := 0
	for i := range x {
		if next < len(changes) && i == changes[next] {
			if next%2 == 0 {
				level *= 1 + step
			} else {
				level /= 1 + step
			}
			next++
		}
		x[i] = level * nz.draw(r, nz.level)
	}
	return x
}

// score counts detections within margin of a true change (each true
// change matched once).
func score(found []Point, truth []int, margin int) (hits, falses int) {
	used := make([]bool, len(truth))
	for _, p := range found {
		matched := false
		for i, c := range truth {
			if !used[i] && abs(p.Index-c) <= margin {
				used[i], matched = true, true
				break
			}
		}
		if matched {
			hits++
		} else {
			falses++
		}
	}
	return hits, falses
}

type figures struct {
	precision, recall, exact float64
	delay                    float64 // mean values between a change and its acceptance
	aaSeries                 float64 // share of A/A series with a false alarm
	aaPerNight               float64 // false alarms per night of A/A
}

// evaluate runs the detector on trials series of 120 nights with changes
// at 30, 60 and 90, and on trials A/A series of 120 nights.
func evaluate(seed uint64, trials int, step float64, nz noise, o Options) figures {
	r := rand.New(rand.NewPCG(seed, 2))
	truth := []int{30, 60, 90}
	hits, falses, exact, found, delay := 0, 0, 0, 0, 0
	for range trials {
		x := series(r, 120, truth, step, nz)
		ps := Detect(x, o)
		h, f := score(ps, truth, 2)
		hits, falses = hits+h, falses+f
		e, _ := score(ps, truth, 0)
		exact += e
		for _, p := range ps {
			found++
			delay += p.Found - p.Index
		}
	}
	var f figures
	if hits+falses > 0 {
		f.precision = float64(hits) / float64(hits+falses)
	}
	f.recall = float64(hits) / float64(trials*len(truth))
	f.exact = float64(exact) / float64(trials*len(truth))
	if found > 0 {
		f.delay = float64(delay) / float64(found)
	}
	alarmed, alarms := 0, 0
	for range trials {
		ps := Detect(series(r, 120, nil, 0, nz), o)
		alarms += len(ps)
		if len(ps) > 0 {
			alarmed++
		}
	}
	f.aaSeries = float64(alarmed) / float64(trials)
	f.aaPerNight = float64(alarms) / float64(trials*120)
	return f
}

// TestDetectorPrecisionRecall measures the detector on synthetic series
// with known change points: steps of 10% under normal and long-tailed
// noise of several levels, and A/A series with no change. The figures
// are logged (go test -v -run TestDetectorPrecisionRecall) and the
// bounds below hold them.
func TestDetectorPrecisionRecall(t *testing.T) {
	if testing.Short() {
		t.Skip("measures 1,200 series")
	}
	cases := []struct {
		nz                      noise
		minPrecision, minRecall float64
		maxAA                   float64
	}{
		{noise{"normal", 0.01, normal}, 0.95, 0.97, 0.12},
		{noise{"normal", 0.025, normal}, 0.95, 0.95, 0.12},
		{noise{"normal", 0.05, normal}, 0.8, 0.8, 0.12},
		{noise{"long-tailed", 0.01, longTailed}, 0.95, 0.95, 0.12},
		{noise{"long-tailed", 0.025, longTailed}, 0.9, 0.9, 0.12},
		{noise{"long-tailed", 0.05, longTailed}, 0.75, 0.75, 0.12},
	}
	for _, c := range cases {
		f := evaluate(7, 100, 0.10, c.nz, Options{})
		t.Logf("10%% steps, %-11s noise %4.1f%%: precision %.3f recall %.3f (exact index %.3f), accepted %.1f nights after the change; A/A: %.3f of series with a false alarm, %.4f per night",
			c.nz.name, 100*c.nz.level, f.precision, f.recall, f.exact, f.delay, f.aaSeries, f.aaPerNight)
		if f.precision < c.minPrecision || f.recall < c.minRecall || f.aaSeries > c.maxAA {
			t.Errorf("%s %.1f%%: precision %.3f (want ≥ %.2f), recall %.3f (want ≥ %.2f), A/A series alarmed %.3f (want ≤ %.2f)",
				c.nz.name, 100*c.nz.level, f.precision, c.minPrecision, f.recall, c.minRecall, f.aaSeries, c.maxAA)
		}
	}
}

func TestDetectFindsAStep(t *testing.T) {
	x := make([]float64, 40)
	for i := range x {
		x[i] = 100 + float64(i%3)
		if i >= 25 {
			x[i] += 20
		}
	}
	ps := Detect(x, Options{})
	if len(ps) != 1 || ps[0].Index != 25 {
		t.Fatalf("change points %+v, want one at 25", ps)
	}
	p := ps[0]
	if p.Stats.Before.N != 25 || p.Stats.After.N != 15 || p.Stats.P > DefaultP {
		t.Errorf("stats %+v", p.Stats)
	}
	if c, want := p.Stats.Change(), p.Stats.After.Mean/p.Stats.Before.Mean-1; c != want || c < 0.19 || c > 0.2 {
		t.Errorf("change %v, want %v, about 20/101", c, want)
	}
}

func TestDetectIsDeterministic(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 3))
	x := series(r, 200, []int{40, 90, 150}, 0.08, noise{"long-tailed", 0.03, longTailed})
	first := Detect(x, Options{})
	for range 5 {
		if again := Detect(slices.Clone(x), Options{}); !slices.Equal(indexes(again), indexes(first)) || fmt.Sprint(again) != fmt.Sprint(first) {
			t.Fatalf("two answers: %v and %v", indexes(first), indexes(again))
		}
	}
}

// TestAppendingNeverMovesAnOlderChangePoint appends nights one at a time
// to noisy series and checks that every change point found before is
// found again, at the same index, after each night.
func TestAppendingNeverMovesAnOlderChangePoint(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 8))
	for trial := range 20 {
		nz := noise{"normal", 0.04, normal}
		if trial%2 == 1 {
			nz = noise{"long-tailed", 0.04, longTailed}
		}
		x := series(r, 150, []int{35, 70, 110}, 0.07, nz)
		var before []int
		for n := 1; n <= len(x); n++ {
			now := indexes(Detect(x[:n], Options{}))
			if len(now) < len(before) || !slices.Equal(now[:len(before)], before) {
				t.Fatalf("trial %d: after night %d change points %v, before it %v", trial, n, now, before)
			}
			before = now
		}
	}
}

func indexes(ps []Point) []int {
	out := make([]int, len(ps))
	for i, p := range ps {
		out[i] = p.Index
	}
	return out
}

func TestMinMagnitudeDropsSmallChanges(t *testing.T) {
	x := make([]float64, 60)
	for i := range x {
		x[i] = 100 + 0.1*float64(i%2)
		if i >= 30 {
			x[i] += 2 // 2%: significant, small
		}
	}
	if ps := Detect(x, Options{}); len(ps) != 1 {
		t.Fatalf("no minimum magnitude: %v, want the 2%% step", indexes(ps))
	}
	if ps := Detect(x, Options{MinMagnitude: 0.05}); len(ps) != 0 {
		t.Fatalf("minimum magnitude 5%%: %v, want none", indexes(ps))
	}
}

// candidateFigures are the candidates' own: how soon after a step one is
// raised (median nights from the step), the share of raised candidates
// that are near a true change, and the share of A/A series that raise
// one.
type candidateFigures struct {
	medianDelay, precision, aaSeries float64
	medianConfirm                    float64
}

// raised lists each candidate episode once: its index and the night it
// was first raised (a candidate within margin of an earlier one is the
// same episode).
func raised(x []float64, o Options) (eps [][2]int, accepted []Point) {
	accepted, _ = Watch(context.Background(), x, o, func(n int, _ []Point, cs []Candidate) {
		for _, c := range cs {
			seen := false
			for _, e := range eps {
				seen = seen || abs(e[0]-c.Index) <= 2
			}
			if !seen {
				eps = append(eps, [2]int{c.Index, n})
			}
		}
	})
	return eps, accepted
}

func evaluateCandidates(seed uint64, trials int, step float64, nz noise, o Options) candidateFigures {
	r := rand.New(rand.NewPCG(seed, 2))
	truth := []int{30, 60, 90}
	var delays, confirms []float64
	good, all := 0, 0
	for range trials {
		eps, acc := raised(series(r, 120, truth, step, nz), o)
		for _, c := range truth {
			for _, e := range eps {
				if abs(e[0]-c) <= 2 {
					delays = append(delays, float64(e[1]-c))
					break
				}
			}
			for _, p := range acc {
				if abs(p.Index-c) <= 2 {
					confirms = append(confirms, float64(p.Found-c))
					break
				}
			}
		}
		for _, e := range eps {
			all++
			for _, c := range truth {
				if abs(e[0]-c) <= 2 {
					good++
					break
				}
			}
		}
	}
	var f candidateFigures
	slices.Sort(delays)
	slices.Sort(confirms)
	if len(delays) > 0 {
		f.medianDelay = delays[len(delays)/2]
	}
	if len(confirms) > 0 {
		f.medianConfirm = confirms[len(confirms)/2]
	}
	if all > 0 {
		f.precision = float64(good) / float64(all)
	}
	alarmed := 0
	for range trials {
		if eps, _ := raised(series(r, 120, nil, 0, nz), o); len(eps) > 0 {
			alarmed++
		}
	}
	f.aaSeries = float64(alarmed) / float64(trials)
	return f
}

// TestCandidatesWithinThreeNights measures the candidates on the same
// synthetic series as TestDetectorPrecisionRecall: a 10% step is raised
// as a candidate a median of at most three nights after it, confirmed
// later, and the candidates' precision and A/A alarms stay bounded.
func TestCandidatesWithinThreeNights(t *testing.T) {
	if testing.Short() {
		t.Skip("measures 1,200 series")
	}
	for _, c := range []struct {
		nz           noise
		minPrecision float64
		maxAA        float64
	}{
		{noise{"normal", 0.01, normal}, 0.9, 0.2},
		{noise{"normal", 0.025, normal}, 0.9, 0.2},
		{noise{"normal", 0.05, normal}, 0.6, 0.3},
		{noise{"long-tailed", 0.01, longTailed}, 0.9, 0.2},
		{noise{"long-tailed", 0.025, longTailed}, 0.85, 0.2},
		{noise{"long-tailed", 0.05, longTailed}, 0.6, 0.3},
	} {
		f := evaluateCandidates(7, 100, 0.10, c.nz, Options{})
		t.Logf("10%% steps, %-11s noise %4.1f%%: candidate a median %.0f nights after the step, confirmed %.0f; candidates' precision %.3f; A/A: %.3f of series with a candidate",
			c.nz.name, 100*c.nz.level, f.medianDelay, f.medianConfirm, f.precision, f.aaSeries)
		if c.nz.level <= 0.025 && f.medianDelay > 3 {
			t.Errorf("%s %.1f%%: candidate a median %.0f nights after the step, want at most 3", c.nz.name, 100*c.nz.level, f.medianDelay)
		}
		if f.precision < c.minPrecision || f.aaSeries > c.maxAA {
			t.Errorf("%s %.1f%%: candidates' precision %.3f (want ≥ %.2f), A/A series with a candidate %.3f (want ≤ %.2f)",
				c.nz.name, 100*c.nz.level, f.precision, c.minPrecision, f.aaSeries, c.maxAA)
		}
	}
}

// A clean step is raised three nights after it, stays open until it is
// confirmed, and then is a change point, not a candidate; watching the
// nights changes no change point.
func TestCandidateRaisedThenConfirmed(t *testing.T) {
	x := make([]float64, 60)
	for i := range x {
		x[i] = 100 + float64(i%3)
		if i >= 40 {
			x[i] = 120 + float64(i%3)
		}
	}
	raisedAt, confirmedAt := -1, -1
	got, _ := Watch(context.Background(), x, Options{}, func(n int, acc []Point, cs []Candidate) {
		for _, c := range cs {
			if c.Index != 40 {
				t.Fatalf("night %d: candidate at %d, want 40", n, c.Index)
			}
			if raisedAt < 0 {
				raisedAt = n
			}
		}
		if len(acc) > 0 && confirmedAt < 0 {
			confirmedAt = n
			if len(cs) > 0 {
				t.Errorf("night %d: confirmed and still a candidate: %+v", n, cs)
			}
		}
		if raisedAt > 0 && confirmedAt < 0 && len(cs) == 0 {
			t.Errorf("night %d: the candidate vanished before it was confirmed", n)
		}
	})
	if raisedAt != 43 {
		t.Errorf("raised after %d values, want 43 (three nights after the step)", raisedAt)
	}
	if len(got) != 1 || got[0].Index != 40 || got[0].Found != confirmedAt {
		t.Fatalf("change points %+v, want one at 40 found on night %d", got, confirmedAt)
	}
	if want := Detect(x, Options{}); !slices.EqualFunc(want, got, func(a, b Point) bool { return a.Index == b.Index && a.Found == b.Found }) {
		t.Errorf("Watch %+v, Detect %+v: watching changed the change points", got, want)
	}
}

func TestTailP(t *testing.T) {
	// 25 values, then 3 beyond them all: 2·3!·25!/28!.
	if got, want := TailP(25, 3), 2*6.0/(28*27*26); math.Abs(got-want) > 1e-15 {
		t.Errorf("TailP(25, 3) = %v, want %v", got, want)
	}
	if TailP(1, 1) != 1 {
		t.Errorf("TailP(1, 1) = %v, want 1 (capped)", TailP(1, 1))
	}
}

// qhat's sums kept as τ moves give the statistic of its definition: the
// split it returns has the largest q̂ computed directly, over series of
// normal values, of few distinct values (ties) and with a step.
func TestQhatIsTheDefinition(t *testing.T) {
	direct := func(x []float64, tau int) float64 {
		l, r := x[:tau], x[tau:]
		m, k := float64(len(l)), float64(len(r))
		cross, wl, wr := 0.0, 0.0, 0.0
		for _, a := range l {
			for _, b := range r {
				cross += math.Abs(a - b)
			}
		}
		for i := range l {
			for j := i + 1; j < len(l); j++ {
				wl += math.Abs(l[i] - l[j])
			}
		}
		for i := range r {
			for j := i + 1; j < len(r); j++ {
				wr += math.Abs(r[i] - r[j])
			}
		}
		return m * k / (m + k) * (2*cross/(m*k) - wl/(m*(m-1)/2) - wr/(k*(k-1)/2))
	}
	rng := rand.New(rand.NewPCG(3, 4))
	for trial := range 150 {
		n := 10 + rng.IntN(70)
		x := make([]float64, n)
		for i := range x {
			switch trial % 3 {
			case 0:
				x[i] = 1000 + 10*rng.NormFloat64()
			case 1:
				x[i] = float64(rng.IntN(4))
			default:
				x[i] = 1e5 + 50*float64(i*2/n) + rng.NormFloat64()
			}
		}
		tau, q, ok := qhat(x, 5)
		best := math.Inf(-1)
		for t := 5; t <= n-5; t++ {
			best = max(best, direct(x, t))
		}
		tol := 1e-9 * (1 + math.Abs(best))
		if !ok || math.Abs(q-best) > tol || math.Abs(direct(x, tau)-best) > tol {
			t.Fatalf("trial %d: qhat %d %g (%v), want the largest q̂ %g", trial, tau, q, ok, best)
		}
	}
}
