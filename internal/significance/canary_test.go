package significance

import (
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/result"
)

func quiet(cpu, wake float64) result.Canary {
	return result.Canary{CPUNs: result.F(cpu), WakeP99Us: result.F(wake), LoopbackP50Us: result.F(15)}
}

func TestCanaries(t *testing.T) {
	a := []result.Canary{quiet(2.40, 20), quiet(2.41, 25), quiet(2.40, 18)}
	for _, tc := range []struct {
		name  string
		b     []result.Canary
		moved []string
		line  string
	}{
		{"same host", []result.Canary{quiet(2.42, 22), quiet(2.40, 230)}, nil, ""},
		{"timer wake-ups late on B", []result.Canary{quiet(2.41, 1700), quiet(2.40, 900)}, []string{"wakeLateP99Us"}, "noisier for B than for A (wakeLateP99Us 20.0 → 1300 µs)"},
		{"below the floor", []result.Canary{quiet(2.40, 110), quiet(2.40, 160)}, nil, ""},
		{"A was the busy one", []result.Canary{quiet(1.20, 20)}, []string{"cpuNsPerStep"}, "noisier for A than for B"},
		{"B has no canary", nil, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Canaries(a, tc.b)
			var moved []string
			for _, x := range s {
				if x.Moved {
					moved = append(moved, x.Figure)
				}
			}
			if strings.Join(moved, ",") != strings.Join(tc.moved, ",") {
				t.Errorf("moved %v, want %v", moved, tc.moved)
			}
			line := HostMoved(s, "A", "B")
			if (tc.line == "") != (line == "") || !strings.Contains(line, tc.line) {
				t.Errorf("line %q, want it to hold %q", line, tc.line)
			}
		})
	}
}
