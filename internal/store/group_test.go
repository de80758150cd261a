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

// One merge at a time: a claim on a group's merge refuses another token
// while it is renewed, is taken over once stale, ends with the merged
// result or its release, and names a group that does not exist.
func TestClaimMergeOnceAtATime(t *testing.T) {
	ctx := context.Background()
	c := connect(t)
	dbName := testenv.DBName(t)
	t.Cleanup(func() { _ = c.Database(dbName).Drop(context.Background()) })
	st := store.NewMongo(c, dbName, "the test server")
	now := time.Now()
	me := store.GroupMember{Host: "h", PID: 1, Registered: now, Heartbeat: now}
	if _, err := st.RegisterGroup(ctx, "claims", 2, "kv", 0, me); err != nil {
		t.Fatal(err)
	}
	claim := func(token string, at time.Time) bool {
		t.Helper()
		ok, err := st.ClaimMerge(ctx, "claims", token, at, time.Minute)
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if !claim("a", now) || claim("b", now.Add(30*time.Second)) {
		t.Fatal("a claims the merge; b, 30 s later, must be refused")
	}
	if !claim("a", now.Add(50*time.Second)) || claim("b", now.Add(100*time.Second)) {
		t.Fatal("a renews its claim at 50 s; b must still be refused at 100 s")
	}
	if !claim("b", now.Add(111*time.Second)) {
		t.Fatal("a's claim, not renewed for over a minute, must pass to b")
	}
	if err := st.ReleaseMerge(ctx, "claims", "a"); err != nil || claim("c", now.Add(112*time.Second)) {
		t.Fatalf("a's release (%v) must leave b's claim in place", err)
	}
	if err := st.ReleaseMerge(ctx, "claims", "b"); err != nil || !claim("c", now.Add(113*time.Second)) {
		t.Fatalf("b's release (%v) must free the merge at once", err)
	}
	if err := st.MarkMerged(ctx, "claims", "run-merged", nil); err != nil {
		t.Fatal(err)
	}
	if g, err := st.Group(ctx, "claims"); err != nil || g.Merging != nil || g.Merged != "run-merged" || !claim("d", now.Add(114*time.Second)) {
		t.Fatalf("after the merge: %+v (%v), want no claim left, and a later merge free to claim", g, err)
	}
	if _, err := st.ClaimMerge(ctx, "nosuch", "a", now, time.Minute); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("a group that does not exist: %v, want ErrNotFound", err)
	}
}
