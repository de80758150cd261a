package record_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/connstring"

	"github.com/mongobench/mongobench/internal/record"
	"github.com/mongobench/mongobench/internal/recording"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// tee sits between a client and the proxy and keeps, per connection
// (keyed by its address towards the proxy, which the recording names as
// the session's remote), the bytes each way: what the application sent
// and received.
type tee struct {
	ln   net.Listener
	mu   sync.Mutex
	sent map[string]*bytes.Buffer
	got  map[string]*bytes.Buffer
	wg   sync.WaitGroup
}

func startTee(t *testing.T, target string) *tee {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	tt := &tee{ln: ln, sent: map[string]*bytes.Buffer{}, got: map[string]*bytes.Buffer{}}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			up, err := net.Dial("tcp", target)
			if err != nil {
				_ = c.Close()
				continue
			}
			key := up.LocalAddr().String()
			sent, got := &bytes.Buffer{}, &bytes.Buffer{}
			tt.mu.Lock()
			tt.sent[key], tt.got[key] = sent, got
			tt.mu.Unlock()
			tt.wg.Add(2)
			cp := func(dst, src net.Conn, keep *bytes.Buffer) {
				defer tt.wg.Done()
				buf := make([]byte, 32<<10)
				for {
					n, err := src.Read(buf)
					if n > 0 {
						tt.mu.Lock()
						keep.Write(buf[:n])
						tt.mu.Unlock()
						if _, werr := dst.Write(buf[:n]); werr != nil {
							break
						}
					}
					if err != nil {
						break
					}
				}
				_ = dst.Close()
				_ = src.Close()
			}
			go cp(up, c, sent)
			go cp(c, up, got)
		}
	}()
	t.Cleanup(func() { _ = ln.Close() })
	return tt
}

func (tt *tee) addr() string { return tt.ln.Addr().String() }

func startProxy(t *testing.T, out string) *record.Proxy {
	t.Helper()
	cs, err := connstring.Parse(testenv.URI(t))
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	p, err := record.Start(record.Options{Listen: "127.0.0.1:0", Upstream: cs.Hosts[0], Out: f, Say: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func readRecording(t *testing.T, path string) []recording.Packet {
	t.Helper()
	s, err := recording.Open(os.DirFS(filepath.Dir(path)), filepath.Base(path))
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s.Close() }()
	var out []recording.Packet
	for {
		p, err := s.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, p)
	}
}

// TestRecordsARealDriversTraffic: the Go driver through the proxy against
// the test server: finds, an aggregation read with getMores, inserts,
// updates, a transaction, a killed cursor. The recording read back holds
// every message each way, byte for byte, in order, each at its time.
func TestRecordsARealDriversTraffic(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "app.rec")
	began := time.Now() // before the proxy starts: its offsets count from its start
	p := startProxy(t, out)
	tt := startTee(t, p.Addr())

	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	client, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + tt.addr() + "/?directConnection=true&serverMonitoringMode=poll&appName=recordtest").SetMaxPoolSize(2))
	if err != nil {
		t.Fatal(err)
	}
	coll := client.Database("mongobench_record_test").Collection("orders")
	_ = coll.Drop(ctx)
	docs := make([]any, 50)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}, {Key: "status", Value: []string{"A", "B"}[i%2]}, {Key: "qty", Value: i}}
	}
	if _, err := coll.InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	if _, err := coll.UpdateMany(ctx, bson.D{{Key: "status", Value: "A"}}, bson.D{{Key: "$inc", Value: bson.D{{Key: "qty", Value: 1}}}}); err != nil {
		t.Fatal(err)
	}
	var one bson.M
	if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: 7}}).Decode(&one); err != nil {
		t.Fatal(err)
	}
	cur, err := coll.Aggregate(ctx, mongo.Pipeline{{{Key: "$match", Value: bson.D{{Key: "qty", Value: bson.D{{Key: "$gte", Value: 0}}}}}}}, options.Aggregate().SetBatchSize(7))
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for cur.Next(ctx) {
		n++
	}
	if err := cur.Err(); err != nil || n != 50 {
		t.Fatalf("aggregate read %d documents, err %v", n, err)
	}
	_ = cur.Close(ctx)
	killed, err := coll.Find(ctx, bson.D{}, options.Find().SetBatchSize(3))
	if err != nil {
		t.Fatal(err)
	}
	if !killed.Next(ctx) {
		t.Fatal("find returned nothing")
	}
	if err := killed.Close(ctx); err != nil { // an open cursor: killCursors
		t.Fatal(err)
	}
	sess, err := client.StartSession()
	if err != nil {
		t.Fatal(err)
	}
	_, err = sess.WithTransaction(ctx, func(sc context.Context) (any, error) {
		if _, err := coll.InsertOne(sc, bson.D{{Key: "_id", Value: 1000}}); err != nil {
			return nil, err
		}
		return coll.UpdateOne(sc, bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "$set", Value: bson.D{{Key: "paid", Value: true}}}})
	})
	sess.EndSession(ctx)
	if err != nil {
		t.Fatal(err)
	}
	_ = coll.Drop(ctx)
	if err := client.Disconnect(ctx); err != nil {
		t.Fatal(err)
	}
	// Let the tee's connections end before the proxy closes.
	deadline := time.Now().Add(5 * time.Second)
	for p.Stats().Open > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	stats, err := p.Close()
	if err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(began)
	tt.wg.Wait()

	commands := checkRecording(t, out, tt, stats, elapsed)
	for _, c := range []string{"insert", "update", "find", "aggregate", "getMore", "killCursors", "commitTransaction", "drop"} {
		if commands[c] == 0 {
			t.Errorf("no %s recorded (%v)", c, commands)
		}
	}
	if commands["getMore"] < 3 {
		t.Errorf("%d getMores, want the aggregation's batches of 7 read with at least 3", commands["getMore"])
	}
}

