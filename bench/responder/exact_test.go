package main

import (
	"math"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/mongobench/mongobench/internal/result"
)

const (
	µs   = time.Microsecond
	msec = time.Millisecond
	sec  = time.Second
)

func TestStallsIn(t *testing.T) {
	st := Stalls{Length: 1 * sec, Every: 10 * sec, First: 5 * sec}
	tests := []struct {
		at      time.Duration
		in      bool
		wantEnd time.Duration
	}{
		{0, false, 0},
		{5*sec - 1, false, 0},
		{5 * sec, true, 6 * sec},
		{6*sec - 1, true, 6 * sec},
		{6 * sec, false, 0},
		{15*sec + 500*msec, true, 16 * sec},
		{14 * sec, false, 0},
	}
	for _, tt := range tests {
		in, end := st.In(tt.at)
		if in != tt.in || end != tt.wantEnd {
			t.Errorf("In(%v): got %v %v want %v %v", tt.at, in, end, tt.in, tt.wantEnd)
		}
	}
	if in, _ := (Stalls{}).In(5 * sec); in {
		t.Error("no stalls: got a stall")
	}
}

func TestStallsReply(t *testing.T) {
	st := Stalls{Length: 1 * sec, Every: 10 * sec, First: 5 * sec}
	d := 100 * µs
	tests := []struct {
		name    string
		arrival time.Duration
		want    time.Duration
	}{
		{"before any stall", 1 * sec, 1*sec + d},
		{"d ends just before the stall", 5*sec - d - 1, 5*sec - 1},
		{"d would end at the stall's start", 5*sec - d, 6 * sec},
		{"d straddles the start: the rest after the stall", 5*sec - 40*µs, 6*sec + 60*µs},
		{"first in the stall: S + d", 5 * sec, 6*sec + d},
		{"k-th in the stall at 2000/s: S - k/R + d", 5*sec + 1000*500*µs, 6*sec + d},
		{"last instant of the stall", 6*sec - 1, 6*sec + d},
		{"just after the stall", 6 * sec, 6*sec + d},
		{"second stall", 15*sec + 250*msec, 16*sec + d},
		{"between stalls", 10 * sec, 10*sec + d},
	}
	for _, tt := range tests {
		if got := st.Reply(tt.arrival, d); got != tt.want {
			t.Errorf("%s: Reply(%v): got %v want %v", tt.name, tt.arrival, got, tt.want)
		}
	}
	if got := (Stalls{}).Reply(7*sec, d); got != 7*sec+d {
		t.Errorf("no stalls: got %v want %v", got, 7*sec+d)
	}
}

func TestStallsValidate(t *testing.T) {
	tests := []struct {
		st   Stalls
		fail bool
	}{
		{Stalls{}, false},
		{Stalls{Length: sec, Every: 10 * sec, First: 5 * sec}, false},
		{Stalls{Length: 10 * sec, Every: 10 * sec}, true},
		{Stalls{Length: -sec, Every: 10 * sec}, true},
		{Stalls{Length: sec, Every: 10 * sec, First: -sec}, true},
	}
	for _, tt := range tests {
		if err := tt.st.Validate(); (err != nil) != tt.fail {
			t.Errorf("%+v: got %v want failure %v", tt.st, err, tt.fail)
		}
	}
}

func TestPercentile(t *testing.T) {
	vals := []time.Duration{1 * msec, 2 * msec, 3 * msec, 4 * msec}
	tests := []struct {
		q    float64
		want float64
	}{{0.25, 1}, {0.5, 2}, {0.51, 3}, {0.99, 4}, {1, 4}, {0, 1}}
	for _, tt := range tests {
		if got := Percentile(vals, tt.q); got != tt.want {
			t.Errorf("q %v: got %v want %v", tt.q, got, tt.want)
		}
	}
	if got := Percentile(nil, 0.5); !math.IsNaN(got) {
		t.Errorf("no values: got %v want NaN", got)
	}
}

