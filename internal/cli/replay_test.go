package cli_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/connstring"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/record"
	"github.com/mongobench/mongobench/internal/replay"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
	"github.com/mongobench/mongobench/internal/workload/recorded"
)

// recordThrough records what traffic sends through a recording proxy in
// front of the test server into a new file, and returns its path.
func recordThrough(t *testing.T, traffic func(addr string)) string {
	t.Helper()
	cs, err := connstring.Parse(testenv.URI(t))
	if err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(t.TempDir(), "app.rec")
	f, err := os.Create(out)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	p, err := record.Start(record.Options{Listen: "127.0.0.1:0", Upstream: cs.Hosts[0], Out: f, Say: t.Logf})
	if err != nil {
		t.Fatal(err)
	}
	traffic(p.Addr())
	for deadline := time.Now().Add(5 * time.Second); p.Stats().Open > 0 && time.Now().Before(deadline); {
		time.Sleep(20 * time.Millisecond)
	}
	if _, err := p.Close(); err != nil {
		t.Fatal(err)
	}
	return out
}

// goTraffic is an application on the Go driver: inserts, an update, then
// for about 4 s, 25 ms apart, point finds, updates, aggregations read
// with getMores, finds whose cursor it closes early (killCursors), and a
// transaction; all in database db.
func goTraffic(t *testing.T, db string) func(addr string) {
	return func(addr string) {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		client, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + addr + "/?directConnection=true&serverMonitoringMode=poll&appName=replaytest").SetMaxPoolSize(2))
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = client.Disconnect(ctx) }()
		coll := client.Database(db).Collection("orders")
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
		tick := time.NewTicker(25 * time.Millisecond)
		defer tick.Stop()
		for i := range 160 {
			<-tick.C
			var one bson.M
			if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: i % 50}}).Decode(&one); err != nil {
				t.Fatal(err)
			}
			switch {
			case i%20 == 0:
				cur, err := coll.Aggregate(ctx, mongo.Pipeline{{{Key: "$match", Value: bson.D{{Key: "qty", Value: bson.D{{Key: "$gte", Value: i % 7}}}}}}}, options.Aggregate().SetBatchSize(7))
				if err != nil {
					t.Fatal(err)
				}
				for cur.Next(ctx) {
				}
				_ = cur.Close(ctx)
			case i%20 == 10:
				cur, err := coll.Find(ctx, bson.D{{Key: "status", Value: "B"}}, options.Find().SetBatchSize(3))
				if err != nil {
					t.Fatal(err)
				}
				cur.Next(ctx)
				_ = cur.Close(ctx) // an open cursor: killCursors
			case i%5 == 0:
				if _, err := coll.UpdateOne(ctx, bson.D{{Key: "_id", Value: i % 50}}, bson.D{{Key: "$set", Value: bson.D{{Key: "seen", Value: i}}}}); err != nil {
					t.Fatal(err)
				}
			}
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
	}
}

// replayDoc is the part of a replayed run's result the tests read.
type replayDoc struct {
	Schedule struct {
		AchievedRate float64     `json:"achievedRate"`
		FailedRate   float64     `json:"failedRate"`
		SuccessRate  float64     `json:"successRate"`
		Skipped      int64       `json:"skipped"`
		Intended     int64       `json:"intended"`
		SendLag      result.Dist `json:"sendLag"`
		Pacer        string      `json:"pacer"`
	} `json:"schedule"`
	Ops    []result.OpStats `json:"ops"`
	Replay *result.Replay   `json:"replay"`
}

func replayJSON(t *testing.T, args ...string) (replayDoc, outcome) {
	t.Helper()
	o := mb(t, append([]string{"replay"}, args...)...)
	wantCode(t, o, cli.ExitOK)
	var d replayDoc
	if err := json.Unmarshal([]byte(o.stdout), &d); err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%s", err, o)
	}
	if d.Replay == nil {
		t.Fatalf("the result has no replay section:\n%s", o.stdout)
	}
	return d, o
}

// checkShapes: every shape's requests were all sent and completed (the
// run's operation type of the shape counts them), without errors, and
// where the recording's replies returned documents, the replay's
// returned as many.
func checkShapes(t *testing.T, d replayDoc, speed string) {
	t.Helper()
	ops := map[string]result.OpStats{}
	for _, o := range d.Ops {
		ops[o.Name] = o
	}
	var total int64
	for _, s := range d.Replay.Shapes {
		total += s.Requests
		o := ops[s.Op]
		if done, failed := o.Whole(); done != s.Requests || failed != 0 || s.Sent != s.Requests {
			t.Errorf("×%s %s: %d requests recorded, %d sent, %d completed (%d failed), want all sent and completed", speed, s.Op, s.Requests, s.Sent, done, failed)
		}
		if (s.RecordedDocs == nil) != (s.ReplayedDocs == nil) || s.RecordedDocs != nil && *s.RecordedDocs != *s.ReplayedDocs {
			t.Errorf("×%s %s: documents returned: recorded %v, replayed %v, want equal (same data)", speed, s.Op, show(s.RecordedDocs), show(s.ReplayedDocs))
		}
		if s.Recorded.Count == 0 {
			t.Errorf("×%s %s: no recorded latency", speed, s.Op)
		}
	}
	if total != d.Replay.Requests || d.Schedule.Intended != total {
		t.Errorf("×%s: shapes count %d requests, the plan %d, the schedule intended %d", speed, total, d.Replay.Requests, d.Schedule.Intended)
	}
	if d.Schedule.SendLag.P99 == nil {
		t.Errorf("×%s: no send lag p99 reported", speed)
	}
}

func show(v *int64) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprint(*v)
}

// TestReplayGoDriverTraffic: the Go driver's traffic recorded through
// the proxy, replayed into a fresh database (--map-ns) at ×1 and ×2:
// every shape's requests sent and completed, the same documents
// returned per shape, the cursors, sessions and transaction numbers
// mapped, monitoring and authentication skipped, and at ×2 the achieved
// rate within 5% of twice the recorded.
func TestReplayGoDriverTraffic(t *testing.T) {
	uri := testenv.URI(t)
	c := connect(t, uri)
	src := testenv.DBName(t)
	dropAfter(t, c, src)
	rec := recordThrough(t, goTraffic(t, src))
	results := filepath.Join(t.TempDir(), "results.jsonl")

	o := mb(t, "replay", rec, "--uri", uri, "--results-file", results, "--no-report")
	wantCode(t, o, cli.ExitUsage)
	if line := errorLine(t, o, false); !strings.Contains(line, "--allow-writes") || !strings.Contains(line, "insert "+src+".orders") {
		t.Errorf("writes without --allow-writes: got %q, want the writes named and --allow-writes", line)
	}

	for _, speed := range []string{"1", "2"} {
		dst := src + "_x" + speed
		dropAfter(t, c, dst)
		var d replayDoc
		var o outcome
		var got, want float64
		// The rate is a property of the schedule; a busy machine can
		// stall one replay's last requests, so up to three replays are
		// judged and one within 5% suffices.
		for attempt := range 3 {
			_ = c.Database(dst).Drop(context.Background())
			d, o = replayJSON(t, rec, "--uri", uri, "--speed", speed, "--allow-writes", "--map-ns", src+".="+dst+".",
				"--database", testenv.DBName(t)+"_data", "--results-file", results, "--no-report", "--json", "--explain", "3")
			checkShapes(t, d, speed)
			want = 2 * *d.Replay.RecordedRate
			if speed == "1" {
				want = *d.Replay.RecordedRate
			}
			got = d.Schedule.AchievedRate
			if got >= 0.95*want && got <= 1.05*want {
				break
			}
			t.Logf("×%s attempt %d: achieved %.1f/s, want %.1f/s ±5%% (send lag p99 %v ms)", speed, attempt+1, got, want, *d.Schedule.SendLag.P99)
		}
		if got < 0.95*want || got > 1.05*want {
			t.Errorf("×%s: achieved %.1f/s, want within 5%% of %.1f/s", speed, got, want)
		}
		t.Logf("×%s: %d requests, achieved %.1f/s of %.1f/s, send lag p99 %.3f ms", speed, d.Replay.Requests, got, want, *d.Schedule.SendLag.P99)
		m := d.Replay.Mapped
		if m.Cursors == 0 || m.Sessions == 0 || m.TxnNumbers == 0 || m.ClusterTimes != 0 && m.Sessions == 0 || m.Namespaces == 0 || m.CursorsGone != 0 {
			t.Errorf("×%s: mapped %+v, want cursors, sessions, transaction numbers and namespaces mapped, no cursor gone", speed, m)
		}
		skipped := map[string]int64{}
		for _, s := range d.Replay.Skipped {
			skipped[s.Reason] = s.Count
		}
		if len(skipped) == 0 {
			t.Errorf("×%s: nothing skipped, want the handshakes and heartbeats", speed)
		}
		commands := map[string]bool{}
		for _, s := range d.Replay.Shapes {
			commands[s.Command] = true
		}
		for _, want := range []string{"insert", "update", "find", "aggregate", "getMore", "killCursors", "commitTransaction", "drop"} {
			if !commands[want] {
				t.Errorf("×%s: no %s shape replayed (%v)", speed, want, commands)
			}
		}
		plans := 0
		for _, s := range d.Replay.Shapes {
			if s.Plan != "" {
				plans++
				if !strings.Contains(s.Plan, "stage") {
					t.Errorf("×%s %s: plan %q names no stage", speed, s.Op, s.Plan)
				}
			}
		}
		if plans == 0 || plans > 3 {
			t.Errorf("×%s: %d winning plans captured, want 1 to 3 (--explain 3)", speed, plans)
		}
		if !strings.Contains(o.stderr, "p99 ×") {
			t.Errorf("×%s: the shapes' table is not on standard error with --json:\n%s", speed, o.stderr)
		}
		// No data database was claimed: the replay wrote only what the
		// recording did.
		if names, err := c.ListDatabaseNames(context.Background(), bson.D{{Key: "name", Value: testenv.DBName(t) + "_data"}}); err != nil || len(names) != 0 {
			t.Errorf("×%s: databases %v (%v): the replay claimed a data database", speed, names, err)
		}
		// The replay's database holds what the recording's did.
		n, err := c.Database(dst).Collection("orders").CountDocuments(context.Background(), bson.D{})
		if err != nil || n != 51 {
			t.Errorf("×%s: %s.orders holds %d documents (%v), want the recording's 51", speed, dst, n, err)
		}
	}
}

// TestReplayPyMongoTraffic: PyMongo's traffic, recorded through the
// proxy, replayed at ×1 and ×2: every shape's requests, the same
// documents.
func TestReplayPyMongoTraffic(t *testing.T) {
	uri := testenv.URI(t)
	py := pythonWithPyMongo(t)
	c := connect(t, uri)
	src := "mongobench_record_py" // the script's database
	dst := testenv.DBName(t) + "_py"
	dropAfter(t, c, src)
	dropAfter(t, c, dst)
	rec := recordThrough(t, func(addr string) {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		b, err := exec.CommandContext(ctx, py, filepath.Join("..", "record", "testdata", "pymongo_traffic.py"), addr).CombinedOutput()
		if err != nil || strings.TrimSpace(string(b)) != "ok" {
			t.Fatalf("pymongo: %v\n%s", err, b)
		}
	})
	results := filepath.Join(t.TempDir(), "results.jsonl")
	for _, speed := range []string{"1", "2"} {
		d, _ := replayJSON(t, rec, "--uri", uri, "--allow-writes", "--map-ns", src+".="+dst+".", "--speed", speed,
			"--database", testenv.DBName(t)+"_data", "--results-file", results, "--no-report", "--json")
		checkShapes(t, d, speed)
		if d.Replay.Mapped.Cursors == 0 || d.Replay.Mapped.TxnNumbers == 0 || d.Replay.Speed != map[string]float64{"1": 1, "2": 2}[speed] {
			t.Errorf("×%s: speed %g, mapped %+v, want cursors and transaction numbers mapped", speed, d.Replay.Speed, d.Replay.Mapped)
		}
	}
}

// pythonWithPyMongo is a python that imports pymongo:
// $MONGOBENCH_PYTHON, else /usr/bin/python3 (scripts/install-pymongo.sh).
func pythonWithPyMongo(t *testing.T) string {
	t.Helper()
	for _, py := range []string{os.Getenv("MONGOBENCH_PYTHON"), "/usr/bin/python3"} {
		if py != "" && exec.Command(py, "-c", "import pymongo").Run() == nil {
			return py
		}
	}
	t.Fatal("no python imports pymongo: run scripts/install-pymongo.sh (make setup does), or set MONGOBENCH_PYTHON")
	return ""
}

