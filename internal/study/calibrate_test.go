package study

import (
	"testing"
)

func ts(threads int, achieved float64, p99 *float64) ThreadStep {
	return ThreadStep{Threads: threads, Achieved: achieved, P99: p99}
}

// curve is a closed-loop calibration on a 2-core machine: throughput
// rises to 8 threads, then flattens while p99 climbs.
func curve() []ThreadStep {
	return []ThreadStep{ts(1, 1500, fl(1.1)), ts(2, 2800, fl(1.3)), ts(4, 4700, fl(2.0)), ts(8, 5930, fl(4.1)), ts(16, 6054, fl(9.8))}
}

// trials are the steps as the search sees them.
func trials(steps []ThreadStep) []Trial {
	out := make([]Trial, len(steps))
	for i, s := range steps {
		out[i] = s.trial()
	}
	return out
}

var cal = Calibration{Start: 1, Factor: 2, Max: 256}

func TestKnee(t *testing.T) {
	for _, tc := range []struct {
		name  string
		steps []ThreadStep
		want  int
		found bool
	}{
		{"plateau", curve(), 3, true},
		{"still rising", curve()[:4], 0, false},
		{"flat but p99 falls (noise)", []ThreadStep{ts(1, 1000, fl(2)), ts(2, 1020, fl(1.9)), ts(4, 1990, fl(2.1))}, 0, false},
		{"flat, p99 not recorded", []ThreadStep{ts(1, 1000, fl(2)), ts(2, 1020, nil)}, 0, true},
		{"falls", []ThreadStep{ts(1, 1000, fl(2)), ts(2, 1900, fl(2.1)), ts(4, 1700, fl(5))}, 1, true},
		{"exactly 5% still rises", []ThreadStep{ts(1, 1000, fl(2)), ts(2, 1050, fl(3))}, 0, false},
		{"one step", curve()[:1], 0, false},
	} {
		got, found := cal.Knee(tc.steps)
		if got != tc.want || found != tc.found {
			t.Errorf("%s: got %d, %v; want %d, %v", tc.name, got, found, tc.want, tc.found)
		}
	}
}

func TestCalibrationNext(t *testing.T) {
	for _, tc := range []struct {
		name  string
		c     Calibration
		steps []ThreadStep
		want  float64
		ok    bool
	}{
		{"first", cal, nil, 1, true},
		{"doubles", cal, curve()[:3], 8, true},
		{"knee found", cal, curve(), 0, false},
		{"capped at max", Calibration{Start: 1, Factor: 2, Max: 6}, curve()[:3], 6, true},
		{"max reached", Calibration{Start: 1, Factor: 2, Max: 4}, curve()[:3], 0, false},
		{"factor 1 still grows", Calibration{Start: 1, Factor: 1, Max: 8}, curve()[:1], 2, true},
		{"bad start", Calibration{Start: 0, Factor: 2, Max: 8}, nil, 0, false},
	} {
		got, ok := tc.c.Next(trials(tc.steps))
		if got != tc.want || ok != tc.ok {
			t.Errorf("%s: got %v, %v; want %v, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}

func TestKneeLine(t *testing.T) {
	for _, tc := range []struct {
		name  string
		steps []ThreadStep
		want  string
	}{
		{"knee", curve(), "Knee: 8 threads, 5,930 ops/s, p99 4.10 ms; 16 threads gained +2.09% with p99 9.80 ms."},
		{"none", curve()[:4], "No knee up to 8 threads: throughput still rose by at least 5% a step (or p99 did not climb); the highest was 5,930 ops/s."},
		{"empty", nil, "No steps ran."},
	} {
		if got := KneeLine(tc.steps, cal); got != tc.want {
			t.Errorf("%s:\ngot  %s\nwant %s", tc.name, got, tc.want)
		}
	}
}