func countMessages(ps []recording.Packet) int {
	n := 0
	for _, p := range ps {
		if p.Event == recording.EventMessage {
			n++
		}
	}
	return n
}

// TestNoCredentialReachesTheRecording: a driver authenticating through
// the proxy, PLAIN (the password on the wire) and SCRAM-SHA-256 (a
// nonce, and a proof when the server answers): the bytes the driver sent
// hold them, the recording does not, and still records that the
// conversation took place.
func TestNoCredentialReachesTheRecording(t *testing.T) {
	const user, password = "alice", "Hunter2-S3cret-Passw0rd"
	for _, mech := range []string{"PLAIN", "SCRAM-SHA-256", "SCRAM-SHA-1"} {
		t.Run(mech, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "auth.rec")
			p := startProxy(t, out)
			tt := startTee(t, p.Addr())
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			cred := options.Credential{Username: user, Password: password, AuthMechanism: mech}
			if mech == "PLAIN" {
				cred.AuthSource = "$external"
			}
			client, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + tt.addr() + "/?directConnection=true&serverMonitoringMode=poll").
				SetAuth(cred).SetServerSelectionTimeout(5 * time.Second).SetConnectTimeout(5 * time.Second))
			if err != nil {
				t.Fatal(err)
			}
			_ = client.Ping(ctx, nil) // the server may refuse: the driver sent its credentials all the same
			_ = client.Disconnect(ctx)
			time.Sleep(200 * time.Millisecond)
			if _, err := p.Close(); err != nil {
				t.Fatal(err)
			}
			tt.mu.Lock()
			var sent, received []byte
			for k, b := range tt.sent {
				sent = append(sent, b.Bytes()...)
				received = append(received, tt.got[k].Bytes()...)
			}
			tt.mu.Unlock()
			file, err := os.ReadFile(out)
			if err != nil {
				t.Fatal(err)
			}
			var secrets [][]byte
			switch mech {
			case "PLAIN":
				secrets = append(secrets, []byte(password))
			default:
				// The client's nonce (r=...) in its first message; the proof
				// (p=...) when the conversation got that far; the server's
				// salt and signature in its replies.
				for _, re := range []string{`n=alice,r=([A-Za-z0-9+/=]{16,})`, `,p=([A-Za-z0-9+/=]{16,})`} {
					for _, m := range regexp.MustCompile(re).FindAllSubmatch(sent, -1) {
						secrets = append(secrets, m[1])
					}
				}
				for _, re := range []string{`,s=([A-Za-z0-9+/=]{8,})`, `v=([A-Za-z0-9+/=]{16,})`} {
					for _, m := range regexp.MustCompile(re).FindAllSubmatch(received, -1) {
						secrets = append(secrets, m[1])
					}
				}
			}
			if len(secrets) == 0 {
				t.Fatalf("the driver sent no credential through the proxy (%d bytes sent)", len(sent))
			}
			for _, s := range secrets {
				if !bytes.Contains(sent, s) && !bytes.Contains(received, s) {
					t.Fatalf("%q did not cross the proxy", s)
				}
				if bytes.Contains(file, s) {
					t.Errorf("the recording holds %q", s)
				}
			}
			t.Logf("%s: %d secrets crossed the proxy, none recorded", mech, len(secrets))
			// The conversation is recorded, without its payloads.
			auth := 0
			for _, pk := range readRecording(t, out) {
				if pk.Event != recording.EventMessage || pk.Direction != recording.DirRequest {
					continue
				}
				m, err := recording.Parse(pk.Message)
				if err != nil {
					t.Fatal(err)
				}
				body := m.Body
				if m.Op == recording.OpQuery {
					if q, ok := body.Lookup("$query").DocumentOK(); ok {
						body = q
					}
				}
				if c := strings.ToLower(m.Command()); c == "saslstart" || c == "saslcontinue" {
					auth++
				} else if _, err := body.LookupErr("speculativeAuthenticate"); err == nil {
					auth++
				}
			}
			if auth == 0 {
				t.Error("no authentication request recorded")
			}
		})
	}
}

