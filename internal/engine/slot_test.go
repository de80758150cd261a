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
