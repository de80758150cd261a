package threshold

import (
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/result"
)

// TestParseBounds covers the forms the studies' bounds are written in:
// changes against a baseline, throughput, headroom, and the plan file's
// form with the operation type as a word of its own.
func TestParseBounds(t *testing.T) {
	cases := []struct {
		expr string
		want Threshold
	}{
		{"p95(READ) <= +5%", Threshold{Kind: Latency, Stat: "p95", Pct: 95, Op: "READ", Cmp: LE, Limit: 5, Unit: Millis, Relative: true}},
		{"p95 READ <= +5%", Threshold{Kind: Latency, Stat: "p95", Pct: 95, Op: "READ", Cmp: LE, Limit: 5, Unit: Millis, Relative: true}},
		{"p99 READ <= 10ms", Threshold{Kind: Latency, Stat: "p99", Pct: 99, Op: "READ", Cmp: LE, Limit: 10, Unit: Millis}},
		{"p95 <= +5%", Threshold{Kind: Latency, Stat: "p95", Pct: 95, Cmp: LE, Limit: 5, Unit: Millis, Relative: true}},
		{"p95 <= 0%", Threshold{Kind: Latency, Stat: "p95", Pct: 95, Cmp: LE, Limit: 0, Unit: Millis, Relative: true}},
		{"svc.p50(READ) < -2.5%", Threshold{Kind: Service, Stat: "p50", Pct: 50, Op: "READ", Cmp: LT, Limit: -2.5, Unit: Millis, Relative: true}},
		{"p99 <= 1.5s", Threshold{Kind: Latency, Stat: "p99", Pct: 99, Cmp: LE, Limit: 1500, Unit: Millis}},
		{"errors UPDATE <= 1%", Threshold{Kind: Errors, Op: "UPDATE", Cmp: LE, Limit: 1, Unit: Percent}},
		{"throughput >= -10%", Threshold{Kind: Throughput, Cmp: GE, Limit: -10, Unit: PerSec, Relative: true}},
		{"throughput >= 1000/s", Threshold{Kind: Throughput, Cmp: GE, Limit: 1000, Unit: PerSec}},
		{"headroom >= 20%", Threshold{Kind: Headroom, Cmp: GE, Limit: 20, Unit: Percent}},
	}
	for _, c := range cases {
		t.Run(c.expr, func(t *testing.T) {
			got, err := Parse(c.expr)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			c.want.Text = c.expr
			if got != c.want {
				t.Errorf("got %+v\nwant %+v", got, c.want)
			}
		})
	}
}

func TestParseBoundsErrors(t *testing.T) {
	cases := []struct{ expr, want string }{
		{"p95 <= 5%", `"5%" at column 8: want a duration such as 500us, 5ms or 1s`},
		{"p95 READ < fast", `"fast" at column 12: want a duration`},
		{"p95 READ UPDATE <= 5ms", `"UPDATE" at column 10: want one of <`},
		{"throughput >= 99", `"99" at column 15: want a rate such as 1000/s, or a change against the baseline such as -10%`},
		{"throughput(READ) >= 1/s", `(throughput takes no operation type)`},
		{"rate READ >= 99%", `"READ" at column 6: want one of <`},
		{"headroom >= 100%", `"100%" at column 13: want a percentage of the throughput such as 20%`},
		{"headroom >= +5%", `want a percentage of the throughput`},
		{"p95 <= -100%", `"-100%" at column 8: want a duration`},
	}
	for _, c := range cases {
		t.Run(c.expr, func(t *testing.T) {
			_, err := Parse(c.expr)
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("Parse(%q):\n got %v\nwant it to contain %q", c.expr, err, c.want)
			}
		})
	}
}

