package studyview

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mongobench/mongobench/internal/significance"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/texttable"
)

// profilesTable is the table WriteProfiles writes.
func profilesTable(ps []study.Profile) *table {
	cl := cells
	var ops []string
	for _, p := range ps {
		for _, o := range p.Ops {
			if !slices.Contains(ops, o.Name) {
				ops = append(ops, o.Name)
			}
		}
	}
	money := "$"
	for _, p := range ps {
		if p.Cost != nil {
			money = p.Money() // one currency: CompareSweeps refuses more
		}
	}
	cols := []string{"label", "sweep", ">steps", ">" + money + "/hour", ">saturation ops/s", ">at target/s"}
	for _, op := range ops {
		cols = append(cols, ">"+op+" ops/s")
	}
	t := newTable(append(cols, ">highest target held/s", ">ops per "+money)...)
	for _, p := range ps {
		sat := thousands(p.Saturation)
		if !p.Saturated {
			sat = "≥ " + sat
		}
		row := []string{p.Label, p.Sweep, strconv.Itoa(p.Steps), dollars(cl, p.Cost), sat, thousands(p.SaturationTarget)}
		for _, name := range ops {
			row = append(row, opRateCell(cl, p.Ops, name))
		}
		t.Add(append(row, optThousands(cl, p.MaxHeld), cl.Opt(p.OpsPerDollar, study.Compact))...)
	}
	return t
}

func ratioTable(p study.Pair) *table {
	cl := cells
	a, b := p.A, p.B
	t := newTable("", ">"+a.Label, ">"+b.Label, ">"+a.Label+" vs "+b.Label)
	t.Add("saturation ops/s", thousands(a.Saturation), thousands(b.Saturation), ratioCell(cl, p.Saturation))
	for _, o := range p.Ops {
		t.Add(o.Name+" ops/s at saturation", thousands(o.A), thousands(o.B), ratioCell(cl, o.Ratio))
	}
	t.Add("highest target held/s", optThousands(cl, a.MaxHeld), optThousands(cl, b.MaxHeld), optRatio(cl, a.MaxHeld, b.MaxHeld))
	money := a.Money()
	if a.Cost == nil {
		money = b.Money()
	}
	t.Add(money+"/hour", dollars(cl, a.Cost), dollars(cl, b.Cost), cl.Opt(p.Cost, study.SignedPercent))
	t.Add("ops per "+money, cl.Opt(a.OpsPerDollar, study.Compact), cl.Opt(b.OpsPerDollar, study.Compact), cl.Opt(p.PerDollar, study.Times))
	for _, at := range []struct {
		i    int
		what string
	}{{p.Below, "below saturation"}, {p.Above, "above saturation"}} {
		if at.i < 0 {
			continue
		}
		m := p.Matched[at.i]
		name := fmt.Sprintf("p99 ms %s (%s/s, %s)", at.what, thousands(m.Rate), m.Regime(a.Label, b.Label))
		pa, pb := m.A.P99(), m.B.P99()
		t.Add(name, cl.Num(pa), cl.Num(pb), optRatio(cl, pa, pb))
	}
	return t
}

// matchedTable lists the target rates both ran: each label's achieved
// rate and every operation type's p99, the p99 of A against B, and who
// kept up.
func matchedTable(p study.Pair) *table {
	cl := cells
	a, b := p.A.Label, p.B.Label
	var ops []string
	for _, m := range p.Matched {
		for _, s := range []study.Side{m.A, m.B} {
			for _, o := range s.Ops {
				if !slices.Contains(ops, o.Name) {
					ops = append(ops, o.Name)
				}
			}
		}
	}
	cols := []string{">target/s"}
	for _, l := range []string{a, b} {
		cols = append(cols, ">"+l+" achieved/s")
		for _, op := range ops {
			cols = append(cols, ">"+l+" "+op+" p99 ms")
		}
	}
	for _, op := range ops {
		cols = append(cols, ">"+op+" p99 "+a+" vs "+b)
	}
	t := newTable(append(cols, "who keeps up")...)
	for _, m := range p.Matched {
		row := []string{thousands(m.Rate)}
		for _, s := range []study.Side{m.A, m.B} {
			row = append(row, thousands(s.Achieved))
			for _, op := range ops {
				row = append(row, cl.Num(s.Op(op)))
			}
		}
		for _, op := range ops {
			row = append(row, optRatio(cl, m.A.Op(op), m.B.Op(op)))
		}
		t.Add(append(row, m.Regime(a, b))...)
	}
	return t
}

func opRateCell(cl texttable.Cells, ops []study.OpRate, name string) string {
	for _, o := range ops {
		if o.Name == name {
			return thousands(o.Rate)
		}
	}
	return cl.Missing
}

// ratioCell is a/b − 1 as a signed percentage; missing when b was 0.
func ratioCell(cl texttable.Cells, r float64) string {
	if r == 0 {
		return cl.Missing
	}
	return study.SignedPercent(r)
}

// optRatio is a/b − 1 as a signed percentage; missing when either is
// missing or b is 0.
func optRatio(cl texttable.Cells, a, b *float64) string {
	if a == nil || b == nil || *b == 0 {
		return cl.Missing
	}
	return study.SignedPercent(*a / *b)
}

func dollars(cl texttable.Cells, v *float64) string {
	if v == nil {
		return cl.Missing
	}
	return strconv.FormatFloat(*v, 'f', 2, 64)
}

// CompareTitle names a comparison, as in "r6g vs r5".
func CompareTitle(p study.Pair) string { return strings.Join([]string{p.A.Label, p.B.Label}, " vs ") }

// stepsTable lays out the judged steps: for each step and metric, A's and
// B's medians with their intervals and runs, A's difference, the p-value
// and the adjusted one, the bootstrap interval of A's median over B's,
// and A's verdict.
func stepsTable(p study.Pair) *table {
	a, b := p.A.Label, p.B.Label
	t := newTable(">target/s", "metric", ">"+a, ">"+b, ">"+a+" vs "+b, ">p", ">adj. p", ">ratio interval", "verdict of "+a)
	for _, s := range p.Steps {
		if !s.Judged() {
			continue
		}
		for _, r := range s.Rows {
			t.Add(thousands(s.Rate), r.Metric.Name(), sideText(r.Other, r.Metric.Unit), sideText(r.Base, r.Metric.Unit),
				study.DeltaText(r.Comparison), pText(r.Comparison, r.Test.P), pText(r.Comparison, r.P), ratioText(r.Ratio), significance.VerdictText(r.Comparison))
		}
	}
	return t
}

func sideText(s significance.Side, unit string) string {
	if s.N == 0 {
		return "—"
	}
	return fmt.Sprintf("%s [%s, %s] %s (%d)", texttable.Sig3(s.Median), texttable.Sig3(s.CI.Lo), texttable.Sig3(s.CI.Hi), unit, s.N)
}

func ratioText(i significance.Interval) string {
	if i.Lo != i.Lo {
		return "—"
	}
	return fmt.Sprintf("%.3f–%.3f", i.Lo, i.Hi)
}

func pText(c significance.Comparison, p float64) string {
	if c.Verdict == significance.Missing || p != p {
		return "—"
	}
	return fmt.Sprintf("%.3g", p)
}
