package threshold

import (
	"strings"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/hist"
	"github.com/mongobench/mongobench/internal/result"
)

func TestParse(t *testing.T) {
	cases := []struct {
		expr string
		want Threshold
	}{
		{"p99(READ) < 5ms", Threshold{Kind: Latency, Stat: "p99", Pct: 99, Op: "READ", Cmp: LT, Limit: 5, Unit: Millis}},
		{"p99.9(UPDATE) <= 20ms", Threshold{Kind: Latency, Stat: "p99.9", Pct: 99.9, Op: "UPDATE", Cmp: LE, Limit: 20, Unit: Millis}},
		{"p999(UPDATE)<=1s", Threshold{Kind: Latency, Stat: "p99.9", Pct: 99.9, Op: "UPDATE", Cmp: LE, Limit: 1000, Unit: Millis}},
		{"svc.p50(READ) < 1ms", Threshold{Kind: Service, Stat: "p50", Pct: 50, Op: "READ", Cmp: LT, Limit: 1, Unit: Millis}},
		{"SVC.P90 < 500us", Threshold{Kind: Service, Stat: "p90", Pct: 90, Cmp: LT, Limit: 0.5, Unit: Millis}},
		{"p99 < 5ms", Threshold{Kind: Latency, Stat: "p99", Pct: 99, Cmp: LT, Limit: 5, Unit: Millis}},
		{"max ( txn ) < 2s", Threshold{Kind: Latency, Stat: "max", Pct: 100, Op: "txn", Cmp: LT, Limit: 2000, Unit: Millis}},
		{"mean >= 1µs", Threshold{Kind: Latency, Stat: "mean", Cmp: GE, Limit: 0.001, Unit: Millis}},
		{"errors < 0.1%", Threshold{Kind: Errors, Cmp: LT, Limit: 0.1, Unit: Percent}},
		{"errors(timeout) < 1", Threshold{Kind: Errors, Class: "timeout", Cmp: LT, Limit: 1, Unit: Count}},
		{"errors(WRITECONFLICT) == 0", Threshold{Kind: Errors, Class: "writeConflict", Cmp: EQ, Limit: 0, Unit: Count}},
		{"errors(READ) <= 5%", Threshold{Kind: Errors, Op: "READ", Cmp: LE, Limit: 5, Unit: Percent}},
		{"rate >= 99%", Threshold{Kind: Rate, Cmp: GE, Limit: 99, Unit: Percent}},
		{"rate > 1000/s", Threshold{Kind: Rate, Cmp: GT, Limit: 1000, Unit: PerSec}},
		{"clientbound == false", Threshold{Kind: ClientBound, Cmp: EQ, Limit: 0, Unit: Bool}},
		{"serverbound != TRUE", Threshold{Kind: ServerBound, Cmp: NE, Limit: 1, Unit: Bool}},
	}
	for _, c := range cases {
		t.Run(c.expr, func(t *testing.T) {
			got, err := Parse(c.expr)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			c.want.Text = strings.TrimSpace(c.expr)
			if got != c.want {
				t.Errorf("got %+v\nwant %+v", got, c.want)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	cases := []struct{ expr, want string }{
		{"", `threshold "": at the end: want a metric`},
		{"p99(READ) < 5", `threshold "p99(READ) < 5": "5" at column 13: want a duration such as 500us, 5ms or 1s`},
		{"p99(READ) <> 5ms", `"<>" at column 11: want one of <, <=, >, >=, ==, !=`},
		{"p99(READ) 5ms", `"5ms" at column 11: want one of <`},
		{"latency < 5ms", `"latency" at column 1: want a metric: pN[(OP)]`},
		{"p101 < 5ms", `"p101" at column 1: want a percentile above p0 and up to p100`},
		{"p0(READ) < 5ms", `"p0" at column 1: want a percentile above p0 and up to p100, such as p50, p99 or p99.9 (min for the smallest value)`},
		{"p99(READ < 5ms", `"<" at column 10: want ")"`},
		{"p99() < 5ms", `")" at column 5: want an operation type such as READ`},
		{"errors() < 5", `want an error class (timeout, network, writeConflict, duplicateKey, overload, other) or an operation type`},
		{"rate(READ) >= 99%", `"(" at column 5: want one of <, <=, >, >=, ==, != (rate takes no operation type)`},
		{"rate >= 99", `"99" at column 9: want a percentage of the target rate such as 99%, or a rate such as 1000/s`},
		{"errors < -1", `"-1" at column 10: want a count`},
		{"errors < 101%", `"101%" at column 10: want a count`},
		{"clientbound == no", `"no" at column 16: want true or false`},
		{"p99 < 5ms and more", `"and" at column 11: want nothing after the value`},
		{"p99 < 5ms;", `";" at column 10: want METRIC CMP VALUE`},
		{"p99 <", `threshold "p99 <": at the end: want a duration`},
		{"p99 < -5ms", `"-5ms" at column 7: want a duration`},
	}
	for _, c := range cases {
		t.Run(c.expr, func(t *testing.T) {
			_, err := Parse(c.expr)
			if err == nil {
				t.Fatalf("Parse(%q): no error, want %q", c.expr, c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("Parse(%q):\n got %q\nwant it to contain %q", c.expr, err, c.want)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("Parse(%q): the error is more than one line: %q", c.expr, err)
			}
		})
	}
}

// dist is a latency summary recorded from values in milliseconds, with
// its histogram, as the runner stores it.
func dist(t *testing.T, msValues ...float64) result.Dist {
	t.Helper()
	h := hist.New()
	for _, v := range msValues {
		hist.Record(h, time.Duration(v*float64(time.Millisecond)))
	}
	d, err := hist.Summarize(h)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// doc is an open-loop run at 1000/s that achieved 990/s: READ around 2 ms
// (service 1 ms), UPDATE around 8 ms (service 4 ms) with 2 timeouts and 1
// write conflict, SCAN never chosen.
func doc(t *testing.T) *result.Doc {
	t.Helper()
	read := dist(t, 1, 2, 2, 2, 3)
	update := dist(t, 6, 8, 8, 8, 10)
	return &result.Doc{
		Duration: 10000,
		Schedule: result.Schedule{Mode: "open", TargetRate: result.F(1000), AchievedRate: 990},
		Ops: []result.OpStats{
			{Name: "READ", Count: 5, Latency: read, Service: dist(t, 0.5, 1, 1, 1, 1.5)},
			{Name: "UPDATE", Count: 5, Errors: result.Errors{Total: 3, Timeout: 2, WriteConflict: 1}, Latency: update, Service: dist(t, 3, 4, 4, 4, 5)},
			{Name: "SCAN"},
		},
	}
}

func TestEvaluate(t *testing.T) {
	cases := []struct {
		expr     string
		pass     bool
		measured string
	}{
		{"p99(READ) < 5ms", true, "3 ms (READ)"},
		{"p99(read) < 2ms", false, "3 ms (READ)"},
		{"svc.p50(READ) <= 1ms", true, "1 ms (READ)"},
		{"svc.p50(UPDATE) <= 1ms", false, "4 ms (UPDATE)"},
		{"p99 < 5ms", false, "10 ms (UPDATE)"},          // every type must hold: UPDATE decides
		{"p99 < 20ms", true, "10 ms (UPDATE)"},          // the worst type is shown
		{"p50 > 5ms", false, "2 ms (READ)"},             // a lower bound: the lowest type decides
		{"p90(UPDATE) <= 11ms", true, "10 ms (UPDATE)"}, // recomputed from the histogram
		{"p75(READ) == 2ms", true, "2 ms (READ)"},       // recomputed from the histogram
		{"max < 1s", true, "10 ms (UPDATE)"},
		{"p99(SCAN) < 5ms", false, "missing: no SCAN operation succeeded"},
		{"p99(DELETE) < 5ms", false, "missing: the run has no DELETE operations"},
		{"errors < 1", false, "3 errors"},
		{"errors(timeout) <= 2", true, "2 errors"},
		{"errors(writeConflict) < 1", false, "1 error"},
		{"errors(duplicateKey) == 0", true, "0 errors"},
		{"errors < 25%", true, "23.1%"}, // 3 of 13
		{"errors(UPDATE) < 25%", false, "37.5% (UPDATE)"},
		{"errors(SCAN) < 1", false, "missing: no SCAN operation completed"},
		{"rate >= 99%", true, "99%"},
		{"rate >= 99.5%", false, "99%"},
		{"rate >= 1000/s", false, "990 ops/s"},
		{"clientbound == false", true, "false"},
		{"serverbound == true", false, "false"},
	}
	d := doc(t)
	for _, c := range cases {
		t.Run(c.expr, func(t *testing.T) {
			th, err := Parse(c.expr)
			if err != nil {
				t.Fatal(err)
			}
			v := th.Evaluate(Of(d))
			if v.Pass != c.pass || Measured(v) != c.measured {
				t.Errorf("got pass %v, %q; want pass %v, %q", v.Pass, Measured(v), c.pass, c.measured)
			}
			if v.Expression != c.expr {
				t.Errorf("expression %q, want %q", v.Expression, c.expr)
			}
			if (v.Value == nil) != (v.Missing != "") {
				t.Errorf("value %v with missing %q: want exactly one", v.Value, v.Missing)
			}
		})
	}
}

// TestEvaluateMissing checks that a figure the run does not have fails
// as missing, never as a 0 that would pass an upper bound.
func TestEvaluateMissing(t *testing.T) {
	closed := &result.Doc{Duration: 1000, Schedule: result.Schedule{Mode: "closed", AchievedRate: 50},
		Client: result.Client{NotJudged: "interrupted: a run that did not finish is judged neither client- nor server-bound"}}
	empty := &result.Doc{Duration: 1000, Schedule: result.Schedule{Mode: "open", TargetRate: result.F(100)},
		Ops: []result.OpStats{{Name: "read"}}}
	noHist := &result.Doc{Ops: []result.OpStats{{Name: "read", Count: 3, Latency: result.Dist{Count: 3, P99: result.F(1)}}}}
	cases := []struct {
		d       *result.Doc
		expr    string
		missing string
	}{
		{closed, "rate >= 99%", "a closed-loop run has no target rate"},
		{closed, "clientbound == false", "not judged: interrupted"},
		{closed, "p99 < 1h", "no operation succeeded"},
		{closed, "errors < 1", "no operation completed"},
		{empty, "errors < 0.1%", "no operation completed"},
		{empty, "p99(read) < 1h", "no read operation succeeded"},
		{&result.Doc{}, "rate >= 1/s", "the run has no measured phase"},
		{noHist, "p90 < 1h", "p90 is not stored and the run has no histogram"},
	}
	for _, c := range cases {
		t.Run(c.expr, func(t *testing.T) {
			th, err := Parse(c.expr)
			if err != nil {
				t.Fatal(err)
			}
			v := th.Evaluate(Of(c.d))
			if v.Pass || v.Value != nil || !strings.HasPrefix(v.Missing, c.missing) {
				t.Errorf("got pass %v value %v missing %q; want a failure, missing %q", v.Pass, v.Value, v.Missing, c.missing)
			}
			if !strings.HasPrefix(Line(v), "FAIL  "+c.expr+"  missing: ") {
				t.Errorf("line %q", Line(v))
			}
		})
	}
}

func TestCheck(t *testing.T) {
	kv := Run{Workload: "kv", Ops: []string{"read", "update"}}
	cases := []struct {
		expr string
		run  Run
		want string // "" no error
	}{
		{"rate >= 99%", kv, `threshold "rate >= 99%": a closed-loop run has no target rate`},
		{"rate >= 99%", Run{Workload: "kv", OpenLoop: true}, ""},
		{"rate >= 100/s", kv, ""},
		{"p99(READ) < 5ms", kv, ""},
		{"p99(SCAN) < 5ms", kv, `threshold "p99(SCAN) < 5ms": workload kv has no operation type "SCAN": want one of read, update`},
		{"errors(timeout) < 1", kv, ""},
		{"p99(SCAN) < 5ms", Run{Workload: "kv"}, ""}, // operation types not known
	}
	for _, c := range cases {
		th, err := Parse(c.expr)
		if err != nil {
			t.Fatal(err)
		}
		err = Check([]Threshold{th}, c.run)
		switch {
		case c.want == "" && err != nil:
			t.Errorf("Check(%q): %v", c.expr, err)
		case c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), c.want)):
			t.Errorf("Check(%q): got %v, want %q", c.expr, err, c.want)
		}
	}
}

func TestCannotHold(t *testing.T) {
	d := doc(t)
	parse := func(exprs ...string) []Threshold {
		ts, err := ParseAll(exprs)
		if err != nil {
			t.Fatal(err)
		}
		return ts
	}
	all := parse("errors < 1", "errors > 5", "p99 < 5ms", "p99(SCAN) < 5ms", "clientbound == true", "rate >= 99%")
	names := func(vs []result.ThresholdVerdict) string {
		var s []string
		for _, v := range vs {
			s = append(s, v.Expression)
		}
		return strings.Join(s, "; ")
	}
	// Early on, only an error count already passed cannot hold: the
	// latency may still come down, a missing figure may still come, and
	// the bound verdicts are judged at the end.
	if got := names(CannotHold(all, Of(d), false)); got != "errors < 1" {
		t.Errorf("unsettled: got %q, want %q", got, "errors < 1")
	}
	if got := names(CannotHold(all, Of(d), true)); got != "errors < 1; errors > 5; p99 < 5ms" {
		t.Errorf("settled: got %q", got)
	}
}

func TestNum(t *testing.T) {
	for x, want := range map[float64]string{0: "0", 0.0123: "0.0123", 1.234: "1.23", 12.34: "12.3", 99.94: "99.9", 123.4: "123", 12345.6: "12346", 2790: "2790", 2: "2"} {
		if got := num(x); got != want {
			t.Errorf("num(%v) = %q, want %q", x, got, want)
		}
	}
}

func TestBounds(t *testing.T) {
	long := "p99 < " + strings.Repeat("1", MaxLen) + "ms"
	if _, err := Parse(long); err == nil || !strings.Contains(err.Error(), "want at most 256") {
		t.Errorf("Parse of %d bytes: %v", len(long), err)
	}
	many := make([]string, MaxCount+1)
	for i := range many {
		many[i] = "p99 < 5ms"
	}
	if _, err := ParseAll(many); err == nil || err.Error() != "65 thresholds: want at most 64" {
		t.Errorf("ParseAll of %d: %v", len(many), err)
	}
	ts, err := ParseAll(many[:MaxCount])
	if err != nil {
		t.Fatal(err)
	}
	if err := Check(append(ts, ts[0]), Run{}); err == nil || !strings.HasPrefix(err.Error(), "65 thresholds (a scenario's and --threshold's together)") {
		t.Errorf("Check of 65: %v", err)
	}
}