// TestEvaluateAgainst judges relative bounds on doc's run against a
// baseline whose READ p99 is 2.5 ms and UPDATE p99 10 ms, at 1,100/s.
func TestEvaluateAgainst(t *testing.T) {
	d := doc(t) // READ p99 3 ms, UPDATE p99 10 ms, 990/s
	base := doc(t)
	base.Schedule.AchievedRate = 1100
	base.Ops[0].Latency = dist(t, 1, 2, 2, 2, 2.5)
	cases := []struct {
		expr     string
		pass     bool
		measured string
	}{
		{"p99(READ) <= +20%", true, "3 ms (READ), +20% against the baseline's 2.5 ms"},
		{"p99(READ) <= +19%", false, "3 ms (READ), +20% against the baseline's 2.5 ms"},
		{"p99 READ <= +5%", false, "3 ms (READ), +20% against the baseline's 2.5 ms"},
		{"p99 <= +5%", false, "3 ms (READ), +20% against the baseline's 2.5 ms"}, // UPDATE holds, READ decides
		{"p99 <= +25%", true, "3 ms (READ), +20% against the baseline's 2.5 ms"}, // the type nearest its limit is shown
		{"p99(UPDATE) <= 0%", true, "10 ms (UPDATE), +0% against the baseline's 10 ms"},
		{"throughput >= -10%", true, "990 ops/s, -10% against the baseline's 1100 ops/s"},
		{"throughput >= -9%", false, "990 ops/s, -10% against the baseline's 1100 ops/s"},
		{"throughput >= 1000/s", false, "990 ops/s"},
		{"p99(SCAN) <= +5%", false, "missing: no SCAN operation succeeded"},
		{"headroom >= 20%", false, "missing: headroom is judged per stage of a capacity plan"},
	}
	for _, c := range cases {
		t.Run(c.expr, func(t *testing.T) {
			th, err := Parse(c.expr)
			if err != nil {
				t.Fatal(err)
			}
			v := EvaluateFigures([]Threshold{th}, Of(d), ptrOf(base))[0]
			if v.Pass != c.pass || Measured(v) != c.measured {
				t.Errorf("got pass %v, %q; want pass %v, %q", v.Pass, Measured(v), c.pass, c.measured)
			}
		})
	}
	// A baseline that lacks the figure, and no baseline at all.
	noRead := doc(t)
	noRead.Ops = noRead.Ops[1:]
	th, _ := Parse("p99 <= +5%")
	if v := th.EvaluateAgainst(Of(d), ptrOf(noRead)); v.Pass || v.Missing != "the baseline: no READ operation succeeded" {
		t.Errorf("baseline without READ: %+v", v)
	}
	if v := th.Evaluate(Of(d)); v.Pass || !strings.HasPrefix(v.Missing, "a relative bound is judged against a baseline") {
		t.Errorf("no baseline: %+v", v)
	}
}

func TestForOp(t *testing.T) {
	for expr, want := range map[string]string{
		"p95 <= +5%":     "p95 READ <= +5%",
		"p95<=+5%":       "p95 READ<=+5%",
		"svc.p99 < 1ms":  "svc.p99 READ < 1ms",
		"p95(READ) < 1s": "p95(READ) < 1s",
		"errors < 1%":    "errors < 1%",
	} {
		th, err := Parse(expr)
		if err != nil {
			t.Fatal(err)
		}
		got := th.ForOp("READ")
		if got.Text != want {
			t.Errorf("%q.ForOp(READ): got %q, want %q", expr, got.Text, want)
		}
		again, err := Parse(got.Text)
		if err != nil || again != got {
			t.Errorf("%q does not parse to itself: %+v, %v", got.Text, again, err)
		}
	}
}

// TestCheckBounds: a run has no baseline, and no stage to have headroom
// at.
func TestCheckBounds(t *testing.T) {
	for expr, want := range map[string]string{
		"p95(READ) <= +5%":   `threshold "p95(READ) <= +5%": a change against a baseline is judged only in a capacity plan's constraints`,
		"throughput >= -10%": `threshold "throughput >= -10%": a change against a baseline`,
		"headroom >= 20%":    `threshold "headroom >= 20%": headroom is judged only per stage of a capacity plan`,
	} {
		th, err := Parse(expr)
		if err != nil {
			t.Fatal(err)
		}
		if err := Check([]Threshold{th}, Run{OpenLoop: true}); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("Check(%q): got %v, want %q", expr, err, want)
		}
	}
	th, _ := Parse("throughput >= 1000/s")
	if err := Check([]Threshold{th}, Run{}); err != nil {
		t.Errorf("Check(throughput >= 1000/s): %v", err)
	}
}

func TestHolds(t *testing.T) {
	th, _ := Parse("headroom >= 20%")
	for v, want := range map[float64]bool{19.9: false, 20: true, 38.5: true, -5: false} {
		if got := th.Holds(v); got != want {
			t.Errorf("headroom >= 20%% at %v: got %v", v, got)
		}
	}
}

// ptrOf is the figures of a baseline's run.
func ptrOf(d *result.Doc) *Figures {
	f := Of(d)
	return &f
}
