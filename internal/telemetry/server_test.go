package telemetry

import (
	"bufio"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// secantusRelease is the embedded server's release the tests start when no
// MONGOBENCH_TEST_URI is given.
const secantusRelease = "secantus-0.5.3-beta.193"

var listening = regexp.MustCompile(`listening on (\S+)`)

// testServer returns the URI of a server to test against and, when the
// test started it, its PID and data directory. It uses MONGOBENCH_TEST_URI
// when set and otherwise starts the embedded server; it fails when neither
// is available, and skips only in -short mode.
func testServer(t *testing.T) (uri string, pid int, dataDir string) {
	t.Helper()
	if uri := os.Getenv("MONGOBENCH_TEST_URI"); uri != "" {
		return uri, 0, ""
	}
	if testing.Short() {
		t.Skip("no MONGOBENCH_TEST_URI; not starting a server in -short mode")
	}
	return startSecantus(t)
}

func secantusBinary(t *testing.T) string {
	t.Helper()
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Fatalf("no MONGOBENCH_TEST_URI and no cache directory: %v", err)
	}
	bin := filepath.Join(cache, "mongobench", secantusRelease, "bin", "secantusd-rs")
	if _, err := os.Stat(bin); err != nil {
		t.Fatalf("no MONGOBENCH_TEST_URI and no embedded server: %v", err)
	}
	return bin
}

// startSecantus starts the embedded server on a port of its choosing in a
// temporary directory, and stops it when the test ends.
func startSecantus(t *testing.T) (uri string, pid int, dataDir string) {
	t.Helper()
	dataDir = t.TempDir()
	cmd := exec.Command(secantusBinary(t), "--port", "0", "--storage-path", dataDir,
		"--cache-size", "256M", "--log-file-max", "16MB")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start embedded server: %v", err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	addr := make(chan string, 1)
	go scanAddress(out, addr)
	select {
	case a := <-addr:
		return "mongodb://" + a + "/?serverMonitoringMode=poll", cmd.Process.Pid, dataDir
	case <-time.After(30 * time.Second):
		t.Fatal("embedded server did not report its address within 30s")
	}
	return "", 0, ""
}

// scanAddress sends the address the server reports it listens on, then
// drains the rest of its output.
func scanAddress(r io.Reader, addr chan<- string) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		if m := listening.FindStringSubmatch(sc.Text()); m != nil {
			addr <- m[1]
			break
		}
	}
	_, _ = io.Copy(io.Discard, r)
}

func connect(t *testing.T, uri string) *mongo.Client {
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
