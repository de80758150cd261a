package engine

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

func TestStagesStepsAndRamps(t *testing.T) {
	p, err := NewStages(
		Stage{Length: time.Second, From: 100, To: 100},   // 100 ops
		Stage{Length: 2 * time.Second, From: 0, To: 200}, // a ramp: 200 ops
		Stage{Length: time.Second, From: 50, To: 50},     // 50 ops, then 50/s on
	)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		n    int64
		want time.Duration
	}{
		{0, 0},
		{50, 500 * time.Millisecond},
		{100, time.Second}, // the ramp starts: 50·t² = k
		{150, time.Second + time.Second},
		{300, 3 * time.Second},
		{325, 3500 * time.Millisecond},
		{350, 4 * time.Second},
		{400, 5 * time.Second}, // past the last stage, its rate holds
	}
	for _, tc := range tests {
		if got := p.At(tc.n); absDur(got-tc.want) > time.Microsecond {
			t.Errorf("At(%d): got %v want %v", tc.n, got, tc.want)
		}
	}
	for n := int64(1); n < 500; n++ {
		if p.At(n) < p.At(n-1) {
			t.Fatalf("At(%d) = %v before At(%d) = %v", n, p.At(n), n-1, p.At(n-1))
		}
	}
}

func TestStagesRejectsBadStages(t *testing.T) {
	for _, s := range [][]Stage{nil, {{Length: 0, From: 1, To: 1}}, {{Length: time.Second, From: -1, To: 1}}, {{Length: time.Second, From: 1, To: math.Inf(1)}}} {
		if _, err := NewStages(s...); err == nil {
			t.Errorf("NewStages(%v): got nil error", s)
		}
	}
}

func TestStagesEndingAtZeroNeverComeAgain(t *testing.T) {
	p, err := NewStages(Stage{Length: time.Second, From: 10, To: 10}, Stage{Length: time.Second, From: 0, To: 0})
	if err != nil {
		t.Fatal(err)
	}
	if got := p.At(10); got != time.Second {
		t.Errorf("At(10): got %v, want 1s, where the first stage's count is reached", got)
	}
	if got := p.At(11); got != maxOffset {
		t.Errorf("At(11) after a final rate of 0: got %v, want never", got)
	}
}

func absDur(d time.Duration) time.Duration { return max(d, -d) }

// TestPoissonIsPureAndSeeded: the same seed gives the same schedule in any
// order of asking; another seed another schedule.
func TestPoissonIsPureAndSeeded(t *testing.T) {
	a, b, c := NewPoisson(1000, 7), NewPoisson(1000, 7), NewPoisson(1000, 8)
	const n = 5000
	seq := make([]time.Duration, n)
	for i := range seq {
		seq[i] = a.At(int64(i))
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		i := rng.IntN(n)
		if got := b.At(int64(i)); got != seq[i] {
			t.Fatalf("At(%d) asked out of order: got %v, in order %v", i, got, seq[i])
		}
	}
	same := 0
	for i := 1; i < n; i++ {
		if seq[i] < seq[i-1] {
			t.Fatalf("At(%d) = %v before At(%d) = %v", i, seq[i], i-1, seq[i-1])
		}
		if c.At(int64(i)) == seq[i] {
			same++
		}
	}
	if seq[0] != 0 || same > 10 {
		t.Errorf("At(0) = %v (want 0); %d of %d offsets equal under another seed", seq[0], same, n)
	}
}

// TestPoissonHasPoissonStatistics: gaps average 1/rate with the
// exponential's spread, and counts per window have variance equal to
// their mean.
func TestPoissonHasPoissonStatistics(t *testing.T) {
	const rate, n = 2000.0, 400_000
	p := NewPoisson(rate, 42)
	var sum, sq float64
	windows := map[int64]float64{}
	prev := p.At(0)
	for i := int64(1); i < n; i++ {
		at := p.At(i)
		g := (at - prev).Seconds()
		sum += g
		sq += g * g
		prev = at
		windows[int64(at/(50*time.Millisecond))]++
	}
	mean := sum / (n - 1)
	sd := math.Sqrt(sq/(n-1) - mean*mean)
	if math.Abs(mean*rate-1) > 0.01 || math.Abs(sd*rate-1) > 0.02 {
		t.Errorf("gaps: mean %.4g sd %.4g, want both 1/rate = %.4g", mean, sd, 1/rate)
	}
	var m, v float64
	k := float64(len(windows) - 1)
	for w, c := range windows {
		if w < int64(len(windows)-1) {
			m += c / k
		}
	}
	for w, c := range windows {
		if w < int64(len(windows)-1) {
			v += (c - m) * (c - m) / k
		}
	}
	if d := v / m; d < 0.85 || d > 1.15 {
		t.Errorf("counts per 50ms: mean %.1f variance %.1f, dispersion %.2f, want about 1", m, v, d)
	}
}

// TestPoissonReachesFarSlotsCheaply: a slot a trillion arrivals out costs
// the same few steps as the first.
func TestPoissonReachesFarSlotsCheaply(t *testing.T) {
	p := NewPoisson(1e6, 3)
	far := p.At(1e12)
	if want := 1e6 * time.Second; absDur(far-want) > want/1000 {
		t.Errorf("At(1e12) at 1e6/s: got %v, want about %v", far, want)
	}
	if p.At(1e12+1) < far {
		t.Errorf("At(1e12+1) before At(1e12)")
	}
}

// A long schedule names its first stages and counts the rest: the name
// is printed and stored with every run.
func TestStagesStringIsShort(t *testing.T) {
	st := make([]Stage, 1000)
	for i := range st {
		st[i] = Stage{Length: time.Second, From: 100, To: 100}
	}
	st[0].From = 0
	p, err := NewStages(st...)
	if err != nil {
		t.Fatal(err)
	}
	want := "stages 0→100/s over 1s, 100/s for 1s, 100/s for 1s, 100/s for 1s, 100/s for 1s, 100/s for 1s, 100/s for 1s, 100/s for 1s, … and 992 more stages"
	if got := p.String(); got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
}
