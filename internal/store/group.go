package store

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/merge"
	"github.com/mongobench/mongobench/internal/result"
)

// GroupsCollection holds one document per run group: its clients'
// registrations, the preparation, the start barrier and the heartbeats
// that coordinate them.
const GroupsCollection = "groups"

// GroupDoc is a run group's coordination document. Its times are the
// clients' own clocks.
type GroupDoc struct {
	ID      string `bson:"_id"`
	Clients int    `bson:"clients"`
	// Scenario describes what the clients run; every client must give
	// the same.
	Scenario string    `bson:"scenario"`
	Created  time.Time `bson:"created"`
	// Members are the registered clients by index ("0", "1", …).
	Members map[string]GroupMember `bson:"members"`
	// Prepared is when the lead finished preparing the data.
	Prepared *time.Time `bson:"prepared,omitempty"`
	// StartAt is the instant every client's warm-up starts.
	StartAt *time.Time `bson:"startAt,omitempty"`
	// GaveUp says why the group gave up before it started.
	GaveUp string `bson:"gaveUp,omitempty"`
	// Merged is the run id of the group's stored result, Missing the
	// clients it lacks.
	Merged  string `bson:"merged,omitempty"`
	Missing []int  `bson:"missing,omitempty"`
	// Merging is the claim of the client merging the group's result
	// now (ClaimMerge), renewed while it merges.
	Merging *MergeClaim `bson:"merging,omitempty"`
}

// MergeClaim is one merge's claim on its group: its token and when it
// was last renewed.
type MergeClaim struct {
	Token string    `bson:"token"`
	At    time.Time `bson:"at"`
}

// GroupMember is one client's registration and progress.
type GroupMember struct {
	Host       string     `bson:"host"`
	PID        int        `bson:"pid"`
	Registered time.Time  `bson:"registered"`
	Heartbeat  time.Time  `bson:"heartbeat"`
	Ready      *time.Time `bson:"ready,omitempty"`
	Done       *time.Time `bson:"done,omitempty"`
	RunID      string     `bson:"runId,omitempty"`
	// ClockOffsetMs is the client's clock minus the results server's.
	ClockOffsetMs *float64 `bson:"clockOffsetMs,omitempty"`
}

// Member returns client i's registration, if any.
func (g *GroupDoc) Member(i int) (GroupMember, bool) {
	m, ok := g.Members[strconv.Itoa(i)]
	return m, ok
}

func (m *Mongo) groups() *mongo.Collection { return m.db.Collection(GroupsCollection) }

// RegisterGroup claims client index of group id for me, creating the
// group's document with clients and scenario when it is the first. The
// claim is one conditional update (the index's registration must not
// exist), so of two processes given the same index only the first runs:
// the second is refused with an error naming the first (ErrClaimed). A
// group of another size or scenario, or one that gave up, is refused.
func (m *Mongo) RegisterGroup(ctx context.Context, id string, clients int, scenario string, index int, me GroupMember) (*GroupDoc, error) {
	if g, err := m.Group(ctx, id); err == nil {
		if err := g.accepts(clients, scenario, index); err != nil {
			return nil, err
		}
		if err := g.claimedBy(index, me); err != nil {
			return nil, err
		}
	} else if !errors.Is(err, ErrNotFound) {
		return nil, err
	}
	update := bson.D{
		{Key: "$setOnInsert", Value: bson.D{{Key: "clients", Value: clients}, {Key: "scenario", Value: scenario}, {Key: "created", Value: me.Registered}}},
		{Key: "$set", Value: bson.D{{Key: memberKey(index), Value: me}}},
	}
	filter := bson.D{{Key: "_id", Value: id}, {Key: memberKey(index), Value: bson.D{{Key: "$exists", Value: false}}}}
	for attempt := 0; ; attempt++ {
		_, err := m.groups().UpdateOne(ctx, filter, update, options.UpdateOne().SetUpsert(true))
		if err == nil {
			break
		}
		if !mongo.IsDuplicateKeyError(err) {
			return nil, fmt.Errorf("group %s: register client %d: %w", id, index, err)
		}
		// the document exists: either the index is claimed, or two
		// clients created the document at once and the other's is there now
		g, gerr := m.Group(ctx, id)
		if gerr != nil {
			return nil, gerr
		}
		if err := g.claimedBy(index, me); err != nil {
			return nil, err
		}
		if _, ok := g.Member(index); ok { // this process's own earlier claim
			break
		}
		if attempt > 0 {
			return nil, fmt.Errorf("group %s: register client %d: %w", id, index, err)
		}
	}
	g, err := m.Group(ctx, id)
	if err != nil {
		return nil, err
	}
	if err := g.claimedBy(index, me); err != nil {
		return nil, err
	}
	return g, g.accepts(clients, scenario, -1)
}