// stalled is a disk that takes nothing until released.
type stalled struct {
	release chan struct{}
	mu      sync.Mutex
	buf     bytes.Buffer
}

func (s *stalled) Write(p []byte) (int, error) {
	<-s.release
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

// TestASlowDiskStopsTheRecordingNotTheTraffic: with the writer stalled,
// the queue fills, the recording stops and the application's traffic
// keeps flowing; released, the file holds complete records up to the
// stop.
func TestASlowDiskStopsTheRecordingNotTheTraffic(t *testing.T) {
	cs, err := connstring.Parse(testenv.URI(t))
	if err != nil {
		t.Fatal(err)
	}
	disk := &stalled{release: make(chan struct{})}
	var said []string
	var sayMu sync.Mutex
	p, err := record.Start(record.Options{Listen: "127.0.0.1:0", Upstream: cs.Hosts[0], Out: disk, Buffer: 256 << 10,
		Say: func(f string, a ...any) { sayMu.Lock(); said = append(said, f); sayMu.Unlock() }})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	client, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + p.Addr() + "/?directConnection=true&serverMonitoringMode=poll"))
	if err != nil {
		t.Fatal(err)
	}
	coll := client.Database("mongobench_record_test").Collection("slow")
	_ = coll.Drop(ctx)
	pad := strings.Repeat("x", 64<<10)
	for i := range 40 { // 2.5MB through a 256kB queue that never drains
		if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: i}, {Key: "pad", Value: pad}}); err != nil {
			t.Fatalf("insert %d through a proxy whose disk is stalled: %v", i, err)
		}
	}
	if n, err := coll.CountDocuments(ctx, bson.D{}); err != nil || n != 40 {
		t.Fatalf("count %d, %v", n, err)
	}
	_ = coll.Drop(ctx)
	_ = client.Disconnect(ctx)
	st := p.Stats()
	if st.Stopped == "" || st.NotRecorded == 0 {
		t.Fatalf("the recording did not stop: %+v", st)
	}
	close(disk.release)
	stats, err := p.Close()
	if err != nil {
		t.Fatal(err)
	}
	sayMu.Lock()
	if len(said) == 0 || !strings.HasPrefix(said[0], "recording stopped") {
		t.Errorf("the proxy did not say the recording stopped: %q", said)
	}
	sayMu.Unlock()
	r := recording.NewReader(bytes.NewReader(disk.buf.Bytes()), "stalled")
	n := 0
	for {
		pk, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if pk.Event == recording.EventMessage {
			n++
		}
	}
	if int64(n) != stats.Messages || stats.Bytes != int64(disk.buf.Len()) {
		t.Errorf("read %d messages of %d recorded, %d bytes of %d", n, stats.Messages, disk.buf.Len(), stats.Bytes)
	}
}

