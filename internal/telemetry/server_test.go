package telemetry

import (
	"context"
	"os"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/server"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// testServer returns the URI of a server to test against and, when the
// test started it, its PID and data directory: MONGOBENCH_TEST_URI when
// set, otherwise a server of the test's own (testenv.Own, which fails when
// no server binary is installed and skips in -short mode).
func testServer(t *testing.T) (uri string, pid int, dataDir string) {
	t.Helper()
	if uri := os.Getenv("MONGOBENCH_TEST_URI"); uri != "" {
		return uri, 0, ""
	}
	h := testenv.Own(t, server.Options{})
	return h.URI + "&serverMonitoringMode=poll", h.PID, h.DataDir
}

func connectTest(t *testing.T, uri string) *mongo.Client {
	t.Helper()
	c, err := mongo.Connect(options.Client().ApplyURI(uri))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Disconnect(context.Background()) })
	return c
}

// testDatabase returns a database of the test's own, dropped at the end.
func testDatabase(t *testing.T, c *mongo.Client) *mongo.Database {
	t.Helper()
	db := c.Database("telemetry_test_" + time.Now().Format("150405_000000000"))
	t.Cleanup(func() { _ = db.Drop(context.Background()) })
	return db
}
