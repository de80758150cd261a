package engine

import (
	"context"
	"errors"
	"testing"
	"time"
)

// rmwTask is a read-modify-write made of two parts, a read (op 0) and a
// write (op 1), each taking at least d; the whole is op 2. Every failEvery-th
// read fails (0: none), and then the write is not made.
type rmwTask struct {
	d         time.Duration
	failEvery int
	n         int
	parts     *Parts
}

var errRead = errors.New("read failed")

func (t *rmwTask) UseParts(p *Parts) { t.parts = p }

func (t *rmwTask) Do(context.Context) (int, error) {
	t.n++
	sent := time.Now()
	time.Sleep(t.d)
	var err error
	if t.failEvery > 0 && t.n%t.failEvery == 0 {
		err = errRead
	}
	t.parts.Record(0, sent, err)
	if err != nil {
		return 2, err
	}
	sent = time.Now()
	time.Sleep(t.d)
	t.parts.Record(1, sent, nil)
	return 2, nil
}

var _ PartsTask = (*rmwTask)(nil)

// TestPartsAreRecordedBesideTheirOperation checks that the parts of an
// operation are recorded under their own types, latency from the whole
// operation's intended start and service time from their own send, and
// never count as operations of the run: not completed, not intended, not
// failed.
func TestPartsAreRecordedBesideTheirOperation(t *testing.T) {
	const d = 500 * time.Microsecond
	cfg := Config{Ops: []string{"read", "write", "rmw"}, Workers: 4, Pacer: NewConstant(200),
		Warmup: 100 * time.Millisecond, Duration: time.Second}
	r, err := Run(context.Background(), cfg, func(int) (Task, error) { return &rmwTask{d: d, failEvery: 4}, nil })
	if err != nil {
		t.Fatal(err)
	}
	read, write, rmw := r.Ops[0], r.Ops[1], r.Ops[2]
	whole := rmw.Count + rmw.Errors.Total()
	if r.Completed() != whole || r.Intended != 200 || whole != 200 {
		t.Errorf("completed %d, intended %d, read-modify-writes %d: want 200 each, parts left out", r.Completed(), r.Intended, whole)
	}
	if read.Count+read.Errors.Total() != whole || read.Parts != read.Count || read.PartErrors != read.Errors.Total() {
		t.Errorf("read parts: %d ok (%d parts), %d failed (%d parts); want one per read-modify-write, all parts", read.Count, read.Parts, read.Errors.Total(), read.PartErrors)
	}
	if write.Count != rmw.Count || write.Parts != write.Count || write.Errors.Total() != 0 {
		t.Errorf("write parts: %d (%d parts), %d failed; want one per successful read-modify-write (%d)", write.Count, write.Parts, write.Errors.Total(), rmw.Count)
	}
	if r.Failed != rmw.Errors.Total() || r.Failed != read.Errors.Total() {
		t.Errorf("failed: got %d, want the %d failed read-modify-writes, their failed reads not counted again", r.Failed, rmw.Errors.Total())
	}
	var ivWhole int64
	for _, iv := range r.Intervals {
		ivWhole += iv.Completed()
	}
	if ivWhole != whole {
		t.Errorf("intervals completed %d, want %d", ivWhole, whole)
	}
	// The write's latency runs from the read-modify-write's intended
	// start, so it holds the read's time too; its service time is its own.
	us := d.Microseconds()
	if got := write.Latency.Min(); got < 2*us*999/1000 {
		t.Errorf("write latency min %dµs, want at least the read's and the write's %dµs", got, 2*us)
	}
	if got := write.Service.Min(); got < us*999/1000 {
		t.Errorf("write service min %dµs, want at least %dµs", got, us)
	}
	if write.Latency.Min() < write.Service.Min()+us*999/1000 {
		t.Errorf("write latency min %dµs is not its service min %dµs plus the read", write.Latency.Min(), write.Service.Min())
	}
}

// TestPartsInClosedLoop checks that a part's latency in closed loop is its
// own duration.
func TestPartsInClosedLoop(t *testing.T) {
	const d = 300 * time.Microsecond
	cfg := Config{Ops: []string{"read", "write", "rmw"}, Workers: 2, Count: 100}
	r, err := Run(context.Background(), cfg, func(int) (Task, error) { return &rmwTask{d: d}, nil })
	if err != nil {
		t.Fatal(err)
	}
	if r.Completed() != 100 || r.Ops[1].Count != 100 || r.Ops[1].Parts != 100 {
		t.Fatalf("completed %d, write parts %d (%d): want 100 each", r.Completed(), r.Ops[1].Count, r.Ops[1].Parts)
	}
	if r.Ops[1].Latency != r.Ops[1].Service {
		t.Errorf("closed loop: a part's service histogram is not its latency histogram")
	}
	// The whole operation holds both parts; a part holds only itself.
	if r.Ops[2].Latency.Min() < 2*d.Microseconds()*999/1000 {
		t.Errorf("read-modify-write min %dµs, want at least %dµs", r.Ops[2].Latency.Min(), 2*d.Microseconds())
	}
}
