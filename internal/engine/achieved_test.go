package engine

import (
	"testing"
	"time"
)

// TestAchievedRateOverTheSchedule takes an open loop's achieved rate over
// its whole duration even when its last operation completed early, in
// the result and in its tally alike.
func TestAchievedRateOverTheSchedule(t *testing.T) {
	start := time.Unix(1e9, 0)
	one := []OpTotals{{Name: "read", Count: 1}}
	tests := []struct {
		name    string
		planned time.Duration // the open loop's duration; 0 closed loop
		phase   time.Duration
		ops     []OpTotals
		part    bool
		want    float64
	}{
		{"0.001/s for 30s: one op early", 30 * time.Second, 1264 * time.Microsecond, one, false, 1.0 / 30},
		{"open loop that ran its duration", 2 * time.Second, 2 * time.Second, []OpTotals{{Count: 200}}, false, 100},
		{"open loop stopped early (Ctrl-C)", 10 * time.Second, 2 * time.Second, []OpTotals{{Count: 200}}, true, 100},
		{"closed loop", 0, time.Second, []OpTotals{{Count: 500}}, false, 500},
		{"parts left out", 0, time.Second, []OpTotals{{Count: 500, Parts: 250}}, false, 250},
	}
	for _, tc := range tests {
		res := &Result{Start: start, End: start.Add(tc.phase), Ops: tc.ops, Partial: tc.part, Planned: tc.planned}
		view := &TallyView{Elapsed: tc.phase, Ops: tc.ops, Done: true, Partial: tc.part, Planned: tc.planned}
		for _, got := range []struct {
			who  string
			rate float64
		}{{"result", res.AchievedRate()}, {"tally", view.AchievedRate()}} {
			if got.rate < tc.want*0.999 || got.rate > tc.want*1.001 {
				t.Errorf("%s: %s achieved %g/s, want %g/s", tc.name, got.who, got.rate, tc.want)
			}
		}
	}
}
