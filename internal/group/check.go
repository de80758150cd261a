package group

import (
	"fmt"
	"strconv"
	"time"

	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/store"
)

// Check validates a group's document, as read from the results store,
// before a client acts on it: its client count within the tool's own
// bounds (1 to spec.MaxClients), every registered member an index of
// the group, and its start instant and members' heartbeats no further
// ahead of now than the timeout (a start in 2999 would be waited for past
// --group-timeout; a heartbeat from the future would keep a dead client
// alive forever). The store is shared, so its documents are input like
// any other.
func Check(g *store.GroupDoc, now time.Time, timeout time.Duration) error {
	if g.Clients < 1 || g.Clients > spec.MaxClients {
		return fmt.Errorf("group %s: its document says %d clients, want 1 to %d", g.ID, g.Clients, spec.MaxClients)
	}
	if len(g.Members) > g.Clients {
		return fmt.Errorf("group %s: its document registers %d members for %d clients", g.ID, len(g.Members), g.Clients)
	}
	ahead := timeout + startMargin
	for k, m := range g.Members {
		i, err := strconv.Atoi(k)
		if err != nil || i < 0 || i >= g.Clients || strconv.Itoa(i) != k {
			return fmt.Errorf("group %s: its document registers member %.20q, want a client index 0 to %d", g.ID, k, g.Clients-1)
		}
		if m.Heartbeat.After(now.Add(ahead)) {
			return fmt.Errorf("group %s: client %d's heartbeat is at %s, more than %v ahead of this clock", g.ID, i, stamp(m.Heartbeat), ahead)
		}
	}
	if g.StartAt != nil {
		if at := *g.StartAt; at.After(now.Add(ahead)) {
			return fmt.Errorf("group %s: its start instant %s is more than the group timeout (%v) from now (%s): start the clients again under another --group",
				g.ID, stamp(at), timeout, stamp(now))
		}
	}
	return nil
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }
