package main

import (
	"bufio"
	"container/heap"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"
)

// clientOp is one measured operation of mongobench's calibration trace
// (run --trace): Unix nanoseconds, latency and service in nanoseconds.
type clientOp struct {
	id                                        int64
	intended, called, sent, arrived, returned int64
	latency, service                          int64
	end                                       int64 // when the operation ended: arrived, else returned
}

// serverTrace is the responder's trace file.
type serverTrace struct {
	origin int64
	delay  time.Duration
	stalls Stalls
	reqs   map[int32]reqRecord
	// txKernel and txWrite count the replies whose send is the kernel's
	// transmit stamp and those whose send is the write's return.
	txKernel, txWrite int
}

// readClientTrace reads run --trace's file: nine fields a line (called,
// the engine's call, apart from sent, the first request's write), or
// the eight of builds before that, whose sent is the call.
func readClientTrace(path string) ([]clientOp, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("client trace: %w", err)
	}
	defer func() { _ = f.Close() }() // read only
	var ops []clientOp
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		t := sc.Text()
		if line == 1 || strings.HasPrefix(t, "#") {
			continue
		}
		fs := strings.Split(t, "\t")
		if len(fs) == 8 { // called is sent
			fs = slices.Insert(fs, 3, fs[3])
		}
		if len(fs) != 9 {
			return nil, fmt.Errorf("client trace %s:%d: %d fields, want 9 (or 8)", path, line, len(fs))
		}
		var v [8]int64
		for i, j := range []int{0, 2, 3, 4, 5, 6, 7, 8} {
			if v[i], err = strconv.ParseInt(fs[j], 10, 64); err != nil {
				return nil, fmt.Errorf("client trace %s:%d: %w", path, line, err)
			}
		}
		op := clientOp{id: v[0], intended: v[1], called: v[2], sent: v[3], arrived: v[4], returned: v[5], latency: v[6], service: v[7], end: v[1] + v[6]}
		ops = append(ops, op)
	}
	return ops, sc.Err()
}

func readServerTrace(path string) (*serverTrace, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("responder trace: %w", err)
	}
	defer func() { _ = f.Close() }() // read only
	st := &serverTrace{reqs: make(map[int32]reqRecord)}
	sc := bufio.NewScanner(f)
	line := 0
	for sc.Scan() {
		line++
		t := sc.Text()
		fs := strings.Fields(t)
		if strings.HasPrefix(t, "#") {
			num := func(i int) int64 {
				if i >= len(fs) {
					return 0
				}
				n, _ := strconv.ParseInt(fs[i], 10, 64)
				return n
			}
			switch fs[1] {
			case "origin":
				st.origin = num(2)
			case "delay":
				st.delay = time.Duration(num(2))
			case "stall":
				st.stalls = Stalls{Length: time.Duration(num(2)), Every: time.Duration(num(3)), First: time.Duration(num(4))}
			}
			continue
		}
		if t == ServerTraceHeader {
			continue
		}
		if len(fs) != 9 {
			return nil, fmt.Errorf("responder trace %s:%d: %d fields, want 9", path, line, len(fs))
		}
		var v [8]int64
		for i := range v {
			if v[i], err = strconv.ParseInt(fs[i], 10, 64); err != nil {
				return nil, fmt.Errorf("responder trace %s:%d: %w", path, line, err)
			}
		}
		r := reqRecord{ID: int32(v[0]), Conn: v[1], Arrived: v[2], Read: v[3], Due: v[4], Begin: v[5], End: v[6], Sent: v[7], Stalled: fs[8] == "true"}
		if r.Arrived == 0 {
			r.Arrived = r.Read
		}
		switch {
		case r.Sent != 0:
			st.txKernel++
		case r.End != 0:
			st.txWrite++
			r.Sent = r.End
		default:
			continue // never sent (a stop inside a stall)
		}
		st.reqs[r.ID] = r
	}
	return st, sc.Err()
}

// truthRow is one quantity's distribution over the joined requests, in
// nanoseconds.
type truthRow struct {
	name string
	v    []int64
}

// idealLatency is, for every operation (by index into ops), the latency
// an ideal client would have seen: one that sends each operation at its
// intended start or, with every one of its inFlight slots busy, the
// moment one frees, and costs nothing; the responder answering by its
// model (the delay, the stalls, in its own frame from origin). ops must
// be sorted by intended start. inFlight 0 is unbounded.
func idealLatency(ops []clientOp, origin int64, inFlight int, delay time.Duration, st Stalls) []int64 {
	var free slots
	if inFlight > 0 {
		free = make(slots, inFlight)
		for i := range free {
			free[i] = math.MinInt64
		}
	}
	out := make([]int64, len(ops))
	for i, op := range ops {
		at := time.Duration(op.intended - origin)
		sent := at
		if inFlight > 0 && free[0] > at {
			sent = free[0]
		}
		done := st.Reply(sent, delay)
		if inFlight > 0 {
			free[0] = done
			heap.Fix(&free, 0)
		}
		out[i] = int64(done - at)
	}
	return out
}

