// Package group coordinates the clients of a run group through the
// results store: each client registers in the group's document, the lead
// (client 0) prepares the data once while the others wait, all meet at a
// barrier and start their warm-up at one wall-clock instant the group
// chooses (on a whole second after the warm-up, so every client's
// intervals fall on the same seconds), and each heartbeats until it has
// stored its result. The client that completes the set merges the
// group's result; a client that stops heartbeating is named missing, and
// nothing waits forever.
package group

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"sort"
	"strconv"
	"sync"
	"time"

	"github.com/mongobench/mongobench/internal/bounded"
	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/merge"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/validity"
)

// DefaultTimeout is how long a client waits for the others at the
// barrier, and for a silent client before the group goes on without it.
const DefaultTimeout = 60 * time.Second

// ClockBound is the clock offset against the results server above which a
// client's offset is reported: its intervals are then shifted against the
// other clients' by about that much.
const ClockBound = 50 * time.Millisecond

// startMargin is how far ahead of the barrier the start instant is set,
// so every client, polling, sees it in time.
const startMargin = 2 * time.Second

// poll is how often a waiting client reads the group's document, and
// heartbeat how often a client says it is alive.
const (
	poll      = 200 * time.Millisecond
	heartbeat = time.Second
)

// ErrGaveUp marks a group that never started: a client did not arrive in
// time, or the lead stopped while preparing.
var ErrGaveUp = errors.New("run group gave up")

// Client is this process's membership of a run group.
type Client struct {
	Store    store.Coordinator
	ID       string
	Share    engine.Share
	Timeout  time.Duration
	Scenario string // what the group runs, to check every client agrees
	Host     string
	PID      int
	// Say reports progress and warnings (may be nil).
	Say func(format string, args ...any)
	// Validity are the bounds the merged result's validity is judged by
	// (nil: the documented defaults).
	Validity validity.Bounds

	offset, uncertainty time.Duration
	clockKnown          bool
	startAt             time.Time
	hbStop              chan struct{}
	hbDone              sync.WaitGroup
}

func (c *Client) say(format string, args ...any) {
	if c.Say != nil {
		c.Say(format, args...)
	}
}

// Lead reports whether this client prepares the group's data.
func (c *Client) Lead() bool { return c.Share.Index == 0 }

func (c *Client) timeout() time.Duration {
	if c.Timeout > 0 {
		return c.Timeout
	}
	return DefaultTimeout
}

// Join registers the client, estimates its clock offset against the
// results server, and starts its heartbeat (stopped by Finish or Leave).
func (c *Client) Join(ctx context.Context) error {
	now := time.Now()
	me := store.GroupMember{Host: c.Host, PID: c.PID, Registered: now, Heartbeat: now}
	if off, unc, err := c.Store.ClockOffset(ctx); err == nil {
		c.offset, c.uncertainty, c.clockKnown = off, unc, true
		me.ClockOffsetMs = result.F(ms(off))
		if abs(off) > ClockBound+unc {
			c.say("group %s, client %d: this clock differs from the results server's by %.0f ms (± %.0f ms), more than %v: its intervals are shifted by about that much against the other clients'\n",
				c.ID, c.Share.Index, ms(off), ms(unc), ClockBound)
		}
	}
	g, err := c.Store.RegisterGroup(ctx, c.ID, c.Share.Clients, c.Scenario, c.Share.Index, me)
	if err != nil {
		return err
	}
	if err := Check(g, time.Now(), c.timeout()); err != nil {
		return err
	}
	c.hbStop = make(chan struct{})
	c.hbDone.Add(1)
	go c.beat()
	return nil
}

// beat updates the client's heartbeat every second until stopped.
func (c *Client) beat() {
	defer c.hbDone.Done()
	t := time.NewTicker(heartbeat)
	defer t.Stop()
	for {
		select {
		case <-c.hbStop:
			return
		case now := <-t.C:
			ctx, cancel := context.WithTimeout(context.Background(), heartbeat)
			_ = c.Store.Heartbeat(ctx, c.ID, c.Share.Index, now) // a missed beat is retried next second
			cancel()
		}
	}
}

// Leave stops the heartbeat; the others then see the client as gone.
func (c *Client) Leave() {
	if c.hbStop != nil {
		close(c.hbStop)
		c.hbDone.Wait()
		c.hbStop = nil
	}
}

