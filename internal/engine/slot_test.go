package engine

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"
)

// slotTask records the slots it is handed.
type slotTask struct {
	mu    *sync.Mutex
	slots map[int64]int
}

func (s slotTask) Do(context.Context) (int, error) { return 0, errors.New("Do called for a SlotTask") }

func (s slotTask) DoSlot(_ context.Context, n int64) (int, error) {
	s.mu.Lock()
	s.slots[n]++
	s.mu.Unlock()
	return int(n % 2), nil
}

// An open-loop SlotTask is handed every slot of the schedule once, by
// its number, and never Do.
func TestSlotTasksAreHandedTheirSlot(t *testing.T) {
	var mu sync.Mutex
	slots := map[int64]int{}
	cfg := Config{Ops: []string{"even", "odd"}, Workers: 4, Pacer: NewConstant(2000), Count: 300, Interval: 100 * time.Millisecond}
	res, err := Run(context.Background(), cfg, func(int) (Task, error) { return slotTask{&mu, slots}, nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(slots) != 300 {
		t.Fatalf("%d distinct slots handed, want 300", len(slots))
	}
	for n := range int64(300) {
		if slots[n] != 1 {
			t.Errorf("slot %d handed %d times, want once", n, slots[n])
		}
	}
	if res.Ops[0].Count != 150 || res.Ops[1].Count != 150 {
		t.Errorf("even %d, odd %d, want 150 each (the op of slot n is n%%2)", res.Ops[0].Count, res.Ops[1].Count)
	}
}

// waitingTask waits before it writes its request, as a replay's request
// waits for its connection's earlier replies, and says when it wrote.
type waitingTask struct {
	wait time.Duration
	sent time.Time
}

func (w *waitingTask) Do(context.Context) (int, error) {
	time.Sleep(w.wait)
	w.sent = time.Now()
	return 0, nil
}

func (w *waitingTask) BeginSend() { w.sent = time.Time{} }

func (w *waitingTask) Sent() (time.Time, bool) { return w.sent, !w.sent.IsZero() }

// A SendTimed task's service time counts from its own send, and the wait
// before it stays in the latency: every operation waited at least 30 ms
// before it wrote, so the longest service time is at least 30 ms shorter
// than the longest latency (both end at the same instants). (In closed
// loop latency is the service time: one histogram.)
func TestSendTimedServiceTimeStartsAtItsSend(t *testing.T) {
	const wait = 30 * time.Millisecond
	{
		cfg := Config{Ops: []string{"op"}, Workers: 2, Count: 20, Interval: 100 * time.Millisecond, Pacer: NewConstant(40)}
		res, err := Run(context.Background(), cfg, func(int) (Task, error) { return &waitingTask{wait: wait}, nil })
		if err != nil {
			t.Fatal(err)
		}
		op := res.Ops[0]
		lat, svc := time.Duration(op.Latency.Max())*time.Microsecond, time.Duration(op.Service.Max())*time.Microsecond
		// The histograms keep three significant digits: 0.1% of the
		// latency is their rounding.
		if op.Count != 20 || svc > lat-wait+lat/1000 {
			t.Errorf("%d ops, service time max %v, latency max %v: want the %v wait out of the service time",
				op.Count, svc, lat, wait)
		}
	}
}