// ErrClaimed marks a client index another process of the group holds.
var ErrClaimed = errors.New("client index already claimed")

// claimedBy refuses index when another process (another host or pid)
// registered it.
func (g *GroupDoc) claimedBy(index int, me GroupMember) error {
	first, ok := g.Member(index)
	if !ok || first.Host == me.Host && first.PID == me.PID {
		return nil
	}
	return fmt.Errorf("group %s: %w: client %d is %s pid %d (registered %s); give every client its own --client-index, 0 to %d",
		g.ID, ErrClaimed, index, first.Host, first.PID, first.Registered.UTC().Format(time.RFC3339), g.Clients-1)
}

// accepts checks that a client of a group of clients running scenario
// may join g as client index (-1: do not check the index).
func (g *GroupDoc) accepts(clients int, scenario string, index int) error {
	switch {
	case g.Clients != clients:
		return fmt.Errorf("group %s has %d clients, this client was given --clients %d: give every client the same --clients", g.ID, g.Clients, clients)
	case g.Scenario != scenario:
		return fmt.Errorf("group %s runs %q, this client %q: give every client the same scenario, or another --group", g.ID, g.Scenario, scenario)
	case g.GaveUp != "":
		return fmt.Errorf("group %s gave up (%s): start its clients again under another --group", g.ID, g.GaveUp)
	}
	if index >= 0 {
		if me, ok := g.Member(index); ok && (me.Done != nil || g.StartAt != nil) {
			return fmt.Errorf("group %s already ran client %d: start a new run under another --group", g.ID, index)
		}
		if g.StartAt != nil {
			return fmt.Errorf("group %s started at %s without client %d: start a new run under another --group", g.ID, g.StartAt.Format(time.RFC3339), index)
		}
	}
	return nil
}

func memberKey(index int) string { return "members." + strconv.Itoa(index) }

// Group reads a group's document.
func (m *Mongo) Group(ctx context.Context, id string) (*GroupDoc, error) {
	var g GroupDoc
	err := m.groups().FindOne(ctx, bson.D{{Key: "_id", Value: id}}).Decode(&g)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return nil, fmt.Errorf("group %q: %w", id, ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("read group %s: %w", id, err)
	}
	return &g, nil
}

// Heartbeat records that client index is alive at t.
func (m *Mongo) Heartbeat(ctx context.Context, id string, index int, t time.Time) error {
	_, err := m.setMember(ctx, id, index, bson.D{{Key: "heartbeat", Value: t}})
	return err
}

// MarkReady records that client index is at the barrier since t.
func (m *Mongo) MarkReady(ctx context.Context, id string, index int, t time.Time) error {
	_, err := m.setMember(ctx, id, index, bson.D{{Key: "ready", Value: t}})
	return err
}

// MarkDone records that client index stored its result runID at t, and
// returns the group's document after.
func (m *Mongo) MarkDone(ctx context.Context, id string, index int, t time.Time, runID string) (*GroupDoc, error) {
	return m.setMember(ctx, id, index, bson.D{{Key: "done", Value: t}, {Key: "runId", Value: runID}})
}

// setMember sets fields of client index's registration and returns the
// group's document after.
func (m *Mongo) setMember(ctx context.Context, id string, index int, fields bson.D) (*GroupDoc, error) {
	set := make(bson.D, len(fields))
	for i, f := range fields {
		set[i] = bson.E{Key: memberKey(index) + "." + f.Key, Value: f.Value}
	}
	return m.setGroup(ctx, bson.D{{Key: "_id", Value: id}}, set)
}

// MarkPrepared records that the lead prepared the group's data.
func (m *Mongo) MarkPrepared(ctx context.Context, id string, at time.Time) error {
	_, err := m.setGroup(ctx, bson.D{{Key: "_id", Value: id}}, bson.D{{Key: "prepared", Value: at}})
	return err
}

// ChooseStart sets the group's start instant unless another client set it
// first, and returns the group's document with the instant that holds.
func (m *Mongo) ChooseStart(ctx context.Context, id string, at time.Time) (*GroupDoc, error) {
	filter := bson.D{{Key: "_id", Value: id}, {Key: "startAt", Value: bson.D{{Key: "$exists", Value: false}}},
		{Key: "gaveUp", Value: bson.D{{Key: "$exists", Value: false}}}}
	if _, err := m.setGroup(ctx, filter, bson.D{{Key: "startAt", Value: at}}); err != nil && !errors.Is(err, ErrNotFound) {
		return nil, err
	}
	return m.Group(ctx, id)
}