// BeforePrepare waits, for a client other than the lead, until the lead
// has prepared the data. It gives up when the lead does not register
// within the timeout or stops heartbeating.
func (c *Client) BeforePrepare(ctx context.Context) error {
	if c.Lead() {
		return nil
	}
	since := time.Now()
	return c.wait(ctx, func(g *store.GroupDoc) (bool, error) {
		if g.Prepared != nil {
			return true, nil
		}
		lead, ok := g.Member(0)
		switch {
		case !ok && time.Since(since) > c.timeout():
			return false, c.giveUp(ctx, fmt.Sprintf("client 0 (the lead, which prepares the data) did not arrive within %v", c.timeout()))
		case ok && time.Since(lead.Heartbeat) > c.timeout():
			return false, c.giveUp(ctx, fmt.Sprintf("client 0 (the lead) stopped answering while preparing the data (no heartbeat for %v)", c.timeout()))
		}
		return false, nil
	})
}

// Prepared records, for the lead, that the data is prepared.
func (c *Client) Prepared(ctx context.Context) error {
	if !c.Lead() {
		return nil
	}
	return c.Store.MarkPrepared(ctx, c.ID, time.Now())
}

// Ready marks the client ready and waits at the barrier for every client.
// When all are ready the group's start instant is chosen: the first
// instant at least startMargin ahead whose warm-up ends on a whole
// second. A client that is not ready within the timeout makes the group
// give up, naming it.
func (c *Client) Ready(ctx context.Context, warmup time.Duration) (time.Time, error) {
	readyAt := time.Now()
	if err := c.Store.MarkReady(ctx, c.ID, c.Share.Index, readyAt); err != nil {
		return time.Time{}, err
	}
	c.say("group %s: client %d of %d ready; waiting for the others\n", c.ID, c.Share.Index, c.Share.Clients)
	err := c.wait(ctx, func(g *store.GroupDoc) (bool, error) {
		if g.StartAt != nil {
			if g.StartAt.Before(readyAt.Add(-c.timeout())) { // chosen only once every client was ready, this one included
				return false, fmt.Errorf("group %s: its start instant %s is before this client was ready (%s): start the clients again under another --group",
					c.ID, stamp(*g.StartAt), stamp(readyAt))
			}
			c.startAt = *g.StartAt
			return true, nil
		}
		missing := notReady(g)
		if len(missing) == 0 {
			g, err := c.Store.ChooseStart(ctx, c.ID, StartInstant(time.Now(), warmup))
			if err != nil {
				return false, err
			}
			if g.StartAt != nil {
				c.startAt = *g.StartAt
				return true, nil
			}
			return false, nil
		}
		if time.Since(readyAt) > c.timeout() {
			return false, c.giveUp(ctx, fmt.Sprintf("client %s of %d did not arrive within %v (--group-timeout)", list(missing), g.Clients, c.timeout()))
		}
		return false, nil
	})
	return c.startAt, err
}

// StartInstant is the start the group chooses at now: at least
// startMargin ahead, such that the warm-up ends on a whole second.
func StartInstant(now time.Time, warmup time.Duration) time.Time {
	warmEnd := now.Add(startMargin + warmup).Truncate(time.Second).Add(time.Second)
	return warmEnd.Add(-warmup)
}

func notReady(g *store.GroupDoc) []int {
	var out []int
	for i := range g.Clients {
		if m, ok := g.Member(i); !ok || m.Ready == nil {
			out = append(out, i)
		}
	}
	return out
}

// giveUp marks the group given up (unless another client did first, or
// it started) and returns the error to stop with.
func (c *Client) giveUp(ctx context.Context, why string) error {
	gctx, cancel := bounded.Step(ctx, 10*time.Second)
	defer cancel()
	g, err := c.Store.GiveUp(gctx, c.ID, why)
	if err != nil {
		return fmt.Errorf("%w: group %s: %s (marking it failed too: %w)", ErrGaveUp, c.ID, why, err)
	}
	if g.GaveUp != "" {
		why = cut(g.GaveUp)
	}
	return fmt.Errorf("%w: group %s: %s", ErrGaveUp, c.ID, why)
}

// wait polls the group's document until done says so, fails, the group
// gives up, or ctx ends.
func (c *Client) wait(ctx context.Context, done func(*store.GroupDoc) (bool, error)) error {
	t := time.NewTicker(poll)
	defer t.Stop()
	for {
		g, err := c.Store.Group(ctx, c.ID)
		if err != nil {
			return c.named(err)
		}
		if g.GaveUp != "" {
			return fmt.Errorf("%w: group %s: %s", ErrGaveUp, c.ID, cut(g.GaveUp))
		}
		if err := Check(g, time.Now(), c.timeout()); err != nil {
			return err
		}
		ok, err := done(g)
		if ok || err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-t.C:
		}
	}
}

