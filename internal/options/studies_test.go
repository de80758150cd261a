package options

import (
	"testing"
	"time"

	"github.com/spf13/pflag"
)

// Each study's flags read into the study its command runs.
func TestStudyFlags(t *testing.T) {
	parse := func(add func(*pflag.FlagSet), args ...string) {
		t.Helper()
		fl := pflag.NewFlagSet("x", pflag.ContinueOnError)
		add(fl)
		if err := fl.Parse(args); err != nil {
			t.Fatal(err)
		}
	}
	sw := NewSweep()
	parse(sw.Add, "--workload", "kv", "--rate", "1000,2000", "--p99", "20ms", "--repeat", "3", "--price", "3.20 USD/h", "--label", "r6g", "--database", "d1", "--max", "9000")
	s := sw.Sweep()
	if s.Base.Scenario.Workload != "kv" || s.Repeat != 3 || s.Criteria.SLA != 20*time.Millisecond || s.Price == nil || s.Base.Scenario.Label != "r6g" ||
		s.Base.Scenario.Database != "d1" || sw.Max != 9000 || time.Duration(s.Base.Scenario.Duration) != 20*time.Second {
		t.Errorf("sweep %+v, scenario %+v", s, s.Base.Scenario)
	}
	sl := NewSLA()
	parse(sl.Add, "--rate", "500", "--p99", "20ms", "--repeat", "3", "--modes", "perop", "--stage", "7KB", "--require", "3/3")
	l := sl.SLA()
	if l.Runs != 3 || len(l.Modes) != 1 || l.Stage != "7KB" || l.SLA.P99 != 20*time.Millisecond || l.Base.Scenario.Workload != "ledger" {
		t.Errorf("sla %+v", l)
	}
	ca := NewCalibrate()
	parse(ca.Add, "--workload", "kv", "--max-threads", "64", "--min-gain", "0.1")
	c := ca.Calibrate()
	if c.Search.Max != 64 || c.Search.MinGain != 0.1 || c.Search.Start != 1 || c.Base.Scenario.Workload != "kv" {
		t.Errorf("calibrate %+v", c)
	}
	cr := NewCompare()
	parse(cr.Add, "--runs", "--fail-on-regression", "--min-effect", "p99=20%", "--alpha", "0.05", "--label", "a", "--label", "b", "--workload", "kv")
	r := cr.ByRuns()
	if !cr.Runs || !cr.FailOnRegression || r.Alpha != 0.05 || r.MinEffect["p99"] != 0.2 || len(r.Labels) != 2 || r.Workload != "kv" || r.Seed == 0 || cr.Check() != nil {
		t.Errorf("compare --runs %+v", r)
	}
	cs := NewCompare()
	parse(cs.Add, "--label", "a", "--p99", "20ms")
	if err := cs.Check(); err == nil || cs.Sweeps.Criteria.SLA != 20*time.Millisecond {
		t.Errorf("compare of one label's sweeps: %v", err)
	}
}
