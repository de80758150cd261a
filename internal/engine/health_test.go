package engine

import (
	"strings"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/hist"
)

// verdictFixture builds an open-loop result of three one-second intervals
// at 1000/s with 8 workers, then lets the case change it.
func verdictFixture(change func(r *Result)) *Result {
	start := time.Unix(1000, 0)
	r := &Result{Mode: "open", Workers: 8, Start: start, End: start.Add(3 * time.Second), Cores: 2,
		CPU: 300 * time.Millisecond, Intended: 3000,
		Ops: []OpTotals{{Name: "read", Count: 3000, Latency: hist.New(), Service: hist.New()}}}
	for i := range 3 {
		r.Intervals = append(r.Intervals, Interval{Index: i, Start: start.Add(time.Duration(i) * time.Second),
			Length: time.Second, Sent: 1000, MaxLag: time.Millisecond, PeakInFlight: 2})
	}
	change(r)
	return r
}

func TestVerdicts(t *testing.T) {
	cfg := (&Config{Workers: 8}).withDefaults()
	tests := []struct {
		name           string
		change         func(r *Result)
		client, server bool
		why            string
	}{
		{"healthy", func(*Result) {}, false, false, ""},
		{"interrupted is neither", func(r *Result) {
			r.Partial, r.Reason, r.CPU, r.Dropped = true, "interrupted", 6*time.Second, 500
		}, false, false, "interrupted"},
		{"dead target: fast failures on a busy client", func(r *Result) {
			r.Ops[0].Count, r.Ops[0].Errors[Network] = 0, 3000
			r.CPU = 6 * time.Second // 100% of 2 cores spent failing
		}, false, true, "errors: 3000 of 3000"},
		{"nothing completed", func(r *Result) {
			r.Ops[0].Count, r.Abandoned = 0, 3000
		}, false, true, "no operation completed"},
		{"server failures", func(r *Result) {
			r.Ops[0].Count, r.Ops[0].Errors[Timeout] = 2500, 500
		}, false, true, "500 of 3000"},
		{"overload: all workers busy, drops", func(r *Result) {
			r.Dropped, r.Intervals[2].Dropped, r.Intervals[2].MaxLag, r.Intervals[2].PeakInFlight = 400, 400, 11*time.Second, 8
		}, false, true, "all 8 workers busy"},
		{"stall: lag grew, workers busy", func(r *Result) {
			r.Late, r.Intervals[1].Late, r.Intervals[1].MaxLag, r.Intervals[1].PeakInFlight = 400, 400, 900*time.Millisecond, 8
		}, false, true, "all 8 workers busy"},
		{"client CPU at the cores", func(r *Result) { r.CPU = 5700 * time.Millisecond }, true, false, "client CPU at 95%"},
		{"late while workers were free", func(r *Result) {
			r.Late, r.Intervals[1].Late, r.Intervals[1].MaxLag = 300, 300, 40*time.Millisecond
		}, true, false, "workers were free"},
		{"closed loop at the cores", func(r *Result) {
			r.Mode, r.CPU, r.Intervals[1].MaxLag = "closed", 5700*time.Millisecond, 0
		}, true, false, "client CPU"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := verdictFixture(tc.change)
			v := judge(r, cfg)
			text := strings.Join(v.Reasons, "; ") + v.NotJudged
			if v.ClientBound != tc.client || v.ServerBound != tc.server || !strings.Contains(text, tc.why) {
				t.Errorf("got client %v server %v %q; want client %v server %v, mentioning %q",
					v.ClientBound, v.ServerBound, text, tc.client, tc.server, tc.why)
			}
		})
	}
}

func TestPrecisionVerdict(t *testing.T) {
	lat := func(us ...int64) *hist.H {
		h := hist.New()
		for _, v := range us {
			hist.Record(h, time.Duration(v)*time.Microsecond)
		}
		return h
	}
	tests := []struct {
		name    string
		r       *Result
		judged  bool
		flagged bool
		op      string
		note    string
	}{
		{"precise", &Result{Mode: "open", Lag: lat(10, 12, 20),
			Ops: []OpTotals{{Name: "read", Latency: lat(300, 300, 400)}, {Name: "update", Latency: lat(900)}}}, true, false, "read", ""},
		{"lag a tenth of the fastest op", &Result{Mode: "open", Lag: lat(500, 1450),
			Ops: []OpTotals{{Name: "update", Latency: lat(2000)}, {Name: "read", Latency: lat(777)}}}, true, true, "read", ""},
		{"make demo: a lag under 0.1 ms beside sub-millisecond reads", &Result{Mode: "open", Lag: lat(5, 10, 23),
			Ops: []OpTotals{{Name: "read", Latency: lat(102, 102, 150)}}}, true, false, "read", "under 100µs"},
		{"a stalled server's lag in a server-bound run", &Result{Mode: "open", ServerBound: true, Lag: lat(2_000_000, 6_000_000),
			Ops: []OpTotals{{Name: "read", Latency: lat(442, 442, 9_000_000)}}}, true, false, "read", "server-bound"},
		{"an overloaded client's lag", &Result{Mode: "open", ClientBound: true, Lag: lat(2000, 40_000),
			Ops: []OpTotals{{Name: "insert", Latency: lat(2200, 2200, 50_000)}}}, true, true, "insert", ""},
		{"closed loop", &Result{Mode: "closed", Ops: []OpTotals{{Name: "read", Latency: lat(300)}}}, false, false, "", "closed loop"},
		{"nothing sent", &Result{Mode: "open", Lag: hist.New(), Ops: []OpTotals{{Name: "read", Latency: hist.New()}}}, false, false, "", "no operation was sent"},
		{"nothing succeeded", &Result{Mode: "open", Lag: lat(10), Ops: []OpTotals{{Name: "read", Latency: hist.New()}}}, false, false, "", "no operation succeeded"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := judgePrecision(tc.r)
			if p.Judged != tc.judged || p.Flagged != tc.flagged || p.Op != tc.op || !strings.Contains(p.Note, tc.note) {
				t.Errorf("got %+v; want judged %v flagged %v op %q note containing %q", p, tc.judged, tc.flagged, tc.op, tc.note)
			}
			if !p.Judged && (p.SendLagP99 != 0 || p.Share != 0) {
				t.Errorf("no verdict, yet figures: %+v", p)
			}
			if p.Judged && p.Share != float64(p.SendLagP99)/float64(p.LatencyP50) {
				t.Errorf("share %v is not %v / %v", p.Share, p.SendLagP99, p.LatencyP50)
			}
		})
	}
}
