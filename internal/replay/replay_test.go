package replay_test

import (
	"encoding/binary"
	"errors"
	"io"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/recording"
	"github.com/mongobench/mongobench/internal/replay"
	"github.com/mongobench/mongobench/internal/result"
)

// opMsg is an OP_MSG with body as its section 0.
func opMsg(t *testing.T, requestID, responseTo int32, body bson.D) []byte {
	t.Helper()
	doc, err := bson.Marshal(body)
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 16, 16+5+len(doc))
	binary.LittleEndian.PutUint32(b[4:], uint32(requestID))
	binary.LittleEndian.PutUint32(b[8:], uint32(responseTo))
	binary.LittleEndian.PutUint32(b[12:], 2013)
	b = append(b, 0, 0, 0, 0, 0)
	b = append(b, doc...)
	binary.LittleEndian.PutUint32(b, uint32(len(b)))
	return b
}

// packets is a recording in memory.
type packets []recording.Packet

func (p *packets) Next() (recording.Packet, error) {
	if len(*p) == 0 {
		return recording.Packet{}, io.EOF
	}
	pk := (*p)[0]
	*p = (*p)[1:]
	return pk, nil
}

func msg(conn uint64, at time.Duration, m []byte) recording.Packet {
	dir := recording.DirRequest
	if binary.LittleEndian.Uint32(m[8:]) != 0 {
		dir = recording.DirReply
	}
	return recording.Packet{Event: recording.EventMessage, Conn: conn, Offset: at, Direction: dir, Message: m}
}

var lsid = bson.D{{Key: "id", Value: bson.Binary{Subtype: 4, Data: []byte("0123456789abcdef")}}}

// conversation: a handshake, an aggregation with a cursor, its getMore,
// a killCursors, an update in a transaction, on two connections.
func conversation(t *testing.T) *packets {
	ms := time.Millisecond
	return &packets{
		msg(1, 0, opMsg(t, 1, 0, bson.D{{Key: "hello", Value: 1}, {Key: "$db", Value: "admin"}})),
		msg(1, 1*ms, opMsg(t, 100, 1, bson.D{{Key: "ok", Value: 1.0}})),
		msg(1, 10*ms, opMsg(t, 2, 0, bson.D{{Key: "aggregate", Value: "orders"}, {Key: "pipeline", Value: bson.A{bson.D{{Key: "$match", Value: bson.D{{Key: "qty", Value: 5}}}}}},
			{Key: "cursor", Value: bson.D{{Key: "batchSize", Value: 2}}}, {Key: "lsid", Value: lsid}, {Key: "$clusterTime", Value: bson.D{{Key: "clusterTime", Value: bson.Timestamp{T: 1}}}}, {Key: "$db", Value: "prod"}})),
		msg(1, 13*ms, opMsg(t, 101, 2, bson.D{{Key: "cursor", Value: bson.D{{Key: "id", Value: int64(777)}, {Key: "ns", Value: "prod.orders"}, {Key: "firstBatch", Value: bson.A{bson.D{}, bson.D{}}}}}, {Key: "ok", Value: 1.0}})),
		msg(2, 14*ms, opMsg(t, 3, 0, bson.D{{Key: "saslStart", Value: 1}, {Key: "$db", Value: "admin"}})),
		msg(1, 20*ms, opMsg(t, 4, 0, bson.D{{Key: "getMore", Value: int64(777)}, {Key: "collection", Value: "orders"}, {Key: "lsid", Value: lsid}, {Key: "$db", Value: "prod"}})),
		msg(1, 21*ms, opMsg(t, 102, 4, bson.D{{Key: "cursor", Value: bson.D{{Key: "id", Value: int64(777)}, {Key: "ns", Value: "prod.orders"}, {Key: "nextBatch", Value: bson.A{bson.D{}}}}}, {Key: "ok", Value: 1.0}})),
		msg(1, 30*ms, opMsg(t, 5, 0, bson.D{{Key: "killCursors", Value: "orders"}, {Key: "cursors", Value: bson.A{int64(777)}}, {Key: "$db", Value: "prod"}})),
		msg(1, 31*ms, opMsg(t, 103, 5, bson.D{{Key: "ok", Value: 1.0}})),
		msg(2, 40*ms, opMsg(t, 6, 0, bson.D{{Key: "update", Value: "orders"}, {Key: "updates", Value: bson.A{bson.D{{Key: "q", Value: bson.D{{Key: "_id", Value: 1}}}, {Key: "u", Value: bson.D{{Key: "$set", Value: bson.D{{Key: "a", Value: 1}}}}}}}},
			{Key: "lsid", Value: lsid}, {Key: "txnNumber", Value: int64(41)}, {Key: "startTransaction", Value: true}, {Key: "autocommit", Value: false},
			{Key: "readConcern", Value: bson.D{{Key: "level", Value: "snapshot"}, {Key: "afterClusterTime", Value: bson.Timestamp{T: 9}}}}, {Key: "$db", Value: "prod"}})),
		msg(2, 44*ms, opMsg(t, 104, 6, bson.D{{Key: "n", Value: 1}, {Key: "ok", Value: 1.0}})),
	}
}

