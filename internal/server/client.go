package server

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/mongobench/mongobench/internal/connect"
)

// replSetName is the replica set a mongod started here belongs to.
const replSetName = "rs0"

// codeAlreadyInitialized is the server error replSetInitiate returns on a
// replica set that is already configured.
const codeAlreadyInitialized = 23

// Ping connects to uri and runs ping, all within ctx.
func Ping(ctx context.Context, uri string) error {
	return withClient(ctx, uri, func(c *mongo.Client) error {
		return c.Ping(ctx, nil)
	})
}

// Ping reports whether the server answers a ping within ctx.
func (h *Handle) Ping(ctx context.Context) error {
	return Ping(ctx, h.URI)
}

// withClient runs fn with a fresh client for uri. It polls rather than
// streams server monitoring: SecantusDB answers streamed hellos with the
// wrong responseTo.
func withClient(ctx context.Context, uri string, fn func(*mongo.Client) error) error {
	c, err := connect.Open(uri, connect.Settings{Poll: true})
	if err != nil {
		return err // it names the server without its password
	}
	defer disconnect(c)
	return fn(c)
}

// disconnect closes c without waiting long on a stopped server.
func disconnect(c *mongo.Client) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	_ = c.Disconnect(ctx)
}

// adminCommand runs cmd against the admin database and decodes the reply.
func adminCommand(ctx context.Context, uri string, cmd bson.D, out any) error {
	return withClient(ctx, uri, func(c *mongo.Client) error {
		return c.Database("admin").RunCommand(ctx, cmd).Decode(out)
	})
}

// serverVersion asks the server for its version through buildInfo.
func serverVersion(ctx context.Context, uri string) (string, error) {
	var info struct {
		Version string `bson:"version"`
	}
	if err := adminCommand(ctx, uri, bson.D{{Key: "buildInfo", Value: 1}}, &info); err != nil {
		return "", fmt.Errorf("read server version: %w", err)
	}
	return info.Version, nil
}

// isPrimary reports whether the server says it accepts writes.
func isPrimary(ctx context.Context, uri string) (bool, error) {
	var hello struct {
		Primary bool `bson:"isWritablePrimary"`
	}
	err := adminCommand(ctx, uri, bson.D{{Key: "hello", Value: 1}}, &hello)
	return hello.Primary, err
}

// initiate makes a fresh mongod the only member of replica set rs0. A set
// that is already configured (a restart on old data) is left alone.
func initiate(ctx context.Context, uri string, port int) error {
	member := bson.D{{Key: "_id", Value: 0}, {Key: "host", Value: fmt.Sprintf("127.0.0.1:%d", port)}}
	conf := bson.D{{Key: "_id", Value: replSetName}, {Key: "members", Value: bson.A{member}}}
	var reply bson.Raw
	err := adminCommand(ctx, uri, bson.D{{Key: "replSetInitiate", Value: conf}}, &reply)
	var ce mongo.CommandError
	if errors.As(err, &ce) && ce.Code == codeAlreadyInitialized {
		return nil
	}
	if err != nil {
		return fmt.Errorf("initiate replica set %s: %w", replSetName, err)
	}
	return nil
}
