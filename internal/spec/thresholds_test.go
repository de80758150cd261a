package spec

import (
	"strings"
	"testing"
)

func TestParseThresholds(t *testing.T) {
	s, err := Parse("s.yaml", []byte("workload: kv\nrate: 100\nthresholds:\n  - p99(read) < 5ms\n  - \"errors < 0.1%\"\n"), testReg)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, th := range s.Thresholds {
		got = append(got, th.Text)
	}
	if strings.Join(got, "; ") != "p99(read) < 5ms; errors < 0.1%" {
		t.Errorf("thresholds %q", got)
	}
	if err := s.AddThreshold("rate >= 99%"); err != nil || len(s.Clone().Thresholds) != 3 {
		t.Errorf("AddThreshold: %v, %d thresholds; want 3", err, len(s.Thresholds))
	}
}

func TestParseThresholdErrors(t *testing.T) {
	cases := []struct{ in, want string }{
		{"workload: kv\nthresholds:\n  - p99 < 5ms\n  - p99(read) < 5\n",
			`s.yaml:4: thresholds: threshold "p99(read) < 5": "5" at column 13: want a duration such as 500us, 5ms or 1s`},
		{"workload: kv\nthresholds: p99 < 5ms\n", `s.yaml:2: thresholds: a value is not valid: want a list of thresholds`},
		{"workload: kv\nthresholds:\n  - {p99: 5ms}\n", `s.yaml:3: thresholds: a mapping is not valid`},
	}
	for _, c := range cases {
		_, err := Parse("s.yaml", []byte(c.in), testReg)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Parse(%q):\n got %v\nwant %q", c.in, err, c.want)
		}
	}
	var s Scenario
	err := s.AddThreshold("p99 <")
	if err == nil || err.Error() != `--threshold: threshold "p99 <": at the end: want a duration such as 500us, 5ms or 1s` {
		t.Errorf("AddThreshold: %v", err)
	}
}
