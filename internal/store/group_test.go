package store_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// A client index is claimed once: of processes registering the same index
// at once, one wins and every other is refused with an error naming the
// winner's host and pid (two processes started with --client-index 1 both
// ran, and the group under-reported what the server received). The winner
// registering again is its own claim, not a conflict.
func TestRegisterGroupClaimsIndexOnce(t *testing.T) {
	ctx := context.Background()
	c := connect(t)
	dbName := testenv.DBName(t)
	t.Cleanup(func() { _ = c.Database(dbName).Drop(context.Background()) })
	st := store.NewMongo(c, dbName, "the test server")

	now := time.Now()
	const claimants = 4
	errs := make([]error, claimants)
	var wg sync.WaitGroup
	for i := range claimants {
		wg.Add(1)
		go func() {
			defer wg.Done()
			me := store.GroupMember{Host: "host-" + string(rune('a'+i)), PID: 100 + i, Registered: now, Heartbeat: now}
			_, errs[i] = st.RegisterGroup(ctx, "claim", 2, "kv", 1, me)
		}()
	}
	wg.Wait()
	var won []int
	for i, err := range errs {
		if err == nil {
			won = append(won, i)
		} else if !errors.Is(err, store.ErrClaimed) {
			t.Errorf("claimant %d: got %v, want nil or ErrClaimed", i, err)
		}
	}
	if len(won) != 1 {
		t.Fatalf("claimants %v won index 1 (errors %v), want exactly one", won, errs)
	}
	w := won[0]
	first := "host-" + string(rune('a'+w))
	for i, err := range errs {
		if i != w && (err == nil || !strings.Contains(err.Error(), first) || !strings.Contains(err.Error(), "client 1 is "+first+" pid ")) {
			t.Errorf("claimant %d: got %v, want the first claimant (%s) named", i, err, first)
		}
	}
	g, err := st.Group(ctx, "claim")
	if err != nil {
		t.Fatal(err)
	}
	if m, _ := g.Member(1); m.Host != first {
		t.Errorf("member 1 is %s, want the winner %s", m.Host, first)
	}
	me := store.GroupMember{Host: first, PID: 100 + w, Registered: now, Heartbeat: now}
	if _, err := st.RegisterGroup(ctx, "claim", 2, "kv", 1, me); err != nil {
		t.Errorf("the winner registering again: %v", err)
	}
	other := store.GroupMember{Host: "host-z", PID: 7, Registered: now, Heartbeat: now}
	if _, err := st.RegisterGroup(ctx, "claim", 2, "kv", 0, other); err != nil {
		t.Errorf("another index: %v", err)
	}
}
