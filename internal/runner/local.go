package runner

import (
	"context"
	"fmt"
	"os"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/mongobench/mongobench/internal/uri"
)

// locate fills in the PID and data directory of a target given by URI when
// that server runs on this host: its URI names only loopback hosts and
// the process its serverStatus names exists here. Host telemetry then
// covers it. The data directory comes from getCmdLineOpts when the server
// answers it; without it, disk counters stay missing.
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
