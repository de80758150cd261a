package engine

import (
	"context"
	"slices"
	"testing"
	"time"
)

// measuredSlots lists the intended offsets of the measured slots the open
// schedule of cfg hands out.
func measuredSlots(t *testing.T, cfg Config) []time.Duration {
	t.Helper()
	c := cfg.withDefaults()
	s := newOpenSchedule(&c, time.Time{})
	var out []time.Duration
	for n := s.first; n < s.last; n++ {
		out = append(out, c.Pacer.At(n))
	}
	return out
}

// The clients of a group together have exactly the measured slots of one
// client's schedule, for every pacer and bound: each slot once.
func TestShareUnionIsOneSchedule(t *testing.T) {
	pacers := map[string]func() Pacer{
		"constant": func() Pacer { return NewConstant(997) },
		"poisson":  func() Pacer { return NewPoisson(1500, 7) },
	}
	bounds := []struct {
		name     string
		warmup   time.Duration
		duration time.Duration
		count    int64
	}{
		{"duration", 1500 * time.Millisecond, 2 * time.Second, 0},
		{"count", time.Second, 0, 1001},
		{"count within duration", 0, time.Second, 5000},
	}
	for pn, mk := range pacers {
		for _, b := range bounds {
			for _, clients := range []int{1, 2, 3, 4, 7} {
				one := measuredSlots(t, Config{Pacer: mk(), Workers: 8, Warmup: b.warmup, Duration: b.duration, Count: b.count})
				var union []time.Duration
				for i := range clients {
					cfg := Config{Pacer: mk(), Workers: 8, Warmup: b.warmup, Duration: b.duration, Count: b.count,
						Share: Share{Clients: clients, Index: i}}
					union = append(union, measuredSlots(t, cfg)...)
				}
				slices.Sort(union)
				if !slices.Equal(union, one) {
					t.Errorf("%s, %s, %d clients: the union has %d slots, one client %d", pn, b.name, clients, len(union), len(one))
				}
			}
		}
	}
}

func TestSharePartsAddUp(t *testing.T) {
	for _, n := range []int64{0, 1, 2, 5, 64, 1001, 1 << 62} {
		for _, clients := range []int{1, 2, 3, 16} {
			var sum int64
			next := int64(0)
			for i := range clients {
				s := Share{Clients: clients, Index: i}
				if got := s.First(n); got != next && clients > 1 {
					t.Errorf("n=%d, client %d of %d: first %d, want %d (contiguous)", n, i, clients, got, next)
				}
				sum += s.Part(n)
				next = s.First(n) + s.Part(n)
			}
			if sum != n {
				t.Errorf("n=%d over %d clients: parts add up to %d", n, clients, sum)
			}
		}
	}
}

func TestShareChecks(t *testing.T) {
	task := func(int) (Task, error) {
		return TaskFunc(func(context.Context) (int, error) { return 0, nil }), nil
	}
	for _, cfg := range []Config{
		{Ops: []string{"op"}, Workers: 2, Count: 10, Share: Share{Clients: 3, Index: 0}},
		{Ops: []string{"op"}, Workers: 8, Count: 10, Share: Share{Clients: 3, Index: 3}},
		{Ops: []string{"op"}, Workers: 8, Count: 2, Share: Share{Clients: 3, Index: 1}},
	} {
		if _, err := Run(context.Background(), cfg, task); err == nil {
			t.Errorf("%+v: no error", cfg.Share)
		}
	}
}

// A closed-loop group's clients split the workers and the count.
func TestShareClosedLoop(t *testing.T) {
	task := func(int) (Task, error) {
		return TaskFunc(func(context.Context) (int, error) { return 0, nil }), nil
	}
	var ops, workers int64
	for i := range 3 {
		r, err := Run(context.Background(), Config{Ops: []string{"op"}, Workers: 8, Count: 100, Share: Share{Clients: 3, Index: i}}, task)
		if err != nil {
			t.Fatal(err)
		}
		ops += r.Completed()
		workers += int64(r.Workers)
	}
	if ops != 100 || workers != 8 {
		t.Errorf("the group did %d operations with %d workers, want 100 with 8", ops, workers)
	}
}

func TestSharePacerName(t *testing.T) {
	cfg := Config{Pacer: NewConstant(3000), Workers: 3, Duration: time.Second, Share: Share{Clients: 3, Index: 1}}
	c := cfg.withDefaults()
	if got, want := c.Pacer.String(), "constant 3000/s (slots 3n+1)"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}

// A run with StartAt starts its warm-up at that instant.
func TestStartAt(t *testing.T) {
	at := time.Now().Add(300 * time.Millisecond).Truncate(100 * time.Millisecond)
	r, err := Run(context.Background(), Config{Ops: []string{"op"}, Workers: 1, Pacer: NewConstant(100),
		Warmup: 200 * time.Millisecond, Count: 5, StartAt: at},
		func(int) (Task, error) {
			return TaskFunc(func(context.Context) (int, error) { return 0, nil }), nil
		})
	if err != nil {
		t.Fatal(err)
	}
	if want := at.Add(200 * time.Millisecond); !r.Start.Equal(want) {
		t.Errorf("measured phase starts at %v, want %v", r.Start, want)
	}
}