// GiveUp marks a group that never started, unless it started meanwhile,
// and returns its document.
func (m *Mongo) GiveUp(ctx context.Context, id, why string) (*GroupDoc, error) {
	filter := bson.D{{Key: "_id", Value: id}, {Key: "startAt", Value: bson.D{{Key: "$exists", Value: false}}},
		{Key: "gaveUp", Value: bson.D{{Key: "$exists", Value: false}}}}
	if _, err := m.setGroup(ctx, filter, bson.D{{Key: "gaveUp", Value: why}}); err != nil && !errors.Is(err, ErrNotFound) {
		return nil, err
	}
	return m.Group(ctx, id)
}

// ClaimMerge claims the merge of group id's result for token at now, or
// renews token's claim: it fails (false) while another merge's claim was
// renewed within stale, so one client merges at a time and a merge that
// takes minutes (a long group's records) is not started again by a
// client tired of waiting. ErrNotFound: the group has no coordination
// document (its runs were imported).
func (m *Mongo) ClaimMerge(ctx context.Context, id, token string, now time.Time, stale time.Duration) (bool, error) {
	filter := bson.D{{Key: "_id", Value: id}, {Key: "$or", Value: bson.A{
		bson.D{{Key: "merging", Value: bson.D{{Key: "$exists", Value: false}}}},
		bson.D{{Key: "merging.token", Value: token}},
		bson.D{{Key: "merging.at", Value: bson.D{{Key: "$lt", Value: now.Add(-stale)}}}},
	}}}
	_, err := m.setGroup(ctx, filter, bson.D{{Key: "merging", Value: MergeClaim{Token: token, At: now}}})
	if errors.Is(err, ErrNotFound) {
		if _, gerr := m.Group(ctx, id); gerr != nil {
			return false, gerr // no such group (ErrNotFound), or the store failed
		}
		return false, nil // claimed by another merge
	}
	return err == nil, err
}

// ReleaseMerge ends token's claim on group id's merge (a merge that
// failed), so the next may start at once.
func (m *Mongo) ReleaseMerge(ctx context.Context, id, token string) error {
	_, err := m.groups().UpdateOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "merging.token", Value: token}},
		bson.D{{Key: "$unset", Value: bson.D{{Key: "merging", Value: ""}}}})
	if err != nil {
		return fmt.Errorf("update group: %w", err)
	}
	return nil
}

// MarkMerged records the group's stored result and the clients it lacks.
// The merge's claim ends with it.
func (m *Mongo) MarkMerged(ctx context.Context, id, runID string, missing []int) error {
	res, err := m.groups().UpdateOne(ctx, bson.D{{Key: "_id", Value: id}}, bson.D{
		{Key: "$set", Value: bson.D{{Key: "merged", Value: runID}, {Key: "missing", Value: missing}}},
		{Key: "$unset", Value: bson.D{{Key: "merging", Value: ""}}}})
	switch {
	case err != nil:
		return fmt.Errorf("update group: %w", err)
	case res.MatchedCount == 0:
		return fmt.Errorf("group: %w", ErrNotFound)
	}
	return nil
}

