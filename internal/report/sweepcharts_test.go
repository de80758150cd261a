package report

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/mongobench/mongobench/internal/testsupport/golden"
)

func fp(v float64) *float64 { return &v }

// studyCurves is the published shape: r6g saturates near 64.8k ops/s, r5
// near 29.8k; points are out of target order, as an auto sweep makes them.
func studyCurves() []Curve {
	return []Curve{
		{Label: "r6g", Points: []CurvePoint{{10000, 10000, fp(1.6)}, {20000, 19990, fp(1.8)}, {40000, 39950, fp(2.6)},
			{80000, 64800, fp(380)}, {60000, 59800, fp(6.3)}, {70000, 64500, fp(350)}}},
		{Label: "r5", Points: []CurvePoint{{10000, 10000, fp(2.2)}, {20000, 19980, fp(3.1)}, {40000, 29700, fp(810)},
			{30000, 29800, fp(8.8)}, {35000, 29750, nil}}},
	}
}

func TestSweepChartsGolden(t *testing.T) {
	charts, err := SweepCharts("ycsb-f", studyCurves(), 20)
	if err != nil {
		t.Fatal(err)
	}
	if len(charts) != 2 || charts[0].Name != "sweep-throughput" || charts[1].Name != "sweep-p99" {
		t.Fatalf("got %d charts, want sweep-throughput and sweep-p99", len(charts))
	}
	if !bytes.Contains(charts[1].SVG, []byte(">SLA (p99)<")) {
		t.Error("sweep-p99: got no SLA line in the legend, want one at 20 ms")
	}
	for _, c := range charts {
		golden.Check(t, c.Name+".svg", c.SVG)
	}
}

func TestSweepCharts(t *testing.T) {
	noP99 := []Curve{{Label: "kv", Points: []CurvePoint{{100, 100, nil}, {200, 190, nil}}}}
	for _, tc := range []struct {
		name   string
		curves []Curve
		want   []string // chart names
		texts  []string // in every chart
	}{
		{"two labels", studyCurves(), []string{"sweep-throughput", "sweep-p99"}, []string{">r6g<", ">r5<", ">target ops/s<"}},
		{"no p99", noP99, []string{"sweep-throughput"}, []string{">kv<", "ideal (achieved = target)"}},
		{"no points", []Curve{{Label: "x"}}, nil, nil},
		{"no curves", nil, nil, nil},
	} {
		charts, err := SweepCharts(tc.name, tc.curves, 0)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		var names []string
		for _, c := range charts {
			names = append(names, c.Name)
			for _, want := range tc.texts {
				if !bytes.Contains(c.SVG, []byte(want)) {
					t.Errorf("%s: %s lacks %q", tc.name, c.Name, want)
				}
			}
		}
		if len(names) != len(tc.want) || (len(names) > 0 && names[0] != tc.want[0]) {
			t.Errorf("%s: got charts %v, want %v", tc.name, names, tc.want)
		}
		again, _ := SweepCharts(tc.name, tc.curves, 0)
		for i := range charts {
			if !bytes.Equal(charts[i].SVG, again[i].SVG) {
				t.Errorf("%s: %s renders differently twice", tc.name, charts[i].Name)
			}
		}
	}
}

// withOps gives every curve of studyCurves YCSB F's two operation types,
// each at half the achieved rate; READ-MODIFY-WRITE's p99 is twice READ's.
func withOps(curves []Curve) []Curve {
	for i, c := range curves {
		read, rmw := Curve{Label: "READ"}, Curve{Label: "READ-MODIFY-WRITE"}
		for _, pt := range c.Points {
			r, m := CurvePoint{Target: pt.Target, Achieved: pt.Achieved / 2}, CurvePoint{Target: pt.Target, Achieved: pt.Achieved / 2}
			if pt.P99 != nil {
				r.P99, m.P99 = fp(*pt.P99/2), pt.P99
			}
			read.Points, rmw.Points = append(read.Points, r), append(rmw.Points, m)
		}
		curves[i].Ops = []Curve{read, rmw}
	}
	return curves
}

// TestOpChartsGolden draws the comparison of two YCSB F sweeps per
// operation type: an achieved-vs-target and a p99-vs-target chart for
// READ and for READ-MODIFY-WRITE, one line per label.
func TestOpChartsGolden(t *testing.T) {
	charts, err := OpCharts("r6g vs r5 (ycsb-f)", withOps(studyCurves()))
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, c := range charts {
		names = append(names, c.Name)
		for _, want := range []string{">r6g<", ">r5<", ">target ops/s<"} {
			if !bytes.Contains(c.SVG, []byte(want)) {
				t.Errorf("%s lacks %q", c.Name, want)
			}
		}
		if bytes.Contains(c.SVG, []byte("ideal (achieved = target)")) {
			t.Errorf("%s draws the ideal diagonal: an operation type runs at its share of the target", c.Name)
		}
		golden.Check(t, "op-"+c.Name+".svg", c.SVG)
	}
	if want := "[READ-throughput READ-p99 READ-MODIFY-WRITE-throughput READ-MODIFY-WRITE-p99]"; fmt.Sprint(names) != want {
		t.Errorf("charts: got %v, want %s", names, want)
	}
}

// TestMixCharts draws one sweep's operation types, a line each, and
// nothing for a sweep of one operation type.
func TestMixCharts(t *testing.T) {
	c := withOps(studyCurves())[0]
	charts, err := MixCharts("ycsb-f sweep S", c)
	if err != nil {
		t.Fatal(err)
	}
	if len(charts) != 2 || charts[0].Name != "ops-throughput" || charts[1].Name != "ops-p99" {
		t.Fatalf("got %d charts, want ops-throughput and ops-p99", len(charts))
	}
	for _, ch := range charts {
		for _, want := range []string{">READ<", ">READ-MODIFY-WRITE<"} {
			if !bytes.Contains(ch.SVG, []byte(want)) {
				t.Errorf("%s lacks %q", ch.Name, want)
			}
		}
	}
	c.Ops = c.Ops[:1]
	if charts, err := MixCharts("one", c); err != nil || len(charts) != 0 {
		t.Errorf("one operation type: %d charts (%v), want none", len(charts), err)
	}
	if charts, err := OpCharts("one", []Curve{c}); err != nil || len(charts) != 0 {
		t.Errorf("op charts of one operation type: %d charts (%v), want none", len(charts), err)
	}
}