// TestReplayServerRecordings: the server's own recordings of every
// generation (internal/recording/testdata, written by the test encoder
// from the server source's layouts: its README says which) are read and
// replayed: a find and an insert, each sent and answered, the documents
// returned as recorded.
func TestReplayServerRecordings(t *testing.T) {
	uri := testenv.URI(t)
	c := connect(t, uri)
	results := filepath.Join(t.TempDir(), "results.jsonl")
	for i, rec := range []string{"server-4.4.bin", "server-5.0-7.x.bin", "server-8.x"} {
		dst := fmt.Sprintf("%s_s%d", testenv.DBName(t), i)
		dropAfter(t, c, dst)
		d, _ := replayJSON(t, filepath.Join("..", "recording", "testdata", rec), "--uri", uri, "--allow-writes", "--map-ns", "shop.="+dst+".",
			"--database", testenv.DBName(t)+"_data", "--results-file", results, "--no-report", "--json")
		checkShapes(t, d, "1")
		if d.Replay.Requests != 2 || len(d.Replay.Shapes) != 2 {
			t.Errorf("%s: %d requests in %d shapes, want the find and the insert", rec, d.Replay.Requests, len(d.Replay.Shapes))
		}
		if n, err := c.Database(dst).Collection("orders").CountDocuments(context.Background(), bson.D{}); err != nil || n != 2 {
			t.Errorf("%s: %s.orders holds %d documents (%v), want the insert's 2", rec, dst, n, err)
		}
	}
}

