package cli_test

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/recording"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

func TestRecordRefusesBadFlags(t *testing.T) {
	dir := t.TempDir()
	exists := filepath.Join(dir, "old.rec")
	if err := os.WriteFile(exists, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"record", "--uri", "mongodb://127.0.0.1:1"}, "--out: required"},
		{[]string{"record", "--out", filepath.Join(dir, "a.rec")}, "--uri: required"},
		{[]string{"record", "--uri", "mongodb://127.0.0.1:1", "--out", exists}, "the file exists"},
		{[]string{"record", "--uri", "mongodb://127.0.0.1:1", "--out", filepath.Join(dir, "b.rec"), "--buffer", "1KB"}, "--buffer: got 1KB, want 1MB to 4GB"},
		{[]string{"record", "--uri", "mongodb://127.0.0.1:1", "--out", filepath.Join(dir, "c.rec"), "--listen", "nope"}, `--listen "nope": want host:port`},
		{[]string{"record", "--uri", "mongodb+srv://u:Secr3tPw@cluster0.example.net", "--out", filepath.Join(dir, "d.rec")}, "mongodb+srv URI names no single host"},
	} {
		o := mb(t, c.args...)
		wantCode(t, o, cli.ExitUsage)
		if line := errorLine(t, o, false); !strings.Contains(line, c.want) || strings.Contains(o.stderr, "Secr3tPw") {
			t.Errorf("%v: got %q, want it to contain %q", c.args, line, c.want)
		}
	}
	if b, _ := os.ReadFile(exists); string(b) != "x" {
		t.Error("an existing --out file was replaced")
	}
}

// TestRecordUntilCtrlC: record runs until its context ends (Ctrl-C),
// with a client still connected, then exits 0 leaving a readable file:
// every connection's start, its messages, its end.
func TestRecordUntilCtrlC(t *testing.T) {
	uri := testenv.URI(t)
	out := filepath.Join(t.TempDir(), "app.rec")
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- cli.Main(ctx, []string{"record", "--listen", "127.0.0.1:0", "--uri", uri, "--out", out}, &stdout, &stderr)
	}()
	addr := ""
	re := regexp.MustCompile(`recording (127\.0\.0\.1:\d+) -> `)
	for deadline := time.Now().Add(10 * time.Second); addr == "" && time.Now().Before(deadline); {
		if m := re.FindStringSubmatch(stderr.String()); m != nil {
			addr = m[1]
		}
		time.Sleep(20 * time.Millisecond)
	}
	if addr == "" {
		stop()
		t.Fatalf("record did not say where it listens: %s", stderr.String())
	}
	cctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	client, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + addr + "/?directConnection=true&serverMonitoringMode=poll"))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		// The proxy is gone by then: the driver's endSessions waits for
		// nothing.
		dctx, dcancel := context.WithTimeout(context.Background(), time.Second)
		defer dcancel()
		_ = client.Disconnect(dctx)
	}()
	coll := client.Database("mongobench_record_cli").Collection("c")
	if _, err := coll.InsertOne(cctx, bson.D{{Key: "_id", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	if err := coll.FindOne(cctx, bson.D{{Key: "_id", Value: 1}}).Err(); err != nil {
		t.Fatal(err)
	}
	_ = coll.Drop(cctx)
	stopped := time.Now()
	stop() // Ctrl-C, the client still connected
	var code int
	select {
	case code = <-done:
	case <-time.After(30 * time.Second):
		t.Fatal("record did not end after its context did")
	}
	t.Logf("record ended %v after its context", time.Since(stopped))
	if code != cli.ExitOK {
		t.Fatalf("exit %d\nstdout: %s\nstderr: %s", code, stdout.String(), stderr.String())
	}
	if !strings.Contains(stdout.String(), out+": ") || !strings.Contains(stdout.String(), " messages (0 without their credentials)") {
		t.Errorf("stdout: %s", stdout.String())
	}
	s, err := recording.Open(os.DirFS(filepath.Dir(out)), filepath.Base(out))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s.Close() }()
	starts, ends, cmds := map[uint64]bool{}, map[uint64]bool{}, map[string]bool{}
	for {
		p, err := s.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		switch p.Event {
		case recording.EventSessionStart:
			starts[p.Conn] = true
		case recording.EventSessionEnd:
			ends[p.Conn] = true
		default:
			m, err := recording.Parse(p.Message)
			if err != nil {
				t.Fatal(err)
			}
			cmds[m.Command()] = true
		}
	}
	if len(starts) == 0 || len(starts) != len(ends) {
		t.Errorf("%d connections started, %d ended", len(starts), len(ends))
	}
	for _, c := range []string{"insert", "find", "drop"} {
		if !cmds[c] {
			t.Errorf("no %s recorded (%v)", c, cmds)
		}
	}
}

func TestRecordShowCountsShapes(t *testing.T) {
	for _, rec := range []string{"server-8.x", "server-5.0-7.x.bin", "server-4.4.bin"} {
		o := mb(t, "record", "show", filepath.Join("..", "recording", "testdata", rec))
		wantCode(t, o, cli.ExitOK)
		for _, want := range []string{"1 connections, 2 requests, 2 replies", "2 shapes",
			`find     shop.orders  {"cmdNs":{"db":"shop","coll":"orders"},"command":"find","filter":{"status":{"$eq":"?string"}}}`} {
			if !strings.Contains(o.stdout, want) {
				t.Errorf("%s: stdout lacks %q:\n%s", rec, want, o.stdout)
			}
		}
	}
}

func TestRecordShowRefusesDamagedRecordings(t *testing.T) {
	dir := t.TempDir()
	huge := filepath.Join(dir, "huge.rec")
	if err := os.WriteFile(huge, []byte{0xff, 0xff, 0xff, 0xff, 1, 2, 3}, 0o600); err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(filepath.Join("..", "recording", "testdata", "server-5.0-7.x.bin"))
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(dir, "cut.rec")
	if err := os.WriteFile(cut, good[:len(good)-10], 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ path, want string }{
		{"/dev/zero", "/dev/zero: not a regular file or a directory"},
		{huge, huge + ": byte 0: declared packet size 4294967295 is not below the wire protocol's maximum message size"},
		{cut, cut + ": byte "},
	} {
		o := mb(t, "record", "show", c.path)
		wantCode(t, o, cli.ExitUsage)
		if line := errorLine(t, o, false); !strings.Contains(line, c.want) {
			t.Errorf("%s: got %q, want %q", c.path, line, c.want)
		}
	}
}
