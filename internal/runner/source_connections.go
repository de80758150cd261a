package runner

import (
	"context"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/mongobench/mongobench/internal/connect"
)

// connectionsSource reads, during the run, the main member's own count
// of its client connections (serverStatus's connections section) every
// sampling interval, over a connection of its own: how many are open,
// how many more it accepts, and how fast new ones are made (a pool that
// churns, or clients that reconnect). It is read when the user names it
// (--telemetry).
type connectionsSource struct{}

// The series of connectionsSource.
const (
	SeriesConnections          = "SERVER_CONNECTIONS"
	SeriesConnectionsAvailable = "SERVER_CONNECTIONS_AVAILABLE"
	SeriesConnectionsCreated   = "SERVER_CONNECTIONS_CREATED"
)

func (connectionsSource) Name() string { return "connections" }
func (connectionsSource) Reads() string {
	return "the main member's serverStatus connections: open (current), still accepted (available) and made per second (totalCreated), as series"
}
func (connectionsSource) When() When    { return During }
func (connectionsSource) Default() bool { return false }
func (connectionsSource) mark() string  { return "serverStatus" }

func (connectionsSource) gauges() []gauge {
	return []gauge{
		{name: SeriesConnections, units: "SCALAR", key: "current"},
		{name: SeriesConnectionsAvailable, units: "SCALAR", key: "available"},
		{name: SeriesConnectionsCreated, units: "SCALAR_PER_SECOND", key: "totalCreated", rate: true},
	}
}

func (connectionsSource) open(_ context.Context, r *run) (gaugeReader, error) {
	c, err := connect.Open(r.opts.Target.URI, connect.Settings{AppName: "mongobench-telemetry"})
	if err != nil {
		return nil, err
	}
	return connections{c}, nil
}

// connections reads serverStatus's connections section.
type connections struct{ c *mongo.Client }

func (c connections) read(ctx context.Context) (map[string]float64, error) {
	var st struct {
		Connections bson.Raw `bson:"connections"`
	}
	if err := c.c.Database("admin").RunCommand(ctx, bson.D{{Key: "serverStatus", Value: 1}}).Decode(&st); err != nil {
		return nil, fmt.Errorf("serverStatus: %w", err)
	}
	if len(st.Connections) == 0 {
		return nil, errors.New("serverStatus has no connections section")
	}
	out := map[string]float64{}
	for _, k := range []string{"current", "available", "totalCreated"} {
		if v, ok := st.Connections.Lookup(k).AsFloat64OK(); ok {
			out[k] = v
		}
	}
	return out, nil
}

func (c connections) close(ctx context.Context) { _ = c.c.Disconnect(ctx) }
