package wire_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/mongobench/mongobench/internal/server"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
	"github.com/mongobench/mongobench/internal/wire"
)

func dialURI(uri string) (*wire.Conn, error) {
	o, err := wire.Parse(uri)
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	return wire.Dial(ctx, o)
}

func listDatabases(t *testing.T, c *wire.Conn) error {
	t.Helper()
	_, err := command(t, c, "admin", wire.RetryRead, func(d []byte) []byte {
		return bsoncore.AppendInt32Element(d, "listDatabases", 1)
	})
	return err
}

// TestAuthentication authenticates with SCRAM-SHA-256, negotiated and
// named, against a server that requires it, and checks that a wrong
// password and no credentials are refused.
func TestAuthentication(t *testing.T) {
	const user, password = "wireuser", "Sécret pass 7"
	h := testenv.Own(t, server.Options{ExtraArgs: []string{"--auth"}})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	mc, err := mongo.Connect(options.Client().ApplyURI(h.URI))
	if err != nil {
		t.Fatal(err)
	}
	defer mc.Disconnect(ctx)
	create := bson.D{{Key: "createUser", Value: user}, {Key: "pwd", Value: password}, {Key: "roles", Value: bson.A{"root"}}}
	if err := mc.Database("admin").RunCommand(ctx, create).Err(); err != nil {
		t.Fatalf("create user: %v", err)
	}
	with := func(pass, extra string) string {
		return fmt.Sprintf("mongodb://%s:%s@127.0.0.1:%d/?directConnection=true%s", user, strings.ReplaceAll(pass, " ", "%20"), h.Port, extra)
	}
	for _, uri := range []string{with(password, ""), with(password, "&authMechanism=SCRAM-SHA-256")} {
		c, err := dialURI(uri)
		if err != nil {
			t.Fatalf("dial with credentials: %v", err)
		}
		if err := listDatabases(t, c); err != nil {
			t.Errorf("listDatabases after authenticating: %v", err)
		}
		_ = c.Close()
	}
	if _, err := dialURI(with("wrong password", "")); err == nil {
		t.Errorf("wrong password: got no error")
	}
	anon, err := dialURI(fmt.Sprintf("mongodb://127.0.0.1:%d/?directConnection=true", h.Port))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = anon.Close() }()
	var se *wire.Error
	if err := listDatabases(t, anon); !errors.As(err, &se) {
		t.Errorf("listDatabases without credentials: got %v, want a server error", err)
	}
}

// TestSelection finds the primary from a replica-set seed list without a
// direct connection, and recognises a standalone (no retryable writes).
func TestSelection(t *testing.T) {
	uri := testenv.URI(t)
	c := dial(t)
	if c.Server.Kind != "primary" || c.Server.SetName == "" {
		t.Skipf("the test server is %+v, not a replica set", c.Server)
	}
	port := strings.TrimPrefix(c.Server.Addr, "127.0.0.1:")
	rs, err := dialURI(fmt.Sprintf("mongodb://127.0.0.1:1,127.0.0.1:%s/?replicaSet=%s&connectTimeoutMS=500", port, c.Server.SetName))
	if err != nil {
		t.Fatalf("replica set from seeds (one dead) %s: %v", uri, err)
	}
	defer func() { _ = rs.Close() }()
	if rs.Server.Kind != "primary" || !strings.HasSuffix(rs.Server.Addr, ":"+port) {
		t.Errorf("selected %+v, want the primary on port %s", rs.Server, port)
	}
	if _, err := dialURI(fmt.Sprintf("mongodb://127.0.0.1:%s/?replicaSet=another", port)); err == nil {
		t.Errorf("replicaSet=another: got a connection, want none (no member of that set)")
	}

	h := testenv.Own(t, server.Options{ExtraArgs: []string{"--standalone"}})
	sa, err := dialURI(h.URI)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sa.Close() }()
	if sa.Server.Kind != "standalone" {
		t.Errorf("--standalone server: kind %q, want standalone", sa.Server.Kind)
	}
}

func TestParseRefuses(t *testing.T) {
	for _, uri := range []string{
		"mongodb+srv://cluster0.example.net/",
		"mongodb://h:27017/?loadBalanced=true",
		"mongodb://u:p@h:27017/?authMechanism=PLAIN",
		"mongodb://h:27017/?compressors=zstd",
		"mongodb://h:27017/?readPreference=secondary",
		"mongodb://h:27017/?w=0",
	} {
		if _, err := wire.Parse(uri); !errors.Is(err, wire.ErrUnsupported) {
			t.Errorf("%s: got %v, want ErrUnsupported", uri, err)
		}
	}
	o, err := wire.Parse("mongodb://u:p@a:1,b:2/?replicaSet=rs&w=majority&journal=true&retryWrites=false&authSource=db")
	if err != nil {
		t.Fatal(err)
	}
	if len(o.Hosts) != 2 || o.ReplicaSet != "rs" || o.RetryWrites || o.AuthSource != "db" || o.WriteConcern == nil {
		t.Errorf("parsed %+v", o)
	}
}
