package main

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"sync/atomic"
	"time"
)

// reqRecord is the responder's account of one hot-path request, as Unix
// nanoseconds on the host's wall clock (CLOCK_REALTIME, the clock of the
// kernel's socket stamps): the request's kernel arrival (0: the socket
// gave no stamp; Read is then the arrival), when it was read, when its
// reply was due, when the reply's write began and returned, and the
// reply's kernel transmit stamp (0: none; End is then the send).
type reqRecord struct {
	ID      int32
	Conn    int64
	Arrived int64
	Read    int64
	Due     int64
	Begin   int64
	End     int64
	Sent    int64
	Stalled bool
}

// reqTrace keeps the hot-path requests' records: preallocated and
// bounded, written to a file once the responder stops. A nil trace keeps
// nothing.
type reqTrace struct {
	recs []reqRecord
	n    atomic.Int64
}

// maxReqTrace bounds --trace-max: 8 million requests, 640 MB.
const maxReqTrace = 8 << 20

func newReqTrace(n int) *reqTrace {
	if n <= 0 {
		return nil
	}
	return &reqTrace{recs: make([]reqRecord, min(n, maxReqTrace))}
}

// add keeps r and returns its index; -1 when the trace is off or full.
func (t *reqTrace) add(r reqRecord) int {
	if t == nil {
		return -1
	}
	i := t.n.Add(1) - 1
	if i >= int64(len(t.recs)) {
		return -1
	}
	t.recs[i] = r
	return int(i)
}

// at is record i; nil for -1 or no trace.
func (t *reqTrace) at(i int) *reqRecord {
	if t == nil || i < 0 {
		return nil
	}
	return &t.recs[i]
}

// ServerTraceHeader is the first line of the responder's trace file,
// after its "#" lines (origin, delay, stalls, how replies were stamped).
const ServerTraceHeader = "request\tconn\tarrived\tread\tdue\twriteBegin\twriteEnd\tsent\tstalled"

// write writes the trace to path: "# key value" lines (the origin of the
// stall schedule in Unix ns, the delay, the stalls, the counts of
// requests kept and not kept, of replies with a kernel transmit stamp and
// without), the header, then one line a request.
func (t *reqTrace) write(path string, origin time.Time, delay time.Duration, st Stalls) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("trace: %w", err)
	}
	w := bufio.NewWriterSize(f, 1<<20)
	kept := t.recs[:min(t.n.Load(), int64(len(t.recs)))]
	var stamped, unstamped, rxUnstamped int
	for _, r := range kept {
		switch {
		case r.Sent != 0:
			stamped++
		case r.End != 0:
			unstamped++
		}
		if r.Arrived == 0 {
			rxUnstamped++
		}
	}
	fmt.Fprintf(w, "# origin %d\n# delay %d\n# stall %d %d %d\n", origin.UnixNano(), int64(delay), int64(st.Length), int64(st.Every), int64(st.First))
	fmt.Fprintf(w, "# kept %d\n# overflow %d\n# txStamped %d\n# txUnstamped %d\n# rxUnstamped %d\n",
		len(kept), max(t.n.Load()-int64(len(t.recs)), 0), stamped, unstamped, rxUnstamped)
	fmt.Fprintln(w, ServerTraceHeader)
	var b []byte
	for _, r := range kept {
		b = strconv.AppendInt(b[:0], int64(r.ID), 10)
		for _, v := range []int64{r.Conn, r.Arrived, r.Read, r.Due, r.Begin, r.End, r.Sent} {
			b = append(b, '\t')
			b = strconv.AppendInt(b, v, 10)
		}
		b = append(b, '\t')
		b = strconv.AppendBool(b, r.Stalled)
		b = append(b, '\n')
		_, _ = w.Write(b)
	}
	if err := w.Flush(); err != nil {
		_ = f.Close() // the write failed already
		return fmt.Errorf("trace: %w", err)
	}
	return f.Close()
}
