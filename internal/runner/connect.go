package runner

import (
	"context"
	"fmt"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/connect"
	"github.com/mongobench/mongobench/internal/hostmap"
	"github.com/mongobench/mongobench/internal/secret"
)

// connectTimeout bounds how long an unreachable server can hold a run up:
// every connection's (connect.Timeout).
const connectTimeout = connect.Timeout

// codeAuthFailed is the server's AuthenticationFailed error code.
const codeAuthFailed = 18

// ErrBadURI marks a connection string the driver cannot use: bad input,
// not a failure of the server (connect.ErrBadURI).
var ErrBadURI = connect.ErrBadURI

// CheckURI reports whether target is a connection string the driver
// accepts, without connecting. Its error wraps ErrBadURI and names the
// target without its password; the driver's own complaint is shown
// without the parts of the string it quotes.
func CheckURI(target string) error {
	_, err := clientOptions(target, 2)
	return err
}

func clientOptions(target string, pool int) (*options.ClientOptions, error) {
	return connect.Options(target, connect.Settings{Pool: max(pool, 2)})
}

// Connect opens a client to uri with a pool large enough for the run and
// checks that the server answers (and accepts the credentials) within a
// few seconds. Errors name the target without its password, and the
// driver's messages in them are cleared of its secrets.
func Connect(ctx context.Context, target string, pool int) (*mongo.Client, error) {
	opts, err := clientOptions(target, pool)
	if err != nil {
		return nil, err
	}
	c, err := connect.OpenWith(target, opts)
	if err != nil {
		return nil, err
	}
	pctx, cancel := context.WithTimeout(ctx, 2*connectTimeout)
	defer cancel()
	if err := c.Ping(pctx, nil); err != nil {
		disconnect(ctx, c)
		if ctx.Err() != nil {
			return nil, fmt.Errorf("cannot reach %s: %w", secret.URI(target), ctx.Err())
		}
		return nil, reachError(err, target, opts)
	}
	return c, nil
}

// fingerprintInfo identifies the server under test.
type fingerprintInfo struct {
	version  string
	topology string
	// set is the replica set as the server's hello names it (no members
	// outside a replica set).
	set hostmap.ReplicaSet
}

func fingerprint(ctx context.Context, c *mongo.Client) (fingerprintInfo, error) {
	var fp fingerprintInfo
	var build struct {
		Version string `bson:"version"`
	}
	if err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "buildInfo", Value: 1}}).Decode(&build); err != nil {
		return fp, fmt.Errorf("read server version: %w", err)
	}
	var hello struct {
		SetName  string   `bson:"setName"`
		Msg      string   `bson:"msg"`
		Hosts    []string `bson:"hosts"`
		Passives []string `bson:"passives"`
		Primary  string   `bson:"primary"`
		Me       string   `bson:"me"`
	}
	if err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}).Decode(&hello); err != nil {
		return fp, fmt.Errorf("read server topology: %w", err)
	}
	fp.version = build.Version
	switch {
	case hello.Msg == "isdbgrid":
		fp.topology = "sharded"
	case hello.SetName != "":
		fp.topology = "replicaSet " + hello.SetName
	default:
		fp.topology = "standalone"
	}
	fp.set = hostmap.ReplicaSet{Topology: fp.topology}
	if hello.SetName != "" {
		// hosts and passives: the data-bearing members (arbiters hold no data)
		fp.set = hostmap.ReplicaSet{Name: hello.SetName, Members: append(hello.Hosts, hello.Passives...),
			Primary: hello.Primary, Me: hello.Me, Topology: fp.topology}
	}
	return fp, nil
}

// withHidden adds to a replica set's members those hello leaves out
// (hidden and delayed members) as replSetGetStatus names them, arbiters
// excepted; the set as it was when the command is refused (a user
// without the clusterMonitor role) or outside a replica set.
func withHidden(ctx context.Context, c *mongo.Client, set hostmap.ReplicaSet) hostmap.ReplicaSet {
	if set.Name == "" {
		return set
	}
	var st struct {
		Members []struct {
			Name     string `bson:"name"`
			StateStr string `bson:"stateStr"`
		} `bson:"members"`
	}
	if err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "replSetGetStatus", Value: 1}}).Decode(&st); err != nil {
		return set
	}
	members := slices.Clone(set.Members)
	for _, m := range st.Members {
		if m.Name != "" && m.StateStr != "ARBITER" && !slices.Contains(members, m.Name) {
			members = append(members, m.Name)
		}
	}
	set.Members = members
	return set
}
