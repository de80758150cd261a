package ycsb

import (
	"math"
	"math/rand/v2"
	"testing"
)

func TestUniformBounds(t *testing.T) {
	counts := draw(t, Uniform{0, 9}, 10, 100_000, 1)
	for i, c := range counts {
		if tol := binomialTolerance(0.1, 100_000); math.Abs(float64(c)/100_000-0.1) > tol {
			t.Errorf("value %d: frequency %.4f, want 0.1 ± %.4f", i, float64(c)/100_000, tol)
		}
	}
}

func TestSequentialWraps(t *testing.T) {
	s := NewSequential(5, 7)
	if s.Last() != 4 {
		t.Fatalf("Last before Next = %d", s.Last())
	}
	var got []int64
	for range 7 {
		got = append(got, s.Next(nil))
	}
	want := []int64{5, 6, 7, 5, 6, 7, 5}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("sequence %v, want %v", got, want)
		}
	}
	if s.Last() != 5 {
		t.Fatalf("Last = %d, want 5", s.Last())
	}
}

func TestHotspot(t *testing.T) {
	const n = 1_000_000
	h := NewHotspot(0, 999, 0.2, 0.8)
	counts := draw(t, h, 1000, n, 3)
	var hot int64
	for _, c := range counts[:200] {
		hot += c
	}
	got := float64(hot) / n
	if tol := binomialTolerance(0.8, n); math.Abs(got-0.8) > tol {
		t.Fatalf("hot set share %.4f, want 0.8 ± %.4f", got, tol)
	}
	if counts[0] == 0 || counts[999] == 0 {
		t.Fatalf("an end of the range is never drawn")
	}
}

func TestHotspotOffsetAndDegenerate(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	h := NewHotspot(1099, 100, 0.2, 2) // swapped bounds; hotOpn out of range → 0
	for range 10_000 {
		if v := h.Next(r); v < 300 || v > 1099 {
			t.Fatalf("value %d outside the cold set [300, 1099]", v)
		}
	}
	all := NewHotspot(0, 9, 1, 0.5) // everything hot
	for range 1000 {
		if v := all.Next(r); v < 0 || v > 9 {
			t.Fatalf("value %d outside [0, 9]", v)
		}
	}
}

func TestDiscreteProportions(t *testing.T) {
	const n = 1_000_000
	weights := [5]float64{0.5, 0, 0.05, 0.3, 0.15}
	d := NewDiscrete(weights)
	if d.Len() != 4 {
		t.Fatalf("Len = %d, want 4 (zero weights are left out)", d.Len())
	}
	r := rand.New(rand.NewPCG(2, 2))
	var counts [5]int64
	for range n {
		counts[d.Next(r)]++
	}
	for op, w := range weights {
		got := float64(counts[op]) / n
		if tol := binomialTolerance(w, n); math.Abs(got-w) > tol || (w == 0 && counts[op] != 0) {
			t.Errorf("%v: share %.4f, want %.2f ± %.4f", Op(op), got, w, tol)
		}
	}
}

func TestDiscreteNormalizes(t *testing.T) {
	d := NewDiscrete([5]float64{3, 1})
	r := rand.New(rand.NewPCG(4, 4))
	reads := 0
	for range 100_000 {
		if d.Next(r) == Read {
			reads++
		}
	}
	if got, tol := float64(reads)/100_000, binomialTolerance(0.75, 100_000); math.Abs(got-0.75) > tol {
		t.Fatalf("read share %.4f, want 0.75 ± %.4f", got, tol)
	}
}

func TestOpNames(t *testing.T) {
	want := []string{"READ", "UPDATE", "INSERT", "SCAN", "READ-MODIFY-WRITE"}
	for i, w := range want {
		if Op(i).String() != w {
			t.Errorf("Op(%d) = %q, want %q", i, Op(i), w)
		}
	}
}

func TestFieldAndScanLengths(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 5))
	for _, dist := range []string{"constant", "uniform", "zipfian"} {
		p := Defaults()
		mustSet(t, &p, "fieldlengthdistribution", dist)
		g, err := p.FieldLengthGenerator()
		if err != nil {
			t.Fatal(err)
		}
		for range 10_000 {
			if v := g.Next(r); v < 1 || v > 100 || (dist == "constant" && v != 100) {
				t.Fatalf("%s field length %d", dist, v)
			}
		}
	}
	for _, dist := range []string{"uniform", "zipfian"} {
		p, _ := Preset("e")
		mustSet(t, &p, "scanlengthdistribution", dist)
		g, err := p.ScanLengthGenerator()
		if err != nil {
			t.Fatal(err)
		}
		seenMax := false
		for range 100_000 {
			v := g.Next(r)
			if v < 1 || v > 100 {
				t.Fatalf("%s scan length %d outside [1, 100]", dist, v)
			}
			seenMax = seenMax || v == 100
		}
		if !seenMax {
			t.Errorf("%s scan length never reaches maxscanlength", dist)
		}
	}
}
