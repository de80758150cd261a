package group

import (
	"strconv"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/store"
)

var now = time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)

func doc(clients int, members ...int) *store.GroupDoc {
	g := &store.GroupDoc{ID: "g", Clients: clients, Members: map[string]store.GroupMember{}}
	for _, i := range members {
		g.Members[strconv.Itoa(i)] = store.GroupMember{Host: "h", PID: 1, Heartbeat: now}
	}
	return g
}

func at(t time.Time) *time.Time { return &t }

// A group document is checked before a client acts on it: a client count
// beyond the tool's bounds (a client looping over 1e12 indexes spun at
// 1.7 GB in 6 s, deaf to Ctrl-C), a start instant past the timeout (2999
// was waited for), a heartbeat from the future, members outside the group.
func TestCheckRefusesHostileDocuments(t *testing.T) {
	timeout := time.Minute
	farStart, staleStart, futureBeat, badKey := doc(2, 0), doc(2, 0), doc(2, 0, 1), doc(2, 0)
	farStart.StartAt = at(time.Date(2999, 1, 1, 0, 0, 0, 0, time.UTC))
	staleStart.StartAt = at(now.Add(-time.Hour))
	m := futureBeat.Members["1"]
	m.Heartbeat = now.Add(100 * 365 * 24 * time.Hour)
	futureBeat.Members["1"] = m
	badKey.Members["07"] = store.GroupMember{}
	for _, tc := range []struct {
		name string
		g    *store.GroupDoc
		want string // "" when valid
	}{
		{"valid", doc(3, 0, 2), ""},
		{"valid start", func() *store.GroupDoc { g := doc(2, 0, 1); g.StartAt = at(now.Add(3 * time.Second)); return g }(), ""},
		{"clients 1e12", doc(1_000_000_000_000), "1000000000000 clients, want 1 to 10000"},
		{"clients 0", doc(0), "0 clients, want 1 to 10000"},
		{"clients negative", doc(-5), "-5 clients"},
		{"clients past the bound", doc(spec.MaxClients + 1), "want 1 to 10000"},
		{"start in 2999", farStart, "start instant 2999-01-01T00:00:00Z is more than the group timeout (1m0s)"},
		{"start an hour ago (a group that ran)", staleStart, ""},
		{"heartbeat from the future", futureBeat, "client 1's heartbeat"},
		{"member outside the group", doc(2, 0, 5), `member "5"`},
		{"member not a number", badKey, `member "07"`},
		{"more members than clients", doc(1, 0, 1), "2 members for 1 clients"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := Check(tc.g, now, timeout)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("Check: got %v, want nil", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Errorf("Check: got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

// FuzzGroupDoc decodes arbitrary BSON as a group document: whatever
// Check accepts, a client can act on in bounded time and memory (its
// loops over the group's clients stay within the tool's bounds, its
// start is within the timeout).
func FuzzGroupDoc(f *testing.F) {
	seed := func(v any) {
		b, err := bson.Marshal(v)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	seed(doc(2, 0, 1))
	seed(bson.D{{Key: "_id", Value: "g"}, {Key: "clients", Value: int64(1e12)}})
	seed(bson.D{{Key: "_id", Value: "g"}, {Key: "clients", Value: 2}, {Key: "startAt", Value: time.Date(2999, 1, 1, 0, 0, 0, 0, time.UTC)}})
	seed(bson.D{{Key: "_id", Value: "g"}, {Key: "clients", Value: 3}, {Key: "members", Value: bson.D{{Key: "2", Value: bson.D{{Key: "host", Value: "x"}}}}}})
	f.Fuzz(func(t *testing.T, data []byte) {
		// The store's documents arrive from the server as valid BSON; the
		// driver's Unmarshal (v2.9.3) does not return on some malformed
		// input (testdata/fuzz/FuzzGroupDoc/be41fb26eb721041: a string of
		// length -9), which Validate refuses.
		if bsoncore.Document(data).Validate() != nil {
			return
		}
		var g store.GroupDoc
		if bson.Unmarshal(data, &g) != nil {
			return
		}
		if err := Check(&g, now, DefaultTimeout); err != nil {
			return
		}
		if g.Clients < 1 || g.Clients > spec.MaxClients {
			t.Fatalf("accepted %d clients", g.Clients)
		}
		if g.StartAt != nil && g.StartAt.Sub(now) > DefaultTimeout+startMargin {
			t.Fatalf("accepted a start at %v", g.StartAt)
		}
		if n := len(notReady(&g)) + len(pending(&g)); n > 2*g.Clients {
			t.Fatalf("%d clients waited for in a group of %d", n, g.Clients)
		}
	})
}
