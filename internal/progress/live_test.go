package progress

import (
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/result"
)

var f = result.F

func TestLive(t *testing.T) {
	tests := []struct {
		name string
		s    LiveStatus
		want string
	}{
		{"running", LiveStatus{Elapsed: 12500 * time.Millisecond, Total: time.Minute, OpsPerSec: 995.24,
			P99: f(2.104), Errors: 3, Late: 1},
			"0:12/1:00  995.2 ops/s  p99 2.10 ms  errors 3  late 1"},
		{"nothing completed yet", LiveStatus{Elapsed: 0, Total: 90 * time.Second},
			"0:00/1:30  0 ops/s  p99 — ms  errors 0  late 0"},
		{"open-ended, past an hour", LiveStatus{Elapsed: time.Hour + 2*time.Minute + 3*time.Second, OpsPerSec: 12345.6, P99: f(0.4)},
			"1:02:03  12346 ops/s  p99 0.400 ms  errors 0  late 0"},
	}
	for _, tt := range tests {
		if got := Live(tt.s); got != tt.want {
			t.Errorf("%s: got %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestLiveLines(t *testing.T) {
	for _, c := range []struct{ got, want string }{
		{LiveStart(10*time.Second, time.Minute), "warm-up 0:10 (not measured), then measuring 1:00"},
		{LiveStart(0, time.Minute), "measuring 1:00"},
		{LiveStart(0, 0), "measuring"},
		{LiveWarmup(4200*time.Millisecond, 10*time.Second), "warm-up 0:04/0:10 (not measured)"},
		{StepLine(StudyStep{N: 1, Total: 7, What: "1,000/s", Left: 7 * time.Minute, AtLeast: true}), "step 1/7: 1,000/s (at least 7:00 left)"},
		{StepLine(StudyStep{N: 3, Total: 7, What: "4,000/s", Elapsed: 130 * time.Second, Left: 325 * time.Second}), "step 3/7: 4,000/s (2:10 so far, about 5:25 left)"},
		{StepLine(StudyStep{N: 3, What: "16 threads", Elapsed: 130 * time.Second}), "step 3: 16 threads (2:10 so far)"},
		{StepLine(StudyStep{N: 1, What: "500/s"}), "step 1: 500/s"},
	} {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// TestFit cuts by terminal columns, not bytes: "—" is one column.
func TestFit(t *testing.T) {
	line := "0:03/1:00  0 ops/s  p99 — ms  errors 0  late 0"
	for _, c := range []struct {
		width int
		want  string
	}{
		{0, line}, {len(line), line}, {46, line},
		{28, "0:03/1:00  0 ops/s  p99 — m…"}, {45, "0:03/1:00  0 ops/s  p99 — ms  errors 0  late…"},
		{1, "…"},
	} {
		if got := Fit(line, c.width); got != c.want {
			t.Errorf("Fit(%d): got %q, want %q", c.width, got, c.want)
		}
	}
}
