package options

import (
	"strings"
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
	if s.ID == "" {
		t.Error("a sweep without an id")
	}
	sw.Group = "g1"
	if s := sw.Sweep(); s.ID != "g1" {
		t.Errorf("a group's sweep: id %q, want the group's", s.ID)
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
	if c.ID == "" || c.Search.Max != 64 || c.Search.MinGain != 0.1 || c.Search.Start != 1 || c.Base.Scenario.Workload != "kv" {
		t.Errorf("calibrate %+v", c)
	}
	cr := NewCompare()
	parse(cr.Add, "--runs", "--fail-on-regression", "--min-effect", "p99=20%", "--alpha", "0.05", "--label", "a", "--label", "b", "--workload", "kv")
	r := cr.ByRuns()
	if !cr.Runs || !cr.FailOnRegression || r.Judging.Alpha != 0.05 || r.Judging.MinEffect["p99"] != 0.2 || r.Judging.Corrected() != "bh" || len(r.Labels) != 2 || r.Workload != "kv" || r.Judging.Seed == 0 || cr.Check() != nil {
		t.Errorf("compare --runs %+v", r)
	}
	bad := NewCompare()
	parse(bad.Add, "--label", "a", "--label", "b", "--correction", "bonferroni")
	if err := bad.Check(); err == nil || !strings.HasPrefix(err.Error(), "--correction: \"bonferroni\" is not a correction") {
		t.Errorf("compare --correction bonferroni: %v", err)
	}
	if s := bad.BySweeps(); s.Judging.Alpha != 0.05 || s.Judging.Correction != "bonferroni" {
		t.Errorf("sweeps' judging %+v", s.Judging)
	}
	for _, args := range [][]string{{"--alpha", "NaN"}, {"--runs", "--alpha", "NaN"}} {
		nan := NewCompare()
		parse(nan.Add, append(args, "--label", "a", "--label", "b")...)
		if err := nan.Check(); err == nil || !strings.HasPrefix(err.Error(), "--alpha: NaN is not valid") {
			t.Errorf("compare %v: %v, want --alpha refused", args, err)
		}
	}
	var ch Changes
	parse(ch.Add, "--p", "NaN")
	if _, err := ch.Checked(); err == nil || !strings.HasPrefix(err.Error(), "--p: NaN is not valid") {
		t.Errorf("changes --p NaN: %v, want refused", err)
	}
	cs := NewCompare()
	parse(cs.Add, "--label", "a", "--p99", "20ms")
	if err := cs.Check(); err == nil || cs.Sweeps.Criteria.SLA != 20*time.Millisecond {
		t.Errorf("compare of one label's sweeps: %v", err)
	}
}

// ftdc's window: its times as given (UTC without a zone), --to after
// --from, and figures by their names.
func TestFTDCWindow(t *testing.T) {
	var f FTDC
	fl := pflag.NewFlagSet("x", pflag.ContinueOnError)
	f.Add(fl)
	if err := fl.Parse([]string{"--from", "2026-03-01T12:00:00", "--to", "2026-03-01T13:00:00Z", "--metric", "inserts"}); err != nil {
		t.Fatal(err)
	}
	from, to, err := f.Window()
	if err != nil || !from.Equal(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)) || to.Sub(from) != time.Hour {
		t.Errorf("window %v to %v, %v", from, to, err)
	}
	f.From, f.To = f.To, f.From
	if _, _, err := f.Window(); err == nil || err.Error() != "--to 2026-03-01T12:00:00Z is not after --from 2026-03-01T13:00:00Z" {
		t.Errorf("a window backwards: %v", err)
	}
	open := FTDC{Metrics: []string{"disk"}}
	if _, _, err := open.Window(); err == nil || !strings.HasPrefix(err.Error(), `--metric: "disk" is not a figure`) {
		t.Errorf("an unknown figure: %v", err)
	}
}
