package main

import (
	"slices"
	"testing"
	"time"
)

// TestTruthJoinsByRequest: a client 7 µs late to call its task, which
// builds its request for 1 µs, whose write reaches the responder 3 µs
// later and which ends 2 µs after the reply's kernel send, against a
// responder that replies 4 µs after due: the latency error is everything
// but the responder's lateness, the service error the request and
// receive paths.
func TestTruthJoinsByRequest(t *testing.T) {
	const origin = int64(1_000_000_000)
	d := 100 * µs
	st := &serverTrace{origin: origin, delay: d, reqs: map[int32]reqRecord{}}
	var ops []clientOp
	for i := range 10 {
		intended := origin + int64(i)*int64(msec)
		called := intended + 7_000
		sent := called + 1_000
		arrived := sent + 3_000
		due := arrived + int64(d)
		tx := due + 4_000
		end := tx + 2_000
		st.reqs[int32(100+i)] = reqRecord{ID: int32(100 + i), Arrived: arrived, Due: due, Sent: tx}
		ops = append(ops, clientOp{id: int64(100 + i), intended: intended, called: called, sent: sent, arrived: end, returned: end + 50_000,
			latency: end - intended, service: end - sent, end: end})
	}
	ops = append(ops, clientOp{id: 999, intended: origin}) // no responder record
	rows, joined, unmatched := truth(ops, st, true, 0)
	if joined != 10 || unmatched != 1 {
		t.Fatalf("joined %d unmatched %d: want 10 and 1", joined, unmatched)
	}
	want := map[int]int64{0: 13_000, 1: 5_000, 2: 7_000, 3: 1_000, 4: 3_000, 5: 2_000, 6: 2_000, 7: 50_000, 8: 4_000, 9: int64(d) + 4_000}
	for i, w := range want {
		for _, v := range rows[i].v {
			if v != w {
				t.Fatalf("%s: got %d ns want %d", rows[i].name, v, w)
			}
		}
	}
}

// TestIdealLatencyStall: the ideal client's latency is the stall model's
// (S − k/R + d in a stall), and an in-flight bound holds the later ones.
func TestIdealLatencyStall(t *testing.T) {
	const origin = int64(5 * sec)
	d := 100 * µs
	st := Stalls{Length: sec, Every: 10 * sec, First: 2 * sec}
	var ops []clientOp
	for i := range 4000 { // 1,000/s for 4 s
		ops = append(ops, clientOp{intended: origin + int64(i)*int64(msec)})
	}
	lat := idealLatency(ops, origin, 0, d, st)
	for i, l := range lat {
		at := time.Duration(i) * msec
		if w := st.Reply(at, d) - at; time.Duration(l) != w {
			t.Fatalf("op %d: got %v want %v", i, time.Duration(l), w)
		}
	}
	bounded := idealLatency(ops, origin, 10, d, st)
	if slices.Equal(bounded, lat) {
		t.Error("10 in flight: want the stall's later operations held behind the bound")
	}
	for i := range bounded {
		if bounded[i] < lat[i] {
			t.Fatalf("op %d: bounded %v shorter than unbounded %v", i, time.Duration(bounded[i]), time.Duration(lat[i]))
		}
	}
}
