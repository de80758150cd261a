package runner

import (
	"context"
	"fmt"
	"os"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/mongobench/mongobench/internal/connect"
	"github.com/mongobench/mongobench/internal/telemetry"
	"github.com/mongobench/mongobench/internal/uri"
)

// locate fills in the PID and data directory of a target given by URI when
// that server runs on this host: its URI names only loopback hosts and
// the process its serverStatus names exists here. Host telemetry then
// covers it. The data directory comes from getCmdLineOpts when the server
// answers it, else from the process's command line; without it, disk
// counters stay missing.
func locate(ctx context.Context, c *mongo.Client, t Target) Target {
	if t.PID != 0 || !uri.Loopback(t.URI) {
		return t
	}
	var st struct {
		PID int64 `bson:"pid"`
	}
	if err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "serverStatus", Value: 1}}).Decode(&st); err != nil || st.PID <= 0 {
		return t
	}
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", st.PID)); err != nil {
		return t // a loopback address of another network namespace or container
	}
	t.PID = int(st.PID)
	t.DataDir = dbPath(ctx, c)
	if t.DataDir == "" {
		t.DataDir = telemetry.ProcessDataDir(t.PID)
	}
	return t
}

// dbPath is the server's data directory from getCmdLineOpts, or "" when
// the server does not answer it (a user without the privilege, Atlas).
func dbPath(ctx context.Context, c *mongo.Client) string {
	var opts struct {
		Parsed struct {
			Storage struct {
				DBPath string `bson:"dbPath"`
			} `bson:"storage"`
		} `bson:"parsed"`
	}
	if err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "getCmdLineOpts", Value: 1}}).Decode(&opts); err != nil {
		return ""
	}
	return opts.Parsed.Storage.DBPath
}

// memberDBPath is a replica set member's data directory from its
// getCmdLineOpts, asked over a direct connection to the member with the
// target's credentials and TLS settings; "" when it cannot be read.
func memberDBPath(ctx context.Context, target, member string) string {
	c, err := connectMember(target, member)
	if err != nil {
		return ""
	}
	defer disconnect(ctx, c)
	ctx, cancel := context.WithTimeout(ctx, 2*connectTimeout)
	defer cancel()
	return dbPath(ctx, c)
}

// memberDiagnosticData reads a replica set member's getDiagnosticData
// over a direct connection to it, with the target's credentials and TLS
// settings; its error says why the member does not give it.
func memberDiagnosticData(ctx context.Context, target, member string) (*telemetry.DiagnosticData, error) {
	c, err := connectMember(target, member)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, 2*connectTimeout)
	defer cancel()
	return telemetry.DiagnosticDataOf(ctx, c)
}

// connectMember opens a client to one member of the target's replica set
// (host:port as the set names it), directly, with the target's
// credentials and TLS settings, which also hold for an SRV connection
// string.
func connectMember(target, member string) (*mongo.Client, error) {
	return connect.Open(target, connect.Settings{Member: member})
}
