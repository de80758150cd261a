package validity

import (
	"strings"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/result"
)

// quietRun is a valid run: ten intervals with host and server figures,
// 1,000 reads, a judged precise client, a server that kept running.
func quietRun() *result.Doc {
	d := &result.Doc{Duration: 10000,
		Ops:          []result.OpStats{{Name: "read", Count: 1000}},
		Client:       result.Client{CPUPercent: 12, Cores: 2, CPUWait: result.F(0.04)},
		BeforeStatus: map[string]any{"uptimeMillis": int64(100_000)},
		AfterStatus:  map[string]any{"uptimeMillis": int64(110_050)},
		Schedule: result.Schedule{Mode: "open", Precision: &result.Precision{Judged: true, SendLagP99: result.F(0.02),
			Share: result.F(0.05), Op: "read", Bound: 0.1}},
	}
	for i := range 10 {
		d.Intervals = append(d.Intervals, result.Interval{Start: time.Unix(int64(i), 0), Seconds: 1,
			Host:   map[string]float64{keySteal: 0.5, keySwapIn: 0, keySwapOut: 0},
			Server: map[string]float64{keyCache: 500, keyCacheMax: 1000}})
	}
	return d
}

// states are member state series a second apart, a 0 a sample that did
// not read the member.
func states(byMember map[string][]float64) []result.Series {
	var out []result.Series
	for _, m := range []string{"a:1", "b:1"} {
		s := result.Series{Name: result.MemberState, Member: m}
		for i, v := range byMember[m] {
			p := result.DataPoint{Timestamp: time.Unix(int64(i), 0)}
			if v != 0 {
				p.Value = result.F(v)
			}
			s.DataPoints = append(s.DataPoints, p)
		}
		out = append(out, s)
	}
	return out
}

func outcome(v result.Validity, rule string) result.ValidityRule {
	for _, r := range v.Rules {
		if r.Rule == rule {
			return r
		}
	}
	return result.ValidityRule{}
}

func TestJudge(t *testing.T) {
	for _, tc := range []struct {
		name    string
		change  func(d *result.Doc)
		state   string
		rule    string
		outcome string
		ev      string
	}{
		{"quiet", func(*result.Doc) {}, result.Valid, CPUSteal, result.Valid, "mean CPU steal 0.50%"},
		{"client starved", func(d *result.Doc) {
			d.Client.ClientBound, d.Client.Reasons = true, []string{"client CPU 97% of its 2 cores"}
		}, result.Invalid, ClientSaturated, result.Invalid, "client CPU 97%"},
		{"starved client", func(d *result.Doc) { d.Client.CPUWait = result.F(0.76) }, result.Suspect, ClientStarved, result.Suspect, "76% of the time they were ready to run"},
		{"busy client host", func(d *result.Doc) { d.Client.CPUWait = result.F(0.3) }, result.Valid, ClientStarved, result.Valid, "30%"},
		{"imprecise client", func(d *result.Doc) {
			d.Schedule.Precision.Share, d.Schedule.Precision.Flagged = result.F(0.6), true
		}, result.Suspect, ClientImprecise, result.Suspect, "60% of read's p50"},
		{"steal", func(d *result.Doc) {
			for i := range d.Intervals {
				d.Intervals[i].Host[keySteal] = 25
			}
		}, result.Invalid, CPUSteal, result.Invalid, "25%"},
		{"restarted", func(d *result.Doc) { d.AfterStatus["uptimeMillis"] = int64(3_000) }, result.Invalid, ServerRestarted, result.Invalid, "uptime 100s before"},
		{"uptime in seconds", func(d *result.Doc) {
			d.BeforeStatus, d.AfterStatus = map[string]any{"uptime": 100.0}, map[string]any{"uptime": 110.0}
		}, result.Valid, ServerRestarted, result.Valid, ""},
		{"no uptime", func(d *result.Doc) { d.BeforeStatus = nil }, result.Valid, ServerRestarted, result.NotJudged, "neither uptime nor opcounters"},
		{"counters fell", func(d *result.Doc) {
			d.BeforeStatus = map[string]any{"opcounters": map[string]any{"insert": int64(1200), "query": int64(40)}}
			d.AfterStatus = map[string]any{"opcounters": map[string]any{"insert": int64(30), "query": int64(41)}}
		}, result.Invalid, ServerRestarted, result.Invalid, "opcounters fell (insert 1200 → 30)"},
		{"counters grew", func(d *result.Doc) {
			d.BeforeStatus = map[string]any{"opcounters": map[string]any{"insert": int64(1200)}}
			d.AfterStatus = map[string]any{"opcounters": map[string]any{"insert": int64(2000)}}
		}, result.Valid, ServerRestarted, result.Valid, "only grew"},
		{"cache over", func(d *result.Doc) { d.Intervals[3].Server[keyCache] = 1020 }, result.Suspect, CacheOverfull, result.Suspect, "102%"},
		{"swapping", func(d *result.Doc) {
			for i := range d.Intervals {
				d.Intervals[i].Host[keySwapIn] = 2000
			}
		}, result.Invalid, Swapping, result.Invalid, "2000 pages"},
		{"swap read on the client's host", func(d *result.Doc) {
			d.Metrics.Measurements = []result.Series{{Name: result.CPUUser, Source: "local"}}
		}, result.Valid, Swapping, result.Valid, "from this host's /proc (/proc/vmstat's pswpin and pswpout): the server shares the client's host"},
		{"no swap counters", func(d *result.Doc) {
			for i := range d.Intervals {
				delete(d.Intervals[i].Host, keySwapIn)
			}
		}, result.Valid, Swapping, result.NotJudged, "the host's figures carry no swap counters"},
		{"host source died", func(d *result.Doc) {
			for i := 3; i < 10; i++ {
				d.Intervals[i].Host = nil
			}
		}, result.Suspect, TelemetrySilent, result.Suspect, "the host's figures are missing from 70%"},
		{"few operations", func(d *result.Doc) {
			d.Ops = append(d.Ops, result.OpStats{Name: "scan", Count: 40})
		}, result.Suspect, FewOperations, result.Suspect, "scan 40"},
		{"member lagging", func(d *result.Doc) {
			d.Metrics.Members = []result.Series{{Name: result.ReplicationLag, Member: "b:27017",
				DataPoints: []result.DataPoint{{Value: result.F(2)}, {Value: result.F(75)}}}}
		}, result.Invalid, MemberLag, result.Invalid, "75 s, of b:27017"},
		{"standalone", func(*result.Doc) {}, result.Valid, MemberLag, result.NotJudged, "no replication lag series"},
		{"not a replica set", func(*result.Doc) {}, result.Valid, MemberState, result.NotJudged, "no member state series"},
		{"members kept their states", func(d *result.Doc) {
			d.Metrics.Members = states(map[string][]float64{"a:1": {1, 1, 1}, "b:1": {2, 0, 2}})
		}, result.Valid, MemberState, result.Valid, "2 member(s) kept their state over 3 samples (primary a:1)"},
		{"a member recovering", func(d *result.Doc) {
			d.Metrics.Members = states(map[string][]float64{"a:1": {1, 1, 1}, "b:1": {2, 3, 2}})
		}, result.Invalid, MemberState, result.Invalid, "b:1 secondary → recovering 1 s into the run; b:1 recovering → secondary 2 s"},
		{"primary stepped down", func(d *result.Doc) {
			d.Metrics.Members = states(map[string][]float64{"a:1": {1, 2, 2}, "b:1": {2, 2, 1}})
		}, result.Invalid, MemberState, result.Invalid, "the primary changed: a:1 → b:1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := quietRun()
			tc.change(d)
			v := Judge(d, Default())
			r := outcome(v, tc.rule)
			if v.State != tc.state || r.Outcome != tc.outcome || !strings.Contains(r.Evidence, tc.ev) {
				t.Errorf("state %s, %s %s %q; want %s, %s %q\n%s", v.State, tc.rule, r.Outcome, r.Evidence, tc.state, tc.outcome, tc.ev, Line(v))
			}
		})
	}
}