func TestPlanRefusesWritesWithTheReason(t *testing.T) {
	_, err := replay.Load(conversation(t), replay.Options{Speed: 1})
	var wr *replay.WriteRefusal
	if !errors.As(err, &wr) || wr.Writes != 1 || !strings.Contains(err.Error(), "update prod.orders ×1") || !strings.Contains(err.Error(), "--allow-writes") {
		t.Fatalf("got %v, want the update named and --allow-writes", err)
	}
	_, err = replay.Load(conversation(t), replay.Options{Speed: 1, AllowWrites: true, ReservedDatabases: []string{"prod"}})
	if !errors.As(err, &wr) || wr.Reserved != "prod" {
		t.Fatalf("a write to a reserved database: got %v", err)
	}
	// Mapped elsewhere, the same writes are allowed.
	if _, err := replay.Load(conversation(t), replay.Options{Speed: 1, AllowWrites: true, ReservedDatabases: []string{"prod"},
		MapNS: []replay.NSRule{{From: "prod.", To: "staging."}}}); err != nil {
		t.Fatal(err)
	}
}

func TestPlanPairsRepliesAndSkipsMonitoringAndAuth(t *testing.T) {
	p, err := replay.Load(conversation(t), replay.Options{Speed: 2, AllowWrites: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Requests) != 4 || p.Conns != 2 || p.Skipped[replay.SkipMonitoring] != 1 || p.Skipped[replay.SkipAuth] != 1 {
		t.Fatalf("%d requests on %d connections, skipped %v; want 4 on 2, the hello and the saslStart skipped", len(p.Requests), p.Conns, p.Skipped)
	}
	agg := p.Requests[0]
	if agg.Offset != 0 || agg.Recorded != 3*time.Millisecond || agg.RecordedDocs != 2 || agg.RecordedCursor != 777 {
		t.Errorf("aggregate: %+v", agg)
	}
	if s := (replay.Schedule{Plan: p, Speed: 2}); s.At(3) != 15*time.Millisecond || s.At(4) < time.Hour {
		t.Errorf("schedule at ×2: %v, %v", s.At(3), s.At(4))
	}
	// The replay's pace is the recording's: its rate times the speed, its
	// span divided by it (4 requests over 30ms: 100/s recorded).
	if s := (replay.Schedule{Plan: p, Speed: 2}); s.Length() != 15*time.Millisecond || s.About() != "replay ×2 of 4 requests on 2 connections, 200/s for 15ms" {
		t.Errorf("schedule at ×2: length %v, %q", s.Length(), s.About())
	}
	if p.Requests[3].Conn != 1 || p.Requests[3].Seq != 0 || p.Requests[2].Seq != 2 {
		t.Errorf("connections and their order: %+v", p.Requests)
	}
}

func TestMapperMapsCursorsSessionsAndDropsClusterTimes(t *testing.T) {
	p, err := replay.Load(conversation(t), replay.Options{Speed: 1, AllowWrites: true, MapNS: []replay.NSRule{{From: "prod.", To: "staging."}}})
	if err != nil {
		t.Fatal(err)
	}
	m := replay.NewMapper(func() [16]byte { return [16]byte{1, 2, 3} })
	agg, err := m.Command(nil, &p.Requests[0])
	if err != nil {
		t.Fatal(err)
	}
	doc := bson.Raw(agg)
	if err := doc.Validate(); err != nil {
		t.Fatal(err)
	}
	if _, err := doc.LookupErr("$clusterTime"); err == nil {
		t.Error("$clusterTime was sent")
	}
	if db := doc.Lookup("$db").StringValue(); db != "staging" {
		t.Errorf("$db %q, want staging", db)
	}
	if id := doc.Lookup("lsid", "id"); id.Type != bson.TypeBinary || string(id.Value[5:8]) != "\x01\x02\x03" {
		t.Errorf("lsid %v, want the candidate session", id)
	}
	// Before the candidate's reply, the getMore's cursor is not there.
	var gone *replay.ErrCursorGone
	if _, err := m.Command(nil, &p.Requests[1]); !errors.As(err, &gone) {
		t.Fatalf("getMore before its cursor: %v", err)
	}
	reply, _ := bson.Marshal(bson.D{{Key: "cursor", Value: bson.D{{Key: "id", Value: int64(4242)}, {Key: "firstBatch", Value: bson.A{}}}}, {Key: "ok", Value: 1}})
	m.Replied(&p.Requests[0], reply)
	gm, err := m.Command(nil, &p.Requests[1])
	if err != nil {
		t.Fatal(err)
	}
	if id := bson.Raw(gm).Lookup("getMore").Int64(); id != 4242 {
		t.Errorf("getMore %d, want the candidate's 4242", id)
	}
	kc, err := m.Command(nil, &p.Requests[2])
	if err != nil {
		t.Fatal(err)
	}
	if ids := bson.Raw(kc).Lookup("cursors").Array().String(); ids != `[{"$numberLong":"4242"}]` {
		t.Errorf("killCursors %s, want the candidate's cursor", ids)
	}
	up, err := m.Command(nil, &p.Requests[3])
	if err != nil {
		t.Fatal(err)
	}
	u := bson.Raw(up)
	if n := u.Lookup("txnNumber").Int64(); n != 1 {
		t.Errorf("txnNumber %d, want 1 (the session's first)", n)
	}
	if _, err := u.LookupErr("readConcern", "afterClusterTime"); err == nil {
		t.Error("afterClusterTime was sent")
	}
	if lvl := u.Lookup("readConcern", "level").StringValue(); lvl != "snapshot" {
		t.Errorf("readConcern level %q", lvl)
	}
	c := m.Counts()
	if c.Cursors != 2 || c.CursorsGone != 1 || c.Sessions != 1 || c.TxnNumbers != 1 || c.ClusterTimes != 1 || c.AfterClusterTimes != 1 || c.Namespaces != 4 {
		t.Errorf("counts %+v", c)
	}
	ex, ok := replay.ExplainCommand(&p.Requests[3])
	if !ok || bson.Raw(ex).Validate() != nil {
		t.Fatal("no explain of the update")
	}
	if _, err := bson.Raw(ex).LookupErr("explain", "lsid"); err == nil || bson.Raw(ex).Lookup("explain", "update").StringValue() != "orders" {
		t.Errorf("explain %s", bson.Raw(ex))
	}
}

func TestNamespaceRules(t *testing.T) {
	for _, c := range []struct{ rule, db, coll, wantDB, wantColl string }{
		{"prod.=staging.", "prod", "orders", "staging", "orders"},
		{"prod.=staging.", "prod", "", "staging", ""},
		{"prod.=staging.", "production", "orders", "production", "orders"},
		{"prod.orders=staging.o2", "prod", "orders", "staging", "o2"},
		{"prod.orders=staging.o2", "prod", "orders2", "prod", "orders2"},
	} {
		r, err := replay.ParseNSRule(c.rule)
		if err != nil {
			t.Fatal(err)
		}
		if db, coll := replay.MapNamespace([]replay.NSRule{r}, c.db, c.coll); db != c.wantDB || coll != c.wantColl {
			t.Errorf("%s on %s.%s: got %s.%s, want %s.%s", c.rule, c.db, c.coll, db, coll, c.wantDB, c.wantColl)
		}
	}
	for _, bad := range []string{"prod", "prod.=", "prod.=staging", "=x."} {
		if _, err := replay.ParseNSRule(bad); err == nil || !strings.Contains(err.Error(), "want FROM=TO") {
			t.Errorf("%q: got %v", bad, err)
		}
	}
}

func TestPlanChangesNameTheShapeAndTheStages(t *testing.T) {
	shape := func(plan string) result.ReplayShape {
		return result.ReplayShape{Shape: `{"command":"find"}`, Command: "find", Namespace: "shop.orders", Plan: plan}
	}
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	docs := []result.Doc{
		{RunID: "a1", Label: "a", Start: at, Replay: &result.Replay{Shapes: []result.ReplayShape{shape(`{"stage": "COLLSCAN"}`)}}},
		{RunID: "a2", Label: "a", Start: at.Add(time.Hour), Replay: &result.Replay{Shapes: []result.ReplayShape{shape(`{"stage": "COLLSCAN", "direction": "forward"}`)}}},
		{RunID: "b1", Label: "b", Start: at, Replay: &result.Replay{Shapes: []result.ReplayShape{shape(`{"stage": "FETCH", "inputStage": {"stage": "IXSCAN"}}`)}}},
		{RunID: "c1", Label: "c", Start: at, Replay: &result.Replay{Shapes: []result.ReplayShape{shape(`{"stage": "COLLSCAN", "direction": "forward"}`)}}},
	}
	got := replay.PlanChanges(docs, []string{"a", "b", "c"})
	want := "plan changed: find shop.orders: COLLSCAN (a, run a2) → FETCH, IXSCAN (b, run b1)"
	if len(got) != 1 || got[0] != want {
		t.Errorf("got %q, want [%q] (the same plan on c is no change)", got, want)
	}
	if replay.PlanChanges(docs, []string{"a", "missing"}) != nil {
		t.Error("a change said against a label without runs")
	}
}
