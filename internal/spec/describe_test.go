package spec

import (
	"testing"
	"time"
)

func TestDescribe(t *testing.T) {
	for _, tc := range []struct {
		sc   Scenario
		want string
	}{
		{Scenario{Rate: 1000, Threads: 64, Duration: Duration(30 * time.Second), Warmup: Duration(5 * time.Second)},
			"open loop at 1000/s, up to 64 in flight, 30s after 5s warm-up"},
		{Scenario{Threads: 8, Ops: 100000}, "closed loop, 8 workers, 100000 ops"},
		{Scenario{Threads: 16, Duration: Duration(time.Minute), Ops: 5}, "closed loop, 16 workers, 1m0s, 5 ops"},
	} {
		if got := tc.sc.Describe(); got != tc.want {
			t.Errorf("Describe() = %q, want %q", got, tc.want)
		}
	}
}

func TestParamSpecBounds(t *testing.T) {
	for _, tc := range []struct {
		p    ParamSpec
		want string
	}{
		{ParamSpec{Min: "1", Max: "100"}, " (1 to 100)"},
		{ParamSpec{Min: "1"}, " (at least 1)"},
		{ParamSpec{Max: "16MB"}, " (at most 16MB)"},
		{ParamSpec{}, ""},
	} {
		if got := tc.p.Limits(); got != tc.want {
			t.Errorf("%+v.Limits() = %q, want %q", tc.p, got, tc.want)
		}
	}
}