func TestParseAndOff(t *testing.T) {
	b := Default()
	if err := Parse(b, "cpu-steal=1,2"); err != nil {
		t.Fatal(err)
	}
	d := quietRun()
	for i := range d.Intervals {
		d.Intervals[i].Host[keySteal] = 1.5
	}
	if v := Judge(d, b); v.State != result.Suspect {
		t.Errorf("steal 1.5%% with bounds 1,2: %s, want suspect", Line(v))
	}
	if err := Parse(b, "cpu-steal=off"); err != nil {
		t.Fatal(err)
	}
	if v := Judge(d, b); v.State != result.Valid {
		t.Errorf("steal off: %s, want valid", Line(v))
	}
	for _, bad := range []string{"steal=5", "cpu-steal", "cpu-steal=NaN", "cpu-steal=-1", "cpu-steal=5,2", "cpu-steal=1,2,3", "cpu-steal=+Inf"} {
		if err := Parse(Default(), bad); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}

func TestCounts(t *testing.T) {
	d := quietRun()
	if !Counts(d, false) {
		t.Error("a run stored before validity was judged must count")
	}
	d.Validity = &result.Validity{State: result.Invalid}
	if Counts(d, false) || !Counts(d, true) {
		t.Error("an invalid run counts only when invalid runs are asked for")
	}
	d.Validity.State = result.Suspect
	if !Counts(d, false) {
		t.Error("a suspect run counts")
	}
}

func TestFilter(t *testing.T) {
	docs := []result.Doc{{RunID: "a"}, {RunID: "b", Validity: &result.Validity{State: result.Invalid}}, {RunID: "c", Validity: &result.Validity{State: result.Suspect}}}
	kept, left := Filter(docs, false)
	if len(kept) != 2 || kept[0].RunID != "a" || kept[1].RunID != "c" || left != 1 || LeftOut(left) == "" {
		t.Errorf("kept %v, left %d", kept, left)
	}
	if kept, left = Filter(docs, true); len(kept) != 3 || left != 0 || LeftOut(left) != "" {
		t.Errorf("with invalid runs: kept %d, left %d", len(kept), left)
	}
}
