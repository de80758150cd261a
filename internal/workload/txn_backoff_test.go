package workload

import (
	"testing"
	"time"
)

// The backoff before a transaction's retry is the convenient transaction
// API's: a share (the jitter) of 5 ms × 1.5^(n−1), at most 500 ms.
func TestRetryBackoff(t *testing.T) {
	for _, tc := range []struct {
		n      int
		jitter float64
		want   time.Duration
	}{
		{1, 0, 0},
		{1, 0.999999, 4999995 * time.Nanosecond},
		{2, 0.5, 3750 * time.Microsecond},
		{3, 1, 11250 * time.Microsecond},
		{12, 1, 432487793 * time.Nanosecond}, // 5 ms × 1.5^11
		{13, 1, 500 * time.Millisecond},      // 5 ms × 1.5^12 = 649 ms: the bound
		{100, 0.5, 250 * time.Millisecond},
	} {
		got := retryBackoff(tc.n, tc.jitter)
		if d := got - tc.want; d < -time.Microsecond || d > time.Microsecond {
			t.Errorf("retry %d, jitter %v: got %v want %v", tc.n, tc.jitter, got, tc.want)
		}
	}
}
