package report

import (
	"testing"
	"time"
)

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
