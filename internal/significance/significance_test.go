package significance

import (
	"math"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/result"
)

// The reference p-values below were computed with SciPy 1.17.1's
// scipy.stats.mannwhitneyu (alternative="two-sided"; method "exact" for
// the samples without ties, "asymptotic" with use_continuity=True for
// those with ties) and scipy.stats.ttest_ind (equal variances). The two
// exact values of separated samples are also the published ones (R's
// wilcox.test gives p = 0.1 for 1:3 against 4:6, i.e. 2/C(6,3), and
// p = 0.007937 for 1:5 against 6:10, i.e. 2/C(10,5)).
var references = []struct {
	name   string
	x, y   []float64
	u, p   float64
	method Method
	t, tp  float64
}{
	{"sep3", []float64{1, 2, 3}, []float64{4, 5, 6}, 0, 0.1, Exact, -3.6742346141747673, 0.021311641128756713},
	{"sep5", []float64{1, 2, 3, 4, 5}, []float64{6, 7, 8, 9, 10}, 0, 0.007936507936507936, Exact, -5.0, 0.0010528257933665399},
	{"interleaved", []float64{1.1, 2.4, 3.3, 5.0, 6.2}, []float64{2.0, 3.9, 4.1, 7.5, 8.0}, 8, 0.42063492063492064, Exact, -1.0263385340699498, 0.33476137742305245},
	{"ties", []float64{1, 2, 2, 3, 3, 3, 4}, []float64{2, 3, 4, 4, 5, 5, 6}, 8.5, 0.043051432728945134, Normal, -2.5017235438103818, 0.027827268702317484},
	{"ties large", []float64{10, 11, 11, 12, 13, 13, 13, 14, 15, 16}, []float64{12, 13, 14, 14, 15, 15, 16, 17, 18, 19, 20}, 19.5, 0.013079258455526033, Normal, -2.9839060419223986, 0.007628626472697711},
	{"unequal", []float64{0.81, 0.92, 1.05, 1.10, 0.99, 0.87}, []float64{1.20, 1.31, 0.95, 1.44}, 3, 0.06666666666666667, Exact, -2.6943484166886935, 0.027312045622718006},
	// 20 and 25 normal values (numpy default_rng(7), rounded to 3 digits):
	// exact, as both are below 50.
	{"20x25", x20, y25, -1, 0.0037409693976484942, Exact, math.NaN(), math.NaN()},
}

var (
	x20 = []float64{10.001, 10.299, 9.726, 9.109, 9.545, 9.008, 10.06, 11.34, 9.508, 9.38, 10.49, 10.357, 10.105, 9.07, 9.971, 10.695, 8.656, 9.542, 8.099, 8.71}
	y25 = []float64{8.958, 10.565, 9.533, 11.071, 10.957, 10.613, 8.283, 10.261, 10.751, 10.913, 9.27, 10.322, 9.821, 9.991, 11.861, 9.992, 10.767, 11.684, 10.216, 10.688, 10.91, 10.864, 9.575, 10.876, 12.159}
)

func near(a, b, rel float64) bool {
	return math.Abs(a-b) <= rel*math.Max(math.Abs(b), 1e-300)
}

func TestMannWhitneyAgainstSciPy(t *testing.T) {
	for _, c := range references {
		got := MannWhitney(c.x, c.y)
		if c.u >= 0 && got.U != c.u {
			t.Errorf("%s: U = %v, want %v", c.name, got.U, c.u)
		}
		if got.Method != c.method {
			t.Errorf("%s: method %q, want %q", c.name, got.Method, c.method)
		}
		if !near(got.P, c.p, 1e-9) {
			t.Errorf("%s: p = %.17g, want %.17g (SciPy)", c.name, got.P, c.p)
		}
	}
}

func TestMannWhitneyNormalApproximationAgainstSciPy(t *testing.T) {
	// 50 values or more a side, without ties: the approximation.
	x := append(append([]float64{}, x20...), shift(x20, 100)...)
	x = append(x, shift(x20, 200)...) // 60 distinct values
	y := shift(y25, 0.0001)
	got := MannWhitney(x, y)
	if got.Method != Normal {
		t.Fatalf("60 values: method %q, want the normal approximation", got.Method)
	}
	// 20 against 25 without ties by the approximation: SciPy's
	// method="asymptotic" gives 0.004458176291700363.
	if p := normalP(x20, y25); !near(p, 0.004458176291700363, 1e-9) {
		t.Errorf("20x25 asymptotic p = %.17g, want 0.004458176291700363 (SciPy)", p)
	}
}

// normalP is the p-value of the normal approximation, whatever the
// samples' sizes.
func normalP(x, y []float64) float64 { return mannWhitney(x, y, 0).P }