// Info is the client's part of its result's group section.
func (c *Client) Info(targetRate float64) *result.Group {
	i := c.Share.Index
	g := &result.Group{ID: c.ID, Clients: c.Share.Clients, ClientIndex: &i, StartAt: c.startAt.UTC()}
	if targetRate > 0 {
		g.TargetRate = result.F(targetRate)
	}
	if c.clockKnown {
		g.ClockOffsetMs, g.ClockUncertaintyMs = result.F(ms(c.offset)), result.F(ms(c.uncertainty))
	}
	return g
}

// Finish records that the client stored its result (runID), and merges
// the group's result when the group is complete with it, or when every
// client still missing has stopped heartbeating for the timeout. It
// returns the merged result it stored, or nil when another client
// completes the group. Once ctx ends (Ctrl-C) the client still records
// its result, within bounded.Grace, but does not wait for the others:
// the last of them merges.
func (c *Client) Finish(ctx context.Context, runID string) (*result.Doc, error) {
	c.Leave()
	mctx, cancel := bounded.Step(ctx, 10*time.Second)
	g, err := c.Store.MarkDone(mctx, c.ID, c.Share.Index, time.Now(), runID)
	cancel()
	if err != nil {
		return nil, c.named(err)
	}
	if err := Check(g, time.Now(), c.timeout()); err != nil {
		return nil, err
	}
	if len(pending(g)) == 0 {
		d, err := c.Merge(ctx, g.Clients) // bounded by Merge
		if errors.Is(err, ErrMerging) {
			return nil, nil // another client completed the group at once, and merges
		}
		return d, err
	}
	if ctx.Err() != nil {
		return nil, nil
	}
	var merged *result.Doc
	err = c.wait(ctx, func(g *store.GroupDoc) (bool, error) {
		left := pending(g)
		if len(left) == 0 || g.Merged != "" {
			return true, nil // the client that completed the group merges
		}
		for _, i := range left {
			if m, ok := g.Member(i); ok && time.Since(m.Heartbeat) <= c.timeout() {
				return false, nil // still running
			}
		}
		c.say("group %s: client %s stopped answering (no heartbeat for %v); merging without it\n", c.ID, list(left), c.timeout())
		var err error
		merged, err = c.Merge(ctx, g.Clients)
		if errors.Is(err, ErrMerging) {
			return true, nil // another client merges
		}
		return true, err
	})
	return merged, err
}

// Result waits until the group's merged result is stored and returns
// it as stored, so every client of the group reads the same document (a
// study that decides from a run's outcome decides from this one). Call it
// after Finish. The client that completes the group stores the result;
// when none is stored within the timeout after every client finished
// (the merging client died), this client merges.
func (c *Client) Result(ctx context.Context) (*result.Doc, error) {
	since := time.Now()
	var runID string
	err := c.wait(ctx, func(g *store.GroupDoc) (bool, error) {
		if g.Merged != "" {
			runID = g.Merged
			return true, nil
		}
		if time.Since(since) <= c.timeout() || g.Merging != nil && time.Since(g.Merging.At) <= claimStale {
			return false, nil // not overdue, or a client is merging (a long group's merge takes minutes)
		}
		c.say("group %s: no merged result stored within %v; merging it here\n", c.ID, c.timeout())
		d, err := c.Merge(ctx, g.Clients)
		switch {
		case errors.Is(err, ErrMerging):
			return false, nil // another client began merging meanwhile
		case err == nil:
			runID = d.RunID
		}
		return true, err
	})
	if err != nil {
		return nil, err
	}
	d, err := c.Store.Get(ctx, runID)
	return d, c.named(err)
}

// named names the group in an error of the store's; the group's own
// errors (Check's, a give-up) name it already, once.
func (c *Client) named(err error) error {
	if err == nil {
		return nil
	}
	return fmt.Errorf("group %s: %w", c.ID, err)
}

// pending lists the clients that have not stored their result.
func pending(g *store.GroupDoc) []int {
	var out []int
	for i := range g.Clients {
		if m, ok := g.Member(i); !ok || m.Done == nil {
			out = append(out, i)
		}
	}
	return out
}

// ErrMerging is a merge refused because another client is merging the
// group's result now.
var ErrMerging = errors.New("another client is merging the group's result")

// A merge claims its group (store.ClaimMerge) and renews the claim every
// claimRenew while it merges; a claim not renewed for claimStale is a
// merging client that died.
const (
	claimStale = time.Minute
	claimRenew = claimStale / 4
)