// truth joins the two traces by request id and returns the error rows
// (reported − true) and the rows that say where it lives. Open loop:
// the true latency is the ideal client's (idealLatency) plus the
// responder's own lateness (its kernel send − due), the true service
// time the responder's kernel send − its kernel arrival. Closed loop:
// both are the latter.
func truth(ops []clientOp, st *serverTrace, open bool, inFlight int) (rows []truthRow, joined, unmatched int) {
	slices.SortFunc(ops, func(a, b clientOp) int { return cmpInt(a.intended, b.intended) })
	var ideal []int64
	if open {
		ideal = idealLatency(ops, st.origin, inFlight, st.delay, st.stalls)
	}
	names := []string{
		"latency error (reported − true)",
		"service error (reported − true)",
		"send lag: call − intended start (timer wake-up, scheduler; a gated write begins early by the write lead)",
		"build: send − call (the command built, the connection's checks)",
		"request path: responder's kernel arrival − send",
		"receive path: end − reply's kernel send",
		"loopback: client's kernel receive stamp − reply's kernel send",
		"receive lag: worker's return − client's kernel receive stamp",
		"instrument: reply's kernel send − due",
		"instrument: true service time",
	}
	rows = make([]truthRow, len(names))
	for i, n := range names {
		rows[i].name = n
	}
	for i, op := range ops {
		r, ok := st.reqs[int32(op.id)]
		if op.id < 0 || !ok {
			unmatched++
			continue
		}
		joined++
		trueSvc := r.Sent - r.Arrived
		trueLat := trueSvc
		if open {
			trueLat = ideal[i] + (r.Sent - r.Due)
		}
		rows[0].v = append(rows[0].v, op.latency-trueLat)
		rows[1].v = append(rows[1].v, op.service-trueSvc)
		if open {
			rows[2].v = append(rows[2].v, op.called-op.intended)
		}
		rows[3].v = append(rows[3].v, op.sent-op.called)
		rows[4].v = append(rows[4].v, r.Arrived-op.sent)
		rows[5].v = append(rows[5].v, op.end-r.Sent)
		if op.arrived != 0 {
			rows[6].v = append(rows[6].v, op.arrived-r.Sent)
			rows[7].v = append(rows[7].v, op.returned-op.arrived)
		}
		rows[8].v = append(rows[8].v, r.Sent-r.Due)
		rows[9].v = append(rows[9].v, trueSvc)
	}
	return rows, joined, unmatched
}

func cmpInt(a, b int64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// quantile is the nearest-rank quantile q of sorted v, in µs; NaN for
// none.
func quantile(v []int64, q float64) float64 {
	if len(v) == 0 {
		return math.NaN()
	}
	rank := min(max(int(math.Ceil(q*float64(len(v)))), 1), len(v))
	return float64(v[rank-1]) / 1e3
}

func usCell(v float64) string {
	if math.IsNaN(v) {
		return "missing"
	}
	return fmt.Sprintf("%+.1f", v)
}

func printTruthHeader(w io.Writer) {
	fmt.Fprintln(w, "| run | quantity (µs) | n | p50 | p90 | p99 | p99.9 | max |")
	fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---:|---:|")
}

// compareTruth prints the truth table's rows of one run.
func compareTruth(w io.Writer, label, clientFile, serverFile, loop string, inFlight int) error {
	if clientFile == "" || serverFile == "" {
		return errors.New("--table truth needs --client and --server")
	}
	if loop != "open" && loop != "closed" {
		return fmt.Errorf("--loop %q: want open or closed", loop)
	}
	ops, err := readClientTrace(clientFile)
	if err != nil {
		return err
	}
	st, err := readServerTrace(serverFile)
	if err != nil {
		return err
	}
	rows, joined, unmatched := truth(ops, st, loop == "open", inFlight)
	for _, r := range rows {
		slices.Sort(r.v)
		fmt.Fprintf(w, "| %s | %s | %d | %s | %s | %s | %s | %s |\n", label, r.name, len(r.v),
			usCell(quantile(r.v, 0.5)), usCell(quantile(r.v, 0.9)), usCell(quantile(r.v, 0.99)),
			usCell(quantile(r.v, 0.999)), usCell(quantile(r.v, 1)))
	}
	fmt.Fprintf(w, "| %s | joined %d of %d operations (%d without a responder record); replies sent at the kernel's transmit stamp %d, at the write's return %d | | | | | | |\n",
		label, joined, len(ops), unmatched, st.txKernel, st.txWrite)
	return nil
}