func (m *Mongo) setGroup(ctx context.Context, filter, set bson.D) (*GroupDoc, error) {
	opts := options.FindOneAndUpdate().SetReturnDocument(options.After)
	var g GroupDoc
	err := m.groups().FindOneAndUpdate(ctx, filter, bson.D{{Key: "$set", Value: set}}, opts).Decode(&g)
	if errors.Is(err, mongo.ErrNoDocuments) {
		return nil, fmt.Errorf("group: %w", ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("update group: %w", err)
	}
	return &g, nil
}

// GroupRuns returns the stored client results of group id, from the
// history.
func (m *Mongo) GroupRuns(ctx context.Context, id string) ([]result.Doc, error) {
	// A client's row still registered (live: running or lost) is not its
	// result: the merge counts such a client as missing.
	filter := bson.D{{Key: "group.id", Value: id}, {Key: "group.clientIndex", Value: bson.D{{Key: "$exists", Value: true}}},
		{Key: "live", Value: bson.D{{Key: "$exists", Value: false}}}}
	cur, err := m.db.Collection(HistoryCollection).Find(ctx, filter, options.Find().SetSort(bson.D{{Key: "start", Value: 1}}))
	if err != nil {
		return nil, fmt.Errorf("find the runs of group %s: %w", id, err)
	}
	var rows []stored
	if err := cur.All(ctx, &rows); err != nil {
		return nil, fmt.Errorf("find the runs of group %s: %w", id, err)
	}
	docs := make([]result.Doc, len(rows))
	for i := range rows {
		docs[i] = rows[i].doc()
	}
	return docs, nil
}

// MergeGroupRecords writes the full-resolution records of a group's
// merged run runID from its clients' results (as GroupRuns returns them,
// by client index): their intervals merged as the group's document merges
// them (merge.Stream: each client's read in time order, a coarsened
// client's from its records, written in batches, so a day-long group
// merges in constant memory), each also handed to each, then the first
// client's telemetry records,
// whose figures the merged document carries. It replaces any records a
// previous merge of the group wrote, and returns how many intervals it
// wrote and whether every coarsened client's full resolution was there
// (its run streamed every interval and the store holds them all; else
// some merged intervals lack that client's part).
func (m *Mongo) MergeGroupRecords(ctx context.Context, runID string, clients []result.Doc, each func(result.Interval) error) (n int, complete bool, err error) {
	w, err := m.newRecordWriter(ctx, runID)
	if err != nil {
		return 0, false, fmt.Errorf("group run %s's intervals: %w", runID, err)
	}
	next := make([]func() (result.Interval, bool, error), len(clients))
	read := make([]int, len(clients)) // a coarsened client's records read
	cores := make([]int, len(clients))
	for i := range clients {
		c := &clients[i]
		cores[i] = c.Client.Cores
		if c.Resolution == nil {
			next[i] = merge.Each(c.Intervals)
			continue
		}
		cur, err := m.records(ctx, c.RunID, kindInterval)
		if err != nil {
			return 0, false, err
		}
		defer cur.Close(ctx)
		next[i] = func() (result.Interval, bool, error) {
			if !cur.Next(ctx) {
				return result.Interval{}, false, cur.Err()
			}
			var r intervalRecord
			err := cur.Decode(&r)
			read[i]++
			return r.Interval, err == nil, err
		}
	}
	err = merge.Stream(next, cores, func(iv result.Interval) error {
		if err := each(iv); err != nil {
			return err
		}
		n++
		return w.add(ctx, intervalRecord{Run: recordMeta{RunID: runID, Kind: kindInterval}, Interval: iv})
	})
	if err == nil && len(clients) > 0 {
		err = m.copyTelemetry(ctx, w, clients[0].RunID, runID)
	}
	if err == nil {
		err = w.flush(ctx)
	}
	if err != nil {
		return 0, false, fmt.Errorf("group run %s's intervals: %w", runID, err)
	}
	complete = true
	for i, c := range clients {
		if r := c.Resolution; r != nil && (r.Collection != IntervalsCollection || read[i] != r.FullIntervals) {
			complete = false // its stream missed intervals, or they were removed since
		}
	}
	return n, complete, nil
}

// copyTelemetry copies run from's telemetry records (every kind but
// intervals) to run to, through w.
func (m *Mongo) copyTelemetry(ctx context.Context, w *recordWriter, from, to string) error {
	cur, err := m.records(ctx, from, "")
	if err != nil {
		return err
	}
	defer cur.Close(ctx)
	for cur.Next(ctx) {
		var rec bson.D
		if err := cur.Decode(&rec); err != nil {
			return err
		}
		rec = slices.DeleteFunc(rec, func(e bson.E) bool { return e.Key == "_id" })
		for i, e := range rec {
			if meta, ok := e.Value.(bson.D); ok && e.Key == "run" {
				meta = slices.DeleteFunc(meta, func(e bson.E) bool { return e.Key == "w" })
				for j := range meta {
					if meta[j].Key == "id" {
						meta[j].Value = to
					}
				}
				rec[i].Value = meta
			}
		}
		if err := w.add(ctx, rec); err != nil {
			return err
		}
	}
	return cur.Err()
}

// ClockOffset estimates this process's clock minus the results server's,
// from the server's hello.localTime taken halfway through the round trip;
// the uncertainty is half the round trip plus the server's millisecond
// resolution.
func (m *Mongo) ClockOffset(ctx context.Context) (offset, uncertainty time.Duration, err error) {
	var hello struct {
		LocalTime time.Time `bson:"localTime"`
	}
	sent := time.Now()
	if err := m.db.Client().Database("admin").RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}).Decode(&hello); err != nil {
		return 0, 0, fmt.Errorf("read the results server's clock: %w", err)
	}
	back := time.Now()
	if hello.LocalTime.IsZero() {
		return 0, 0, errors.New("the results server's hello has no localTime")
	}
	mid := sent.Add(back.Sub(sent) / 2)
	return mid.Sub(hello.LocalTime), back.Sub(sent)/2 + time.Millisecond, nil
}