// Merge builds the group's result from its clients' stored results and
// stores it; `mongobench results merge` runs it too. It claims the merge
// first (ErrMerging while another client merges), and takes at most 30 s
// plus 2 ms per full-resolution interval of its clients (a long group
// merges its clients' records: minutes for a day's), or bounded.Grace
// once ctx ends.
func Merge(ctx context.Context, st store.Coordinator, id string, clients int, bounds validity.Bounds) (d *result.Doc, out store.Outcome, err error) {
	token := fmt.Sprintf("%d/%d", os.Getpid(), time.Now().UnixNano())
	switch ok, err := st.ClaimMerge(ctx, id, token, time.Now(), claimStale); {
	case errors.Is(err, store.ErrNotFound): // imported runs: no coordination document to claim
	case err != nil:
		return nil, store.Latest, err
	case !ok:
		return nil, store.Latest, fmt.Errorf("group %s: %w", id, ErrMerging)
	default:
		defer func() {
			if err != nil { // the claim ends now, not when it goes stale
				rctx, cancel := bounded.Step(ctx, 10*time.Second)
				_ = st.ReleaseMerge(rctx, id, token)
				cancel()
			}
		}()
		done := make(chan struct{})
		defer close(done)
		go func() {
			t := time.NewTicker(claimRenew)
			defer t.Stop()
			for {
				select {
				case <-done:
					return
				case <-t.C:
					_, _ = st.ClaimMerge(ctx, id, token, time.Now(), claimStale) // a failed renewal: the claim lapses, another client may merge
				}
			}
		}()
	}
	rctx, cancel := bounded.Step(ctx, 30*time.Second)
	runs, err := st.GroupRuns(rctx, id)
	cancel()
	if err != nil {
		return nil, store.Latest, err
	}
	full := 0
	for _, r := range runs {
		if r.Resolution != nil {
			full += r.Resolution.FullIntervals
		}
	}
	ctx, cancel = bounded.Step(ctx, 30*time.Second+time.Duration(full)*2*time.Millisecond)
	defer cancel()
	if clients == 0 {
		for _, r := range runs {
			if r.Group != nil {
				clients = max(clients, r.Group.Clients)
			}
		}
	}
	slices.SortStableFunc(runs, func(a, b result.Doc) int { return clientIndex(a) - clientIndex(b) }) // the first client's telemetry is the group's
	d, err = merge.Results(merge.Group{ID: id, Clients: clients, Validity: bounds}, runs)
	if err != nil {
		return nil, store.Latest, err
	}
	if r := d.Resolution; r != nil {
		// A long group: its intervals are its clients' records merged,
		// kept full in the store and on a ladder in the document.
		ladder := merge.NewLadder(time.Duration(r.FullIntervalSec*float64(time.Second)), merge.LadderPoints)
		n, complete, err := st.MergeGroupRecords(ctx, d.RunID, runs, func(iv result.Interval) error {
			return ladder.Add(ladder.Full(), iv)
		})
		if err == nil {
			d.Intervals, err = ladder.Intervals()
		}
		if err != nil {
			return nil, store.Latest, err
		}
		r.IntervalSec, r.FullIntervals, r.Collection = ladder.Every().Seconds(), n, ""
		if complete {
			r.Collection = store.IntervalsCollection
		} else {
			d.Notes = append(d.Notes, fmt.Sprintf("Not every client's intervals are in the results store (a client's stream missed some, or they were removed since): the group's %d intervals of %g s lack their parts, at full resolution and in this document; each client's own result says what it sent.",
				n, r.FullIntervalSec))
		}
	}
	out, err = st.Import(ctx, d)
	if err != nil {
		return nil, out, err
	}
	if err := st.MarkMerged(ctx, id, d.RunID, d.Group.Missing); err != nil && !errors.Is(err, store.ErrNotFound) {
		return d, out, err
	}
	return d, out, nil
}

func clientIndex(d result.Doc) int {
	if d.Group == nil || d.Group.ClientIndex == nil {
		return -1
	}
	return *d.Group.ClientIndex
}

// Merge merges and stores the group's result.
func (c *Client) Merge(ctx context.Context, clients int) (*result.Doc, error) {
	d, _, err := Merge(ctx, c.Store, c.ID, clients, c.Validity)
	return d, c.named(err)
}

func list(xs []int) string {
	sort.Ints(xs)
	s := ""
	for i, x := range xs {
		if i > 0 {
			s += ", "
		}
		s += strconv.Itoa(x)
	}
	return s
}

// cut shortens a reason read from the group's document for an error.
func cut(s string) string {
	const most = 512
	if len(s) <= most {
		return s
	}
	return s[:most] + "…"
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func abs(d time.Duration) time.Duration {
	if d < 0 {
		return -d
	}
	return d
}

// Part is the client's share of the group's load.
func (c *Client) Part() engine.Share { return c.Share }