func TestComputeNoStall(t *testing.T) {
	r := Run{Rate: 2000, Warmup: sec, Duration: 2 * sec, InFlight: 64, Delay: 100 * µs}
	ex, err := r.Compute()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := len(ex.Latency), 4000; got != want {
		t.Errorf("measured: got %d want %d", got, want)
	}
	for _, q := range []float64{0.5, 0.99, 0.999, 1} {
		if got := Percentile(ex.Latency, q); got != 0.1 {
			t.Errorf("latency q%v: got %v ms want 0.1", q, got)
		}
		if got := Percentile(ex.Service, q); got != 0.1 {
			t.Errorf("service q%v: got %v ms want 0.1", q, got)
		}
	}
	if ex.Bound != 0 {
		t.Errorf("bound: got %d want 0", ex.Bound)
	}
}

// TestComputeStallFormula checks the simulation against the closed form:
// with enough slots, the k-th request due in a stall of S at rate R
// waits S − k/R + d, every other request d.
func TestComputeStallFormula(t *testing.T) {
	const rate = 1000.0
	d := 100 * µs
	st := Stalls{Length: sec, Every: 10 * sec, First: 5 * sec}
	r := Run{Rate: rate, Warmup: 2 * sec, Duration: 10 * sec, InFlight: 0, Delay: d, Stalls: st}
	ex, err := r.Compute()
	if err != nil {
		t.Fatal(err)
	}
	// Expected: 9,000 requests at d; in the stall k = 0..999 at S − k/R + d;
	// the one request whose d straddles the stall's start (due at 5 s − d
	// is not one: 4.9999 s is not a multiple of 1 ms) none.
	var want []time.Duration
	for k := 0; k < 1000; k++ {
		want = append(want, sec-time.Duration(k)*msec+d)
	}
	for range 9000 {
		want = append(want, d)
	}
	if len(ex.Latency) != len(want) {
		t.Fatalf("measured: got %d want %d", len(ex.Latency), len(want))
	}
	for _, q := range []float64{0.5, 0.9, 0.95, 0.99, 0.999, 1} {
		w := Percentile(sortDurations(want), q)
		if got := Percentile(ex.Latency, q); got != w {
			t.Errorf("latency q%v: got %v ms want %v ms", q, got, w)
		}
		if got := Percentile(ex.Service, q); got != w {
			t.Errorf("service q%v (unbounded: sent on time): got %v ms want %v ms", q, got, w)
		}
	}
	// p99 is the 9,900th shortest of 10,000, the 101st longest: k = 100,
	// S − 100 ms + d.
	if got, want := Percentile(ex.Latency, 0.99), 900.1; math.Abs(got-want) > 1e-9 {
		t.Errorf("p99: got %v want %v", got, want)
	}
}

