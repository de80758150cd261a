package ycsb

import (
	"math/rand/v2"
	"sync"
	"sync/atomic"
	"testing"
)

func TestCounter(t *testing.T) {
	c := NewCounter(100)
	if c.Last() != 99 {
		t.Fatalf("Last before Next = %d, want 99", c.Last())
	}
	if a, b := c.Next(), c.Next(); a != 100 || b != 101 || c.Last() != 101 {
		t.Fatalf("Next = %d, %d, Last = %d", a, b, c.Last())
	}
}

func TestAcknowledgedCounterInOrderAndGaps(t *testing.T) {
	c := NewAcknowledgedCounter(10)
	if c.Last() != 9 {
		t.Fatalf("Last = %d, want 9", c.Last())
	}
	a, b, d := c.Next(), c.Next(), c.Next() // 10, 11, 12
	mustAck(t, c, b)
	if c.Last() != 9 {
		t.Fatalf("Last = %d after acknowledging 11 only, want 9", c.Last())
	}
	mustAck(t, c, a)
	if c.Last() != 11 {
		t.Fatalf("Last = %d after 10 and 11, want 11", c.Last())
	}
	mustAck(t, c, d)
	if c.Last() != 12 {
		t.Fatalf("Last = %d, want 12", c.Last())
	}
}

func TestAcknowledgedCounterWindowFull(t *testing.T) {
	c := NewAcknowledgedCounter(0)
	mustAck(t, c, 5)
	if err := c.Acknowledge(5 + ackWindow); err != ErrAckWindowFull {
		t.Fatalf("acknowledging a slot still pending: err = %v, want ErrAckWindowFull", err)
	}
}

func mustAck(t *testing.T, c *AcknowledgedCounter, v int64) {
	t.Helper()
	if err := c.Acknowledge(v); err != nil {
		t.Fatal(err)
	}
}

// TestAcknowledgedCounterConcurrent has workers take keys and acknowledge
// them out of order while a reader checks that Last never decreases and
// never passes an unacknowledged key. Run with -race.
func TestAcknowledgedCounterConcurrent(t *testing.T) {
	const workers, perWorker, start = 8, 5000, 1000
	c := NewAcknowledgedCounter(start)
	acked := make([]atomic.Bool, workers*perWorker)
	var wg, rd sync.WaitGroup
	done := make(chan struct{})
	rd.Add(1)
	go func() { defer rd.Done(); watchLimit(t, c, acked, start, done) }()
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ackShuffled(t, c, acked, start, rand.New(rand.NewPCG(uint64(w), 9)))
		}()
	}
	wg.Wait()
	close(done)
	rd.Wait()
	if got, want := c.Last(), int64(start+workers*perWorker-1); got != want {
		t.Fatalf("Last = %d after every key was acknowledged, want %d", got, want)
	}
}

// ackShuffled takes keys in batches and acknowledges each batch shuffled.
func ackShuffled(t *testing.T, c *AcknowledgedCounter, acked []atomic.Bool, start int64, r *rand.Rand) {
	const batch = 50
	for range 5000 / batch {
		keys := make([]int64, batch)
		for i := range keys {
			keys[i] = c.Next()
		}
		r.Shuffle(len(keys), func(i, j int) { keys[i], keys[j] = keys[j], keys[i] })
		for _, k := range keys {
			acked[k-start].Store(true)
			if err := c.Acknowledge(k); err != nil {
				t.Error(err)
				return
			}
		}
	}
}

// watchLimit checks Last until done.
func watchLimit(t *testing.T, c *AcknowledgedCounter, acked []atomic.Bool, start int64, done <-chan struct{}) {
	prev := c.Last()
	for {
		select {
		case <-done:
			return
		default:
		}
		last := c.Last()
		if last < prev {
			t.Errorf("Last went back from %d to %d", prev, last)
			return
		}
		for k := prev + 1; k <= last; k++ {
			if !acked[k-start].Load() {
				t.Errorf("Last = %d but key %d is not acknowledged", last, k)
				return
			}
		}
		prev = last
	}
}