// TestReplayRefusesHostileRecordings: a damaged recording is one line
// naming the file and what is wrong, a usage error, before anything
// connects.
func TestReplayRefusesHostileRecordings(t *testing.T) {
	dir := t.TempDir()
	good, err := os.ReadFile(filepath.Join("..", "recording", "testdata", "server-5.0-7.x.bin"))
	if err != nil {
		t.Fatal(err)
	}
	truncated := filepath.Join(dir, "truncated.bin")
	huge := filepath.Join(dir, "huge.bin")
	badsum := filepath.Join(dir, "badsum")
	if err := os.WriteFile(truncated, good[:len(good)-9], 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(huge, append([]byte{0xff, 0xff, 0xff, 0xff}, make([]byte, 60)...), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(badsum, 0o700); err != nil {
		t.Fatal(err)
	}
	src := filepath.Join("..", "recording", "testdata", "server-8.x")
	entries, err := os.ReadDir(src)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join(src, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if e.Name() == "checksum.txt" {
			b = []byte("/var/lib/mongo/rec/1750000000000.bin\tdeadbeef\n") // the first file's checksum, wrong
		}
		if err := os.WriteFile(filepath.Join(badsum, e.Name()), b, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct{ file, want string }{
		{truncated, "truncated.bin: byte 553: truncated: the packet declares 134 bytes, the file ends after 125"},
		{"/dev/zero", "/dev/zero: not a regular file"},
		{huge, "huge.bin: byte 0: declared packet size 4294967295 is not below the wire protocol's maximum message size"},
		{badsum, "1750000000000.bin: byte 454: CRC32C of the file's 454 bytes is c65c1238, checksum.txt says deadbeef"},
		{filepath.Join(dir, "missing.bin"), "missing.bin: no such file"},
	} {
		o := mb(t, "replay", c.file, "--uri", "mongodb://127.0.0.1:1")
		wantCode(t, o, cli.ExitUsage)
		line := errorLine(t, o, false)
		if !strings.Contains(line, c.want) {
			t.Errorf("%s: got %q, want it to contain %q", c.file, line, c.want)
		}
	}
}

// TestSweepOverARecording: a recording is a workload a sweep names by
// its path, --speed 1,2 its steps: each replays it at the speed that
// makes the recorded rate the step's target, every shape's requests sent
// and completed at every step. --speed with --rate, or without a
// recording, is a usage error.
func TestSweepOverARecording(t *testing.T) {
	uri := testenv.URI(t)
	c := connect(t, uri)
	src := testenv.DBName(t)
	dst := src + "_sweep"
	dropAfter(t, c, src)
	dropAfter(t, c, dst)
	rec := recordThrough(t, goTraffic(t, src))
	plan, err := recorded.Load(rec, replay.Options{Speed: 1, AllowWrites: true})
	if err != nil {
		t.Fatal(err)
	}
	r := plan.RecordedRate()
	results := filepath.Join(t.TempDir(), "results.jsonl")
	// The recording named by its path, its speeds in place of rates.
	o := mb(t, "sweep", "--workload", rec, "-p", "allowWrites=true", "-p", "mapNs="+src+".="+dst+".",
		"--speed", "1,2", "--database", testenv.DBName(t)+"_data", "--results-file", results, "--no-report", "--json")
	wantCode(t, o, cli.ExitOK)
	var docs []replayDoc
	if err := json.Unmarshal([]byte(o.stdout), &docs); err != nil {
		t.Fatalf("stdout is not a JSON array of runs: %v\n%s", err, o)
	}
	if len(docs) != 2 {
		t.Fatalf("%d steps, want 2", len(docs))
	}
	for i, d := range docs {
		if d.Replay == nil {
			t.Fatalf("step %d has no replay section", i+1)
		}
		want := float64(i + 1)
		if got := d.Replay.Speed; got < want*0.999 || got > want*1.001 {
			t.Errorf("step %d: speed %g, want %g (the target rate over the recorded %.3f/s)", i+1, got, want, r)
		}
		checkShapes(t, d, fmt.Sprint(want))
	}
	for _, args := range [][]string{
		{"--workload", rec, "--speed", "1,2", "--rate", "100"},
		{"--workload", "kv", "--speed", "1,2"},
		{"--workload", rec, "--speed", "1,fast"},
	} {
		o := mb(t, append([]string{"sweep", "--uri", "mongodb://127.0.0.1:1", "--no-report"}, args...)...)
		wantCode(t, o, cli.ExitUsage)
		if line := errorLine(t, o, false); !strings.Contains(line, "--speed") {
			t.Errorf("%v: got %q, want an error naming --speed", args, line)
		}
	}
}

// TestCompareSaysAPlanChanged: two replays with --explain, an index
// created between them, and compare --runs says the find's plan changed.
func TestCompareSaysAPlanChanged(t *testing.T) {
	uri := testenv.URI(t)
	c := connect(t, uri)
	dst := testenv.DBName(t) + "_plan"
	dropAfter(t, c, dst)
	results := filepath.Join(t.TempDir(), "results.jsonl")
	rec := filepath.Join("..", "recording", "testdata", "server-8.x")
	replayJSON(t, rec, "--uri", uri, "--allow-writes", "--map-ns", "shop.="+dst+".", "--explain", "2", "--label", "before",
		"--database", testenv.DBName(t)+"_data", "--results-file", results, "--no-report", "--json")
	ctx := context.Background()
	if err := c.Database(dst).Drop(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Database(dst).Collection("orders").Indexes().CreateOne(ctx, mongo.IndexModel{Keys: bson.D{{Key: "status", Value: 1}}}); err != nil {
		t.Fatal(err)
	}
	replayJSON(t, rec, "--uri", uri, "--allow-writes", "--map-ns", "shop.="+dst+".", "--explain", "2", "--label", "after",
		"--database", testenv.DBName(t)+"_data", "--results-file", results, "--no-report", "--json")
	// Every run counts (--include-invalid): the test is about the plans,
	// and a busy host's replay may be judged invalid.
	o := mb(t, "compare", "--runs", "--label", "before", "--label", "after", "--results-file", results, "--include-invalid", "--report-dir", "")
	if !strings.Contains(o.stdout, "plan changed: find shop.orders: COLLSCAN (before, run ") || !strings.Contains(o.stdout, "IXSCAN") {
		t.Errorf("compare --runs does not say the find's plan changed from COLLSCAN to an index scan:\n%s", o)
	}
}

// TestReplayRefusesRunFlags: the flags of run a replay has no use for
// (the recording brings its connections, pace and length, and is one
// client) are refused in one line naming the flag, before anything
// connects.
func TestReplayRefusesRunFlags(t *testing.T) {
	rec := filepath.Join("..", "recording", "testdata", "server-5.0-7.x.bin")
	for _, flag := range [][]string{{"--threads", "4"}, {"--rate", "100/s"}, {"--duration", "10s"}, {"--warmup", "1s"},
		{"--clients", "2"}, {"--arrival", "poisson"}, {"--max-lag", "1s"}} {
		o := mb(t, append([]string{"replay", rec, "--uri", unreachable, "--allow-writes"}, flag...)...)
		wantCode(t, o, cli.ExitUsage)
		if lines := strings.Split(strings.TrimSpace(o.stderr), "\n"); len(lines) != 1 || !strings.Contains(lines[0], flag[0]+" does not apply") || o.took > usageFast {
			t.Errorf("%v: want one line saying %s does not apply, at once; got %s", flag, flag[0], o)
		}
	}
}