func sortDurations(v []time.Duration) []time.Duration {
	out := append([]time.Duration(nil), v...)
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// TestComputeInFlightBound: with fewer slots than requests due in the
// stall, the rest wait for a slot; their latency still counts from the
// intended start, their service time does not include the stall.
func TestComputeInFlightBound(t *testing.T) {
	d := 100 * µs
	st := Stalls{Length: sec, Every: 10 * sec, First: 5 * sec}
	r := Run{Rate: 1000, Warmup: 2 * sec, Duration: 10 * sec, InFlight: 10, Delay: d, Stalls: st}
	ex, err := r.Compute()
	if err != nil {
		t.Fatal(err)
	}
	if ex.Bound == 0 {
		t.Fatal("bound: got 0, want the requests due in the stall beyond 10 slots")
	}
	// The first ten due in the stall are sent on time: service S − k/R + d.
	if got, want := Percentile(ex.Service, 1), 1000.1; math.Abs(got-want) > 1e-9 {
		t.Errorf("service max: got %v want %v", got, want)
	}
	// The 11th (due at 5.010 sec) is sent when the first ten return at
	// 6 s + d and returns d later: latency 1 s − 10 ms + 2d.
	lat := sortDurations(ex.Latency)
	found := false
	for _, v := range lat {
		if v == sec-10*msec+2*d {
			found = true
		}
	}
	if !found {
		t.Errorf("no request with latency %v (the 11th in the stall)", sec-10*msec+2*d)
	}
	// Latency is never below d, and the longest is still S + d.
	if got := Percentile(ex.Latency, 1); got != 1000.1 {
		t.Errorf("latency max: got %v want 1000.1", got)
	}
}

func TestComputeRejects(t *testing.T) {
	for _, r := range []Run{
		{Rate: 0, Duration: sec},
		{Rate: 10, Duration: 0},
		{Rate: 10, Duration: sec, Stalls: Stalls{Length: sec, Every: sec}},
	} {
		if _, err := r.Compute(); err == nil {
			t.Errorf("%+v: got no error", r)
		}
	}
}

func TestRows(t *testing.T) {
	ex := Exact{Latency: []time.Duration{100 * µs, 100 * µs, 200 * µs}, Service: []time.Duration{100 * µs, 100 * µs, 100 * µs}}
	p := func(v float64) *float64 { return &v }
	op := result.OpStats{Name: "READ",
		Latency: result.Dist{P50: p(0.1005), P99: p(0.25), P999: p(0.25)},
		Service: result.Dist{P50: p(0.1)}}
	rows := Rows(ex, op)
	if len(rows) != 6 {
		t.Fatalf("rows: got %d want 6", len(rows))
	}
	tests := []struct {
		i        int
		exact    float64
		within   bool
		reported bool
	}{
		{0, 0.1, true, true},   // 0.5 µs off
		{1, 0.2, true, true},   // 50 µs off: the bar itself
		{2, 0.2, true, true},   // as p99
		{3, 0.1, true, true},   // exact
		{4, 0.1, false, false}, // service p99 not reported: missing
	}
	for _, tt := range tests {
		r := rows[tt.i]
		if r.Exact != tt.exact {
			t.Errorf("row %d exact: got %v want %v", tt.i, r.Exact, tt.exact)
		}
		if got := r.Within(); got != tt.within {
			t.Errorf("row %d within: got %v want %v", tt.i, got, tt.within)
		}
		if got := !math.IsNaN(r.Reported); got != tt.reported {
			t.Errorf("row %d reported: got %v want %v", tt.i, got, tt.reported)
		}
	}
	if !rows[0].Within() {
		t.Errorf("0.5 µs off 100 µs: got not within")
	}
	if r := (Row{Exact: 0.2, Reported: 0.26}); r.Within() {
		t.Errorf("60 µs off 200 µs: got within")
	}
	if r := (Row{Exact: 900, Reported: 908}); !r.Within() {
		t.Errorf("8 ms off 900 ms (0.9%%): got not within")
	}
	if r := (Row{Exact: 900, Reported: 910}); r.Within() {
		t.Errorf("10 ms off 900 ms (1.1%%): got within")
	}
}

func TestParseAndFrame(t *testing.T) {
	cmd := bsoncore.NewDocumentBuilder().AppendString("find", "usertable").AppendString("$db", "mongobench_data").Build()
	msg := frame(nil, request{id: 7, opcode: opMsg}, 7, cmd) // a request is framed like a reply
	req, err := parse(msg)
	if err != nil {
		t.Fatal(err)
	}
	if req.name != "find" || req.opcode != opMsg || str(req.cmd, "$db") != "mongobench_data" {
		t.Errorf("got %+v", req)
	}
	reply := frame(nil, req, 9, findReply("mongobench_data.usertable"))
	if to := int32(reply[8]) | int32(reply[9])<<8; to != 7 {
		t.Errorf("responseTo: got %d want 7", to)
	}
}