// TestNotTheWireProtocolIsForwardedNotRecorded: bytes that are not wire
// messages pass through as they are and are not recorded.
func TestNotTheWireProtocolIsForwardedNotRecorded(t *testing.T) {
	out := filepath.Join(t.TempDir(), "junk.rec")
	p := startProxy(t, out)
	c, err := net.Dial("tcp", p.Addr())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	_, _ = io.ReadAll(c) // the server closes it, or the deadline does
	_ = c.Close()
	deadline := time.Now().Add(5 * time.Second)
	for p.Stats().Open > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	stats, err := p.Close()
	if err != nil {
		t.Fatal(err)
	}
	if stats.Unframed != 1 || stats.Messages != 0 {
		t.Errorf("%+v, want one unframed connection and no message", stats)
	}
	for _, pk := range readRecording(t, out) {
		if pk.Event == recording.EventMessage {
			t.Errorf("a message was recorded: %q", pk.Message)
		}
	}
}

// checkRecording reads the recording back: every message each way,
// byte for byte the bytes the tee saw, in order, each at its time (after
// the request it answers, within the test's time), every connection
// started and ended; it returns the commands recorded.
func checkRecording(t *testing.T, out string, tt *tee, stats record.Stats, elapsed time.Duration) map[string]int {
	t.Helper()
	packets := readRecording(t, out)
	if int64(countMessages(packets)) != stats.Messages || stats.NotRecorded != 0 || stats.Redacted != 0 {
		t.Fatalf("read %d messages, the proxy recorded %d (%+v)", countMessages(packets), stats.Messages, stats)
	}
	// Per connection: the requests are the bytes the application sent,
	// the replies the bytes it received, in order.
	sent, got := map[string]*bytes.Buffer{}, map[string]*bytes.Buffer{}
	started, endedConn := map[uint64]bool{}, map[uint64]bool{}
	requests := map[uint64]map[int32]time.Duration{}
	var prevOrder uint64
	var prevOffset time.Duration
	commands := map[string]int{}
	for i, pk := range packets {
		if pk.Order <= prevOrder || pk.Offset < prevOffset {
			t.Fatalf("packet %d: order %d at %v after order %d at %v", i, pk.Order, pk.Offset, prevOrder, prevOffset)
		}
		prevOrder, prevOffset = pk.Order, pk.Offset
		if pk.Offset > elapsed {
			t.Fatalf("packet %d at %v, after the test's %v", i, pk.Offset, elapsed)
		}
		switch pk.Event {
		case recording.EventSessionStart:
			started[pk.Conn] = true
			continue
		case recording.EventSessionEnd:
			endedConn[pk.Conn] = true
			continue
		}
		if !started[pk.Conn] || endedConn[pk.Conn] {
			t.Fatalf("packet %d: connection %d's message outside its session", i, pk.Conn)
		}
		m, err := recording.Parse(pk.Message)
		if err != nil {
			t.Fatalf("packet %d: %v", i, err)
		}
		if requests[pk.Conn] == nil {
			requests[pk.Conn] = map[int32]time.Duration{}
		}
		buf := sent
		if pk.Direction == recording.DirReply {
			buf = got
			at, ok := requests[pk.Conn][m.Header.ResponseTo]
			if !ok || at > pk.Offset {
				t.Fatalf("packet %d: a reply to request %d, which connection %d did not send before it", i, m.Header.ResponseTo, pk.Conn)
			}
		} else {
			requests[pk.Conn][m.Header.RequestID] = pk.Offset
			commands[m.Command()]++
		}
		if buf[pk.Remote] == nil {
			buf[pk.Remote] = &bytes.Buffer{}
		}
		buf[pk.Remote].Write(pk.Message)
	}
	for key, b := range tt.sent {
		if !bytes.Equal(sent[key].Bytes(), b.Bytes()) {
			t.Errorf("connection %s: the recorded requests (%d bytes) are not the bytes the driver sent (%d)", key, sent[key].Len(), b.Len())
		}
		if !bytes.Equal(got[key].Bytes(), tt.got[key].Bytes()) {
			t.Errorf("connection %s: the recorded replies (%d bytes) are not the bytes the driver received (%d)", key, got[key].Len(), tt.got[key].Len())
		}
	}
	if len(tt.sent) != stats.Connections || len(started) != stats.Connections || len(endedConn) != stats.Connections {
		t.Errorf("%d connections through the tee, %d recorded, %d started, %d ended", len(tt.sent), stats.Connections, len(started), len(endedConn))
	}
	return commands
}

// python is a python that imports pymongo: $MONGOBENCH_PYTHON, else
// Debian's /usr/bin/python3 (scripts/install-pymongo.sh installs it).
func python(t *testing.T) string {
	t.Helper()
	for _, py := range []string{os.Getenv("MONGOBENCH_PYTHON"), "/usr/bin/python3"} {
		if py != "" && exec.Command(py, "-c", "import pymongo").Run() == nil {
			return py
		}
	}
	t.Fatal("no python imports pymongo: run scripts/install-pymongo.sh (make setup does), or set MONGOBENCH_PYTHON")
	return ""
}

// TestRecordsPyMongoTraffic: a second real driver, PyMongo, through the
// proxy: the same operations, recorded byte for byte in order.
func TestRecordsPyMongoTraffic(t *testing.T) {
	testenv.URI(t) // the server first: -short skips the test before it asks for python
	py := python(t)
	out := filepath.Join(t.TempDir(), "py.rec")
	began := time.Now() // before the proxy starts: its offsets count from its start
	p := startProxy(t, out)
	tt := startTee(t, p.Addr())
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, py, filepath.Join("testdata", "pymongo_traffic.py"), tt.addr())
	b, err := cmd.CombinedOutput()
	if err != nil || strings.TrimSpace(string(b)) != "ok" {
		t.Fatalf("pymongo: %v\n%s", err, b)
	}
	deadline := time.Now().Add(5 * time.Second)
	for p.Stats().Open > 0 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	stats, err := p.Close()
	if err != nil {
		t.Fatal(err)
	}
	elapsed := time.Since(began)
	tt.wg.Wait()
	commands := checkRecording(t, out, tt, stats, elapsed)
	for _, c := range []string{"insert", "update", "find", "aggregate", "getMore", "killCursors", "commitTransaction", "drop"} {
		if commands[c] == 0 {
			t.Errorf("no %s recorded (%v)", c, commands)
		}
	}
	if commands["getMore"] < 3 {
		t.Errorf("%d getMores, want the aggregation's batches of 7 read with at least 3", commands["getMore"])
	}
	// PyMongo said who it is in its handshake.
	file, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(file, []byte("PyMongo")) {
		t.Error("the recording holds no PyMongo handshake")
	}
}

// slowAfter is a disk that takes nothing until released, then 400 ms a
// write.
type slowAfter struct {
	release chan struct{}
	mu      sync.Mutex
	buf     bytes.Buffer
}

func (s *slowAfter) Write(p []byte) (int, error) {
	<-s.release
	time.Sleep(400 * time.Millisecond)
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

// TestCloseDrainsForABoundedTime: what a slow disk has not taken
// DrainTime after the stop is left out and counted; the file ends with
// a complete record.
func TestCloseDrainsForABoundedTime(t *testing.T) {
	cs, err := connstring.Parse(testenv.URI(t))
	if err != nil {
		t.Fatal(err)
	}
	disk := &slowAfter{release: make(chan struct{})}
	p, err := record.Start(record.Options{Listen: "127.0.0.1:0", Upstream: cs.Hosts[0], Out: disk, Say: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	client, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + p.Addr() + "/?directConnection=true&serverMonitoringMode=poll"))
	if err != nil {
		t.Fatal(err)
	}
	coll := client.Database("mongobench_record_test").Collection("drain")
	_ = coll.Drop(ctx)
	pad := strings.Repeat("x", 256<<10)
	for i := range 40 { // 10MB queued: 10 writes of 1MB at 400 ms each, past DrainTime
		if _, err := coll.InsertOne(ctx, bson.D{{Key: "_id", Value: i}, {Key: "pad", Value: pad}}); err != nil {
			t.Fatal(err)
		}
	}
	_ = coll.Drop(ctx)
	_ = client.Disconnect(ctx)
	close(disk.release)
	stats, err := p.Close()
	if err != nil {
		t.Fatal(err)
	}
	if stats.NotRecorded == 0 || !strings.Contains(stats.Stopped, "after the stop") {
		t.Fatalf("nothing was left out: %+v", stats)
	}
	r := recording.NewReader(bytes.NewReader(disk.buf.Bytes()), "drained")
	n := 0
	for {
		pk, err := r.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if pk.Event == recording.EventMessage {
			n++
		}
	}
	if int64(n) != stats.Messages {
		t.Errorf("read %d messages, %d recorded", n, stats.Messages)
	}
}
