package spec

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestParseStages(t *testing.T) {
	st, err := ParseStages("30s:1000/s, 1m:1000/s,0s:4k, 30s:0")
	if err != nil {
		t.Fatal(err)
	}
	want := []Stage{{Duration(30 * time.Second), 1000}, {Duration(time.Minute), 1000}, {0, 4000}, {Duration(30 * time.Second), 0}}
	if len(st) != len(want) {
		t.Fatalf("got %v, want %v", st, want)
	}
	for i := range want {
		if st[i] != want[i] {
			t.Errorf("stage %d: got %v, want %v", i, st[i], want[i])
		}
	}
	for _, bad := range []string{"", "30s", "x:100/s", "30s:fast", "0s:100/s"} {
		if _, err := ParseStages(bad); err == nil {
			t.Errorf("ParseStages(%q): got no error", bad)
		}
	}
}

func TestDueByIsTheIntegralOfTheRate(t *testing.T) {
	// 0→100/s over 10 s, hold 100/s for 10 s, jump to 300/s for 5 s; then
	// 300/s holds.
	st := []Stage{{Duration(10 * time.Second), 100}, {Duration(10 * time.Second), 100}, {0, 300}, {Duration(5 * time.Second), 300}}
	for _, tt := range []struct {
		at   time.Duration
		want float64
	}{
		{0, 0}, {5 * time.Second, 125}, {10 * time.Second, 500}, {20 * time.Second, 1500},
		{25 * time.Second, 3000}, {27 * time.Second, 3600},
	} {
		if got := DueBy(st, tt.at); math.Abs(got-tt.want) > 1e-9 {
			t.Errorf("DueBy(%v): got %g, want %g", tt.at, got, tt.want)
		}
	}
	r, err := MeanRate(st, 10*time.Second, 25*time.Second)
	if err != nil || math.Abs(float64(r)-2500.0/15) > 1e-9 {
		t.Errorf("MeanRate: got %v %v, want %g", r, err, 2500.0/15)
	}
}

func TestScenarioStages(t *testing.T) {
	reg := testReg
	sc := &Scenario{Workload: "kv"}
	if err := sc.SetFlag("stages", "1s:100/s,2s:300/s"); err != nil {
		t.Fatal(err)
	}
	if err := sc.Validate(reg); err != nil {
		t.Fatal(err)
	}
	// No duration given: the stages' 3 s; the mean rate over them:
	// (50 + 400) / 3.
	if sc.Duration != Duration(3*time.Second) || math.Abs(float64(sc.Rate)-150) > 1e-9 || sc.Threads != 64 {
		t.Errorf("got duration %v, rate %v, threads %d; want 3s, 150/s, 64 (open loop)", sc.Duration, sc.Rate, sc.Threads)
	}

	for _, tt := range []struct {
		flags [][2]string
		want  string
	}{
		{[][2]string{{"stages", "10s:100/s"}, {"rate", "100/s"}}, "and --rate both give the rate"},
		{[][2]string{{"stages", "10s:100/s"}, {"arrival", "poisson"}}, "do not combine"},
		{[][2]string{{"stages", "10s:100/s"}, {"warmup", "10s"}}, "nothing is left to measure"},
		{[][2]string{{"stages", "10s:0"}}, "no operation due"},
	} {
		sc := &Scenario{Workload: "kv"}
		for _, f := range tt.flags {
			if err := sc.SetFlag(f[0], f[1]); err != nil {
				t.Fatal(err)
			}
		}
		err := sc.Validate(reg)
		if err == nil || !strings.Contains(err.Error(), "--stages") || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%v: got %v, want an error naming --stages that says %q", tt.flags, err, tt.want)
		}
	}
}

func TestScenarioFileStagesAsAList(t *testing.T) {
	sc, err := Parse("s.yaml", []byte("workload: kv\nstages: [2s:100/s, 2s:100/s]\nwarmup: 1s\n"), testReg)
	if err != nil {
		t.Fatal(err)
	}
	if len(sc.Stages) != 2 || sc.Duration != Duration(3*time.Second) {
		t.Errorf("got stages %v, duration %v; want 2 stages and the 3 s after the warm-up", sc.Stages, sc.Duration)
	}
	// 0→100/s over the first 2 s, then 100/s: from 1 s to 4 s, 75 + 200
	// operations in 3 s.
	if math.Abs(float64(sc.Rate)-275.0/3) > 1e-9 {
		t.Errorf("rate: got %v, want %g", sc.Rate, 275.0/3)
	}
}
