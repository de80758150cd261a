package runner

import (
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/spec"
)

// TestAchievedRateOverTheSchedule takes an open loop's achieved rate over
// its whole duration even when its last operation completed early.
func TestAchievedRateOverTheSchedule(t *testing.T) {
	start := time.Unix(1e9, 0)
	one := []engine.OpTotals{{Name: "read", Count: 1}}
	tests := []struct {
		name  string
		rate  spec.Rate
		dur   time.Duration
		phase time.Duration
		ops   []engine.OpTotals
		part  bool
		want  float64
	}{
		{"0.001/s for 30s: one op early", 0.001, 30 * time.Second, 1264 * time.Microsecond, one, false, 1.0 / 30},
		{"open loop that ran its duration", 100, 2 * time.Second, 2 * time.Second, []engine.OpTotals{{Count: 200}}, false, 100},
		{"open loop stopped early (Ctrl-C)", 100, 10 * time.Second, 2 * time.Second, []engine.OpTotals{{Count: 200}}, true, 100},
		{"closed loop", 0, 30 * time.Second, time.Second, []engine.OpTotals{{Count: 500}}, false, 500},
	}
	for _, tc := range tests {
		res := &engine.Result{Start: start, End: start.Add(tc.phase), Ops: tc.ops, Partial: tc.part}
		sc := &spec.Scenario{Rate: tc.rate, Duration: spec.Duration(tc.dur)}
		if got := schedule(res, sc).AchievedRate; got < tc.want*0.999 || got > tc.want*1.001 {
			t.Errorf("%s: achieved %g/s, want %g/s", tc.name, got, tc.want)
		}
	}
}
