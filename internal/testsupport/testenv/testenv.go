// Package testenv gives tests a real MongoDB-wire server: the one named by
// $MONGOBENCH_TEST_URI (started by 'make test'), or one this package starts
// with internal/server for the test binary. A test that needs a server
// fails, never skips, when none can be had, unless it runs with -short.
package testenv

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/server"
)

var (
	once   sync.Once
	shared string
	errNo  error
	owned  *server.Handle
)

// URI returns the URI of the shared test server.
func URI(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("needs the test server; -short skips it")
	}
	once.Do(func() {
		if u := os.Getenv("MONGOBENCH_TEST_URI"); u != "" {
			shared = u
			return
		}
		dir, err := os.MkdirTemp("", "mongobench-test-server-")
		if err != nil {
			errNo = err
			return
		}
		owned, errNo = server.Start(context.Background(), server.Options{Dir: dir, Env: server.EnvFrom(os.Getenv), Test: true})
		if errNo == nil {
			shared = owned.URI
		}
	})
	if errNo != nil {
		t.Fatalf("no test server: %v (run 'make test', or set MONGOBENCH_TEST_URI)", errNo)
	}
	return shared
}

// Own starts a server for this test alone (for tests that freeze or stop
// it) and stops it when the test ends.
func Own(t testing.TB, o server.Options) *server.Handle {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a server of its own; -short skips it")
	}
	if o.Dir == "" {
		o.Dir = t.TempDir()
	}
	o.Test = true
	if o.Env == (server.Env{}) {
		o.Env = server.EnvFrom(os.Getenv)
	}
	h, err := server.Start(context.Background(), o)
	if err != nil {
		t.Fatalf("start a server for %s: %v", t.Name(), err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = h.Thaw()
		if err := h.Stop(ctx); err != nil {
			t.Errorf("stop test server: %v", err)
		}
	})
	return h
}

// Servers skips, under -short, a test whose command starts servers of
// its own (local profiles).
func Servers(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip("starts servers of its own; -short skips it")
	}
}

// DBName returns a database name unique to the test.
func DBName(t testing.TB) string {
	return fmt.Sprintf("mbtest_%d", time.Now().UnixNano()%1e12)
}

// Cleanup stops a server this package started; call it from TestMain
// after m.Run.
func Cleanup() {
	if owned != nil {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_ = owned.Stop(ctx)
		_ = os.RemoveAll(owned.Dir)
	}
}

// Main runs a package's tests and stops the server this package started
// for them: use it as the package's TestMain.
func Main(m *testing.M) {
	code := m.Run()
	Cleanup()
	os.Exit(code)
}

// Client connects to uri for the test and disconnects when it ends.
func Client(t testing.TB, uri string) *mongo.Client {
	t.Helper()
	c, err := mongo.Connect(options.Client().ApplyURI(uri).SetServerSelectionTimeout(10 * time.Second))
	if err != nil {
		t.Fatalf("connect to %s: %v", uri, err)
	}
	t.Cleanup(func() { _ = c.Disconnect(context.Background()) })
	return c
}