func shift(x []float64, d float64) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = v + d
	}
	return out
}

func TestStudentTAgainstSciPy(t *testing.T) {
	for _, c := range references {
		if math.IsNaN(c.t) {
			continue
		}
		got := StudentT(c.x, c.y)
		if !near(got.T, c.t, 1e-9) || !near(got.P, c.tp, 1e-7) {
			t.Errorf("%s: t = %.17g p = %.17g, want t = %.17g p = %.17g (SciPy)", c.name, got.T, got.P, c.t, c.tp)
		}
	}
}

func TestSmallestPAndRunsNeeded(t *testing.T) {
	if p := SmallestP(3, 3); !near(p, 0.1, 1e-12) {
		t.Errorf("SmallestP(3,3) = %v, want 0.1", p)
	}
	if p := SmallestP(4, 4); !near(p, 2.0/70, 1e-12) {
		t.Errorf("SmallestP(4,4) = %v, want 2/70", p)
	}
	if n := RunsNeeded(0.05); n != 4 {
		t.Errorf("RunsNeeded(0.05) = %d, want 4 (2/C(8,4) = 0.029)", n)
	}
	if n := RunsNeeded(0.01); n != 5 {
		t.Errorf("RunsNeeded(0.01) = %d, want 5 (2/C(10,5) = 0.0079)", n)
	}
}

func TestMedianCI(t *testing.T) {
	x := []float64{5, 3, 9, 1, 7}
	if m := Median(x); m != 5 {
		t.Errorf("median %v, want 5", m)
	}
	if m := Median([]float64{4, 1, 3, 2}); m != 2.5 {
		t.Errorf("median %v, want 2.5", m)
	}
	// 5 values: the range, covering 1 − 2/32.
	ci := MedianCI(x, 0.95)
	if ci.Lo != 1 || ci.Hi != 9 || ci.Confidence != 0.9375 {
		t.Errorf("5 values: %+v, want [1, 9] at 0.9375", ci)
	}
	// 10 values: x(2)…x(9), covering 1 − 2·11/1024 = 0.978515625 (x(3)…x(8)
	// would cover 0.890625, below 95%).
	ten := []float64{10, 1, 9, 2, 8, 3, 7, 4, 6, 5}
	ci = MedianCI(ten, 0.95)
	if ci.Lo != 2 || ci.Hi != 9 || ci.Confidence != 0.978515625 {
		t.Errorf("10 values: %+v, want [2, 9] at 0.978515625", ci)
	}
}

func TestRatioCISeededAndSensible(t *testing.T) {
	a := []float64{100, 102, 98, 101, 99, 100, 103}
	b := []float64{120, 118, 121, 119, 122, 120, 117}
	one := RatioCI(a, b, 0.95, 2000, 42)
	two := RatioCI(a, b, 0.95, 2000, 42)
	if one != two {
		t.Fatalf("same seed, different intervals: %+v and %+v", one, two)
	}
	if !(one.Lo > 1.12 && one.Hi < 1.28 && one.Lo <= 1.2 && one.Hi >= 1.2) {
		t.Errorf("ratio interval %+v, want around 1.2", one)
	}
	same := RatioCI(a, a, 0.95, 2000, 42)
	if !(same.Lo < 1 && same.Hi > 1) && !(same.Lo <= 1 && same.Hi >= 1) {
		t.Errorf("A/A ratio interval %+v should contain 1", same)
	}
}

func TestJudgeVerdicts(t *testing.T) {
	lat := Judge{MinEffect: 0.05, Better: LowerIsBetter}
	base := []float64{10.1, 10.3, 9.9, 10.0, 10.2}
	slower := []float64{12.1, 12.4, 11.9, 12.0, 12.2}
	if c := lat.Compare(base, slower); c.Verdict != Worse {
		t.Errorf("slower latency: %s (p %v), want worse", c.Verdict, c.Test.P)
	}
	if c := lat.Compare(slower, base); c.Verdict != Better {
		t.Errorf("faster latency: %s, want better", c.Verdict)
	}
	tput := Judge{MinEffect: 0.05, Better: HigherIsBetter}
	if c := tput.Compare(base, slower); c.Verdict != Better {
		t.Errorf("higher throughput: %s, want better", c.Verdict)
	}
	noisy := []float64{10.0, 10.25, 9.95, 10.15, 10.05}
	if c := lat.Compare(base, noisy); c.Verdict != Noise {
		t.Errorf("interleaved values: %s (p %v), want ~", c.Verdict, c.Test.P)
	}
	tiny := []float64{10.31, 10.33, 10.32, 10.34, 10.35}
	if c := lat.Compare(base, tiny); c.Verdict != Small {
		t.Errorf("2%% slower, significant: %s (p %v, delta %v), want small", c.Verdict, c.Test.P, c.Delta)
	}
	c := lat.Compare(base[:3], slower[:3])
	if c.Verdict != TooFew || c.Reason == "" {
		t.Errorf("3 runs a side: %s %q, want a refusal", c.Verdict, c.Reason)
	}
	if want := "needs at least 4 runs on each side"; !strings.Contains(c.Reason, want) {
		t.Errorf("refusal %q does not say %q", c.Reason, want)
	}
	if c := lat.Compare(nil, slower); c.Verdict != Missing {
		t.Errorf("no base values: %s, want missing", c.Verdict)
	}
}

