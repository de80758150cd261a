package significance

import "math"

// TTest is Student's two-sample t-test (pooled variance), two-sided.
type TTest struct {
	T, DF, P float64
}

// StudentT tests whether x and y have the same mean, assuming a common
// variance (sample variances, n−1). With fewer than three values in all,
// or no variance at all, P is 1 unless the means differ with no
// variance, when it is 0.
func StudentT(x, y []float64) TTest {
	n1, n2 := float64(len(x)), float64(len(y))
	if n1 == 0 || n2 == 0 || n1+n2 < 3 {
		return TTest{P: 1}
	}
	m1, v1 := meanVar(x)
	m2, v2 := meanVar(y)
	df := n1 + n2 - 2
	pooled := ((n1-1)*v1 + (n2-1)*v2) / df
	se := math.Sqrt(pooled * (1/n1 + 1/n2))
	if se == 0 {
		if m1 == m2 {
			return TTest{DF: df, P: 1}
		}
		return TTest{T: math.Inf(sign(m1 - m2)), DF: df, P: 0}
	}
	t := (m1 - m2) / se
	return TTest{T: t, DF: df, P: StudentTwoSided(t, df)}
}

func sign(v float64) int {
	if v < 0 {
		return -1
	}
	return 1
}

// meanVar is the mean and the sample variance (n−1; 0 for one value).
func meanVar(x []float64) (float64, float64) {
	m := 0.0
	for _, v := range x {
		m += v
	}
	m /= float64(len(x))
	if len(x) < 2 {
		return m, 0
	}
	ss := 0.0
	for _, v := range x {
		ss += (v - m) * (v - m)
	}
	return m, ss / float64(len(x)-1)
}

// StudentTwoSided is P(|T| ≥ |t|) for Student's t with df degrees of
// freedom: I_{df/(df+t²)}(df/2, 1/2).
func StudentTwoSided(t, df float64) float64 {
	if math.IsInf(t, 0) {
		return 0
	}
	return RegIncBeta(df/2, 0.5, df/(df+t*t))
}

// RegIncBeta is the regularized incomplete beta function I_x(a, b),
// by the continued fraction (modified Lentz), on the side where it
// converges fast.
func RegIncBeta(a, b, x float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	la, _ := math.Lgamma(a + b)
	lb, _ := math.Lgamma(a)
	lc, _ := math.Lgamma(b)
	front := math.Exp(la - lb - lc + a*math.Log(x) + b*math.Log1p(-x))
	if x < (a+1)/(a+b+2) {
		return front * betaFraction(a, b, x) / a
	}
	return 1 - front*betaFraction(b, a, 1-x)/b
}

func betaFraction(a, b, x float64) float64 {
	const tiny, eps = 1e-300, 1e-15
	c, d := 1.0, 1-(a+b)*x/(a+1)
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	for m := 1; m <= 10000; m++ {
		fm := float64(m)
		num := fm * (b - fm) * x / ((a + 2*fm - 1) * (a + 2*fm))
		d, c = 1+num*d, 1+num/c
		if math.Abs(d) < tiny {
			d = tiny
		}
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		h *= d * c
		num = -(a + fm) * (a + b + fm) * x / ((a + 2*fm) * (a + 2*fm + 1))
		d, c = 1+num*d, 1+num/c
		if math.Abs(d) < tiny {
			d = tiny
		}
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		delta := d * c
		h *= delta
		if math.Abs(delta-1) < eps {
			break
		}
	}
	return h
}
