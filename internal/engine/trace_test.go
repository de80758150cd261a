package engine

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
	"time"
)

// numberedTask numbers its requests from a counter shared by every
// worker, as the wire client does, and succeeds at once.
type numberedTask struct {
	ids  *atomic.Int64
	last int64
}

func (t *numberedTask) Do(context.Context) (int, error) {
	t.last = t.ids.Add(1)
	return 0, nil
}

func (t *numberedTask) LastRequest() (int64, bool) { return t.last, true }

// TestTraceKeepsEveryMeasuredOperation: the calibration trace holds one
// record per measured operation, at the schedule's intended starts (a
// constant pacer's slots, 1 ms apart), with the latency and service
// time the histograms got, and the request id the task gave.
func TestTraceKeepsEveryMeasuredOperation(t *testing.T) {
	var ids atomic.Int64
	tr := NewTrace(10_000)
	cfg := Config{Ops: []string{"read"}, Workers: 4, Pacer: NewConstant(1000),
		Warmup: 100 * time.Millisecond, Duration: 300 * time.Millisecond, Trace: tr}
	r, err := Run(context.Background(), cfg, func(int) (Task, error) { return &numberedTask{ids: &ids}, nil })
	if err != nil {
		t.Fatal(err)
	}
	recs := tr.Records()
	if int64(len(recs)) != r.Completed() || tr.Overflow() != 0 {
		t.Fatalf("records: got %d (overflow %d) want %d, one per measured operation", len(recs), tr.Overflow(), r.Completed())
	}
	slices.SortFunc(recs, func(a, b TraceRecord) int { return int(a.Intended - b.Intended) })
	seen := map[int64]bool{}
	for i, rec := range recs {
		if i > 0 && rec.Intended-recs[i-1].Intended != int64(time.Millisecond) {
			t.Fatalf("record %d: intended %d, %d after the previous: want the schedule's 1 ms", i, rec.Intended, rec.Intended-recs[i-1].Intended)
		}
		if rec.Latency != time.Duration(rec.Returned-rec.Intended) || rec.Service != time.Duration(rec.Returned-rec.Sent) {
			t.Fatalf("record %d: latency %v service %v: want returned − intended %v and returned − sent %v",
				i, rec.Latency, rec.Service, time.Duration(rec.Returned-rec.Intended), time.Duration(rec.Returned-rec.Sent))
		}
		if rec.Request <= 0 || seen[rec.Request] || rec.Arrived != 0 {
			t.Fatalf("record %d: request %d (seen %v), arrived %d: want a new id and no arrival", i, rec.Request, seen[rec.Request], rec.Arrived)
		}
		seen[rec.Request] = true
	}
	// The first measured slot is the first due at or after the warm-up.
	if got := time.Duration(recs[0].Intended - r.Start.UnixNano()); got != 0 {
		t.Errorf("first intended start: %v after the phase's start, want 0", got)
	}
}

func TestTraceIsBounded(t *testing.T) {
	tr := NewTrace(3)
	for range 5 {
		tr.add(TraceRecord{})
	}
	if len(tr.Records()) != 3 || tr.Overflow() != 2 {
		t.Errorf("got %d records, overflow %d: want 3 and 2", len(tr.Records()), tr.Overflow())
	}
	if got := len(NewTrace(MaxTrace + 1).recs); got != MaxTrace {
		t.Errorf("capacity: got %d want at most %d", got, MaxTrace)
	}
}