func TestTableOfRuns(t *testing.T) {
	doc := func(rate float64) result.Doc {
		return result.Doc{Schedule: result.Schedule{AchievedRate: rate, SuccessRate: rate}}
	}
	var a, b []result.Doc
	for i, r := range []float64{1000, 1010, 990, 1005, 995} {
		a = append(a, doc(r))
		b = append(b, doc(r*0.8+0.1*float64(i)))
	}
	rows, err := Table(a, b, Settings{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].Metric.Name() != "throughput" || rows[1].Metric.Name() != "errors" {
		t.Fatalf("rows %+v", rows)
	}
	if rows[0].Verdict != Worse || rows[1].Verdict != Noise {
		t.Errorf("throughput %s, errors %s: want worse and ~", rows[0].Verdict, rows[1].Verdict)
	}
	if len(Regressions(rows)) != 1 {
		t.Errorf("regressions %v", Regressions(rows))
	}
	var b2 strings.Builder
	if err := WriteText(&b2, rows, "a", "b", Settings{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b2.String(), "worse") || !strings.Contains(b2.String(), "Mann–Whitney") || !strings.Contains(b2.String(), "Benjamini–Hochberg") {
		t.Errorf("table:\n%s", b2.String())
	}
	// Two metrics judged together: throughput's p (2/252) doubled.
	if !near(rows[0].P, 2*rows[0].Test.P, 1e-12) {
		t.Errorf("throughput adjusted p %v, want twice %v", rows[0].P, rows[0].Test.P)
	}
	rows, _ = Table(a[:2], b[:2], Settings{Seed: 1})
	if r := TextTable(rows, "a", "b").Rows()[0]; rows[0].Verdict != TooFew || !strings.Contains(r[7], "at least 4 runs") || r[5] != "—" {
		t.Errorf("two runs a side: %+v", rows[0])
	}
}

// 5,000 equal runs against 3 compute a p-value of 7.8e-123 (and 0 once
// adjusted): the table states the floor, and JSON gives it.
func TestPValuesAtTheirFloor(t *testing.T) {
	doc := func(rate float64) result.Doc {
		return result.Doc{Schedule: result.Schedule{AchievedRate: rate, SuccessRate: rate}}
	}
	var a, b []result.Doc
	for range 1000 { // a scale of the 5,000 runs
		a = append(a, doc(1000))
	}
	for range 3 {
		b = append(b, doc(2000))
	}
	rows, err := Table(a, b, Settings{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if rows[0].Test.P >= PFloor {
		t.Fatalf("throughput p %g: want the input to reach below the floor", rows[0].Test.P)
	}
	r := TextTable(rows, "a", "b").Rows()[0]
	if r[4] != "< 1e-16" || r[5] != "< 1e-16" {
		t.Errorf("p %q, adj. p %q: want both \"< 1e-16\"", r[4], r[5])
	}
	j, err := rows[0].MarshalJSON()
	if err != nil || !strings.Contains(string(j), `"p":1e-16`) || !strings.Contains(string(j), `"adjustedP":1e-16`) {
		t.Errorf("JSON %s (%v): want p and adjustedP at 1e-16", j, err)
	}
}

// Runs of no operations (achievedRate 0) have no error share: it is
// missing, never an infinite percentage; a stored figure that is no
// number is missing too.
func TestRunValuesOfNoOperations(t *testing.T) {
	v, err := RunValues(&result.Doc{Schedule: result.Schedule{AchievedRate: 0, SuccessRate: 5, FailedRate: 1}})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := v["errors"]; ok || v["throughput"] != 5 {
		t.Errorf("%v: want throughput 5 and no errors", v)
	}
	v, _ = RunValues(&result.Doc{Schedule: result.Schedule{AchievedRate: math.Inf(1), SuccessRate: math.NaN()}})
	for k, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			t.Errorf("%s = %v: want it missing", k, x)
		}
	}
}
