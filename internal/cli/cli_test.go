package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/server"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

func TestMain(m *testing.M) {
	// The tests name every server they use; they must never find or start
	// the user's embedded server, nor follow the user's environment.
	dir, err := os.MkdirTemp("", "mongobench-cli-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	screenshotDir = os.Getenv("MONGOBENCH_SCREENSHOT_DIR") // unset below, as every MONGOBENCH_ variable
	errs := []error{os.Setenv("MONGOBENCH_SERVER_DIR", dir), os.Unsetenv("MONGOBENCH_URI"), os.Unsetenv("MONGOBENCH_RESULTS_URI")}
	for _, kv := range os.Environ() { // a flag's default from the user's environment
		name, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(name, "MONGOBENCH_") && !slices.Contains([]string{"MONGOBENCH_SERVER_DIR", "MONGOBENCH_SERVER_BIN", "MONGOBENCH_CACHE", "MONGOBENCH_HOME", "MONGOBENCH_TEST_URI", "MONGOBENCH_TEST_PORT"}, name) {
			errs = append(errs, os.Unsetenv(name))
		}
	}
	for _, err := range errs {
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	code := m.Run()
	// A test that ran a command without --uri started the embedded server
	// in dir: stop it before its directory goes.
	stopCtx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	cli.Main(stopCtx, []string{"server", "stop"}, io.Discard, io.Discard)
	cancel()
	testenv.Cleanup()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// unreachable is a loopback address nothing listens on.
const unreachable = "mongodb://127.0.0.1:1/"

// Time limits: a failure to connect must be reported within a few
// seconds, bad input at once.
const (
	failFast  = 12 * time.Second
	usageFast = 3 * time.Second
)

type outcome struct {
	code           int
	stdout, stderr string
	took           time.Duration
}

// mb runs the command line in this process.
func mb(t *testing.T, args ...string) outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var out, errOut bytes.Buffer
	start := time.Now()
	code := cli.Main(ctx, args, &out, &errOut)
	return outcome{code: code, stdout: out.String(), stderr: errOut.String(), took: time.Since(start)}
}

func (o outcome) String() string {
	return fmt.Sprintf("exit %d after %s\nstdout:\n%s\nstderr:\n%s", o.code, o.took.Round(time.Millisecond), o.stdout, o.stderr)
}

// errorLine checks that stderr reports the failure as exactly one line
// starting "mongobench: ", the last one, with no panic or stack trace,
// and returns it. A run that reached its server announces itself on a
// line before it (announced); nothing else may be there.
func errorLine(t *testing.T, o outcome, announced bool) string {
	t.Helper()
	for _, bad := range []string{"panic", "goroutine ", ".go:", "runtime."} {
		if strings.Contains(o.stderr, bad) {
			t.Errorf("stderr contains %q, want a plain message:\n%s", bad, o.stderr)
		}
	}
	lines := strings.Split(strings.TrimRight(o.stderr, "\n"), "\n")
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, "mongobench: ") {
		t.Fatalf("last stderr line: got %q, want one starting %q\n%s", last, "mongobench: ", o)
	}
	notes := lines[:len(lines)-1]
	if announced && len(notes) == 1 && strings.Contains(notes[0], " against ") {
		notes = nil
	}
	if len(notes) > 0 {
		t.Errorf("stderr: got %d lines, want the error alone on one line:\n%s", len(lines), o.stderr)
	}
	return last
}

func wantCode(t *testing.T, o outcome, want int) {
	t.Helper()
	if o.code != want {
		t.Fatalf("exit code: got %d, want %d\n%s", o.code, want, o)
	}
}

func wantQuick(t *testing.T, o outcome, limit time.Duration) {
	t.Helper()
	if o.took > limit {
		t.Errorf("took %s, want under %s", o.took.Round(time.Millisecond), limit)
	}
}

func wantNoSecret(t *testing.T, where, text, secret string) {
	t.Helper()
	if strings.Contains(text, secret) {
		t.Errorf("%s contains the password %q:\n%s", where, secret, text)
	}
}

func TestUnreachableServer(t *testing.T) {
	results := filepath.Join(t.TempDir(), "results.jsonl")
	cases := []struct {
		name      string
		args      []string
		announced bool
	}{
		{"run", []string{"run", "--uri", unreachable, "--threads", "2", "--ops", "10", "--results-file", results, "--no-report"}, false},
		{"run with results on the target", []string{"run", "--uri", unreachable, "--threads", "2", "--ops", "10", "--no-report"}, false},
		{"clean", []string{"clean", "--uri", unreachable, "--database", "mbtest_unreachable"}, false},
		{"results list", []string{"results", "list", "--results", unreachable}, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel() // each waits out the connect timeout; nothing runs meanwhile
			o := mb(t, c.args...)
			wantCode(t, o, cli.ExitFailure)
			wantQuick(t, o, failFast)
			msg := errorLine(t, o, c.announced)
			if !strings.Contains(msg, "cannot reach 127.0.0.1:1: connection refused") || strings.Contains(msg, "topology") {
				t.Errorf("error: got %q, want it to say it cannot reach 127.0.0.1:1 (connection refused), without the driver's topology", msg)
			}
		})
	}
	if _, err := os.Stat(results); err == nil {
		t.Errorf("results file %s was written by a run that never connected", results)
	}
}

func TestBadURI(t *testing.T) {
	const secret = "Sekr1tPassw0rd"
	uris := []string{
		"notaurl",
		"mongodb://h:notaport/",
		"mongodb://user:" + secret + "@h:notaport/",
		"mongodb://127.0.0.1:27017/?maxPoolSize=lots",
	}
	for _, u := range uris {
		for _, c := range []struct {
			name string
			args []string
		}{
			{"run --uri", []string{"run", "--uri", u, "--threads", "2", "--ops", "10", "--no-report"}},
			{"run --results", []string{"run", "--uri", unreachable, "--results", u, "--threads", "2", "--ops", "10", "--no-report"}},
			{"clean --uri", []string{"clean", "--uri", u}},
			{"results list --results", []string{"results", "list", "--results", u}},
		} {
			args := c.args
			t.Run(c.name+" "+u, func(t *testing.T) {
				o := mb(t, args...)
				wantCode(t, o, cli.ExitUsage)
				wantQuick(t, o, usageFast)
				msg := errorLine(t, o, false)
				if !strings.Contains(msg, "connection string") && !strings.Contains(msg, "--uri") && !strings.Contains(msg, "--results") {
					t.Errorf("error: got %q, want it to name the connection string or its flag", msg)
				}
				wantNoSecret(t, "stderr", o.stderr, secret)
				wantNoSecret(t, "stdout", o.stdout, secret)
			})
		}
	}
}

// authServer starts a server of the test's own that requires SCRAM
// authentication, with one user created through the localhost exception,
// and returns the URI with that user's password.
func authServer(t *testing.T, user, password string) (*server.Handle, string) {
	t.Helper()
	h := testenv.Own(t, server.Options{ExtraArgs: []string{"--auth"}})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	c, err := mongo.Connect(options.Client().ApplyURI(h.URI))
	if err != nil {
		t.Fatalf("connect to the auth server: %v", err)
	}
	defer c.Disconnect(ctx)
	create := bson.D{{Key: "createUser", Value: user}, {Key: "pwd", Value: password}, {Key: "roles", Value: bson.A{"root"}}}
	if err := c.Database("admin").RunCommand(ctx, create).Err(); err != nil {
		t.Fatalf("create user %s: %v", user, err)
	}
	// With the user in place, the server must refuse anonymous work, or
	// this test proves nothing.
	if _, err := c.ListDatabaseNames(ctx, bson.D{}); err == nil {
		t.Fatalf("listDatabases without credentials: got no error, want the server to require authentication")
	}
	return h, withUser(h, user, password)
}

func withUser(h *server.Handle, user, password string) string {
	return fmt.Sprintf("mongodb://%s:%s@127.0.0.1:%d/?directConnection=true", user, password, h.Port)
}

func TestAuthentication(t *testing.T) {
	const (
		user     = "benchuser"
		password = "GoodPassw0rdQ7x"
		wrong    = "WRONGPASSWORDz9k"
	)
	h, good := authServer(t, user, password)
	bad := withUser(h, user, wrong)

	t.Run("wrong password", func(t *testing.T) {
		results := filepath.Join(t.TempDir(), "results.jsonl")
		for _, args := range [][]string{
			{"run", "--uri", bad, "--threads", "2", "--ops", "10", "-p", "records=200", "--results-file", results, "--no-report"},
			{"run", "--uri", bad, "--threads", "2", "--ops", "10", "-p", "records=200", "--no-report"},
			{"clean", "--uri", bad},
			{"results", "list", "--results", bad},
		} {
			o := mb(t, args...)
			wantCode(t, o, cli.ExitFailure)
			wantQuick(t, o, failFast)
			msg := errorLine(t, o, false)
			t.Logf("%s: %s", args[0], msg)
			if !strings.Contains(msg, "authentication failed") || !strings.Contains(msg, fmt.Sprintf("127.0.0.1:%d", h.Port)) || strings.Contains(msg, "topology") {
				t.Errorf("%s: error: got %q, want one line naming the host and port and saying authentication failed", args[0], msg)
			}
			wantNoSecret(t, args[0]+" stderr", o.stderr, wrong)
			wantNoSecret(t, args[0]+" stdout", o.stdout, wrong)
		}
	})

	t.Run("password never stored or printed", func(t *testing.T) {
		db := testenv.DBName(t)
		results := filepath.Join(t.TempDir(), "results.jsonl")
		o := mb(t, "run", "--uri", good, "--database", db, "--threads", "2", "--ops", "200",
			"-p", "records=200", "--results-file", results, "--no-report", "--json")
		wantCode(t, o, cli.ExitOK)
		wantNoSecret(t, "stdout", o.stdout, password)
		wantNoSecret(t, "stderr", o.stderr, password)
		stored, err := os.ReadFile(results)
		if err != nil {
			t.Fatalf("read the results file: %v", err)
		}
		wantNoSecret(t, "results file", string(stored), password)
		var doc struct {
			Target struct{ URI string } `json:"target"`
		}
		if err := json.Unmarshal(bytes.TrimSpace(stored), &doc); err != nil {
			t.Fatalf("results file is not one JSON document: %v", err)
		}
		if want := fmt.Sprintf("mongodb://%s@127.0.0.1:%d/", user, h.Port); !strings.HasPrefix(doc.Target.URI, want) {
			t.Errorf("stored target.uri: got %q, want it to start %q", doc.Target.URI, want)
		}

		// Results in the target's own results collection.
		o = mb(t, "run", "--uri", good, "--database", db, "--threads", "2", "--ops", "200",
			"-p", "records=200", "--no-report")
		wantCode(t, o, cli.ExitOK)
		wantNoSecret(t, "stdout", o.stdout, password)
		wantNoSecret(t, "stderr", o.stderr, password)
		c := connect(t, good)
		cur, err := c.Database("mongobench").Collection("history").Find(context.Background(), bson.D{})
		if err != nil {
			t.Fatalf("read the history collection: %v", err)
		}
		var rows []bson.Raw
		if err := cur.All(context.Background(), &rows); err != nil || len(rows) != 1 {
			t.Fatalf("history rows: got %d (error %v), want 1", len(rows), err)
		}
		wantNoSecret(t, "stored result document", rows[0].String(), password)

		o = mb(t, "results", "list", "--results", good)
		wantCode(t, o, cli.ExitOK)
		wantNoSecret(t, "results list stdout", o.stdout, password)
		wantNoSecret(t, "results list stderr", o.stderr, password)
	})
}

func connect(t *testing.T, uri string) *mongo.Client { return testenv.Client(t, uri) }

func TestScenarioFileErrors(t *testing.T) {
	dir := t.TempDir()
	cases := []struct {
		name, yaml string
		line       int
		want       []string // in the message besides file:line
	}{
		{"unknown key", "workload: kv\nthreads: 2\nduraton: 1s\n", 3, []string{`unknown key "duraton"`, "valid keys:", "duration"}},
		{"wrong type", "workload: kv\nthreads: lots\n", 2, []string{"threads", `"lots"`, "integer between 1 and"}},
		{"negative rate", "workload: kv\nrate: -5/s\n", 2, []string{"rate", `"-5/s"`, "want a positive rate"}},
		{"zero duration", "workload: kv\nthreads: 2\nduration: 0s\n", 3, []string{"duration", "want a positive duration"}},
		{"rate with no threads", "workload: kv\nrate: 100/s\nthreads: 0\n", 3, []string{"threads", "integer between 1 and"}},
		{"unknown workload", "workload: nosuch\nthreads: 2\n", 1, []string{"workload", `"nosuch"`, "want one of hotdoc, insert, kv, ledger"}},
		{"unknown param", "workload: kv\nparams:\n  records: 100\n  nosuch: 1\n", 4, []string{`"nosuch"`, "valid kv parameters:", "records"}},
		{"param out of range", "workload: kv\nparams:\n  records: 0\n", 3, []string{"params.records", "integer between 1 and"}},
		{"negative warm-up", "workload: kv\nwarmup: -1s\n", 2, []string{"warmup", "duration between 0 and"}},
		{"duplicate key", "workload: kv\nthreads: 2\nthreads: 3\n", 3, []string{`duplicate key "threads"`}},
		{"yaml syntax", "workload: kv\nthreads: [2\n", 2, []string{"yaml"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(dir, strings.ReplaceAll(c.name, " ", "-")+".yaml")
			if err := os.WriteFile(file, []byte(c.yaml), 0o644); err != nil {
				t.Fatal(err)
			}
			// The unreachable URI makes a file that wrongly passes fail
			// quickly instead of benchmarking anything.
			o := mb(t, "run", file, "--uri", unreachable, "--no-report")
			wantCode(t, o, cli.ExitUsage)
			wantQuick(t, o, usageFast)
			msg := errorLine(t, o, false)
			if loc := fmt.Sprintf("%s:%d:", file, c.line); !strings.Contains(msg, loc) {
				t.Errorf("error: got %q, want it to contain %q", msg, loc)
			}
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error: got %q, want it to contain %q", msg, w)
				}
			}
		})
	}

	t.Run("missing file", func(t *testing.T) {
		file := filepath.Join(dir, "nonexistent.yaml")
		o := mb(t, "run", file, "--uri", unreachable)
		if o.code == cli.ExitOK {
			t.Fatalf("exit code: got 0, want a failure\n%s", o)
		}
		if msg := errorLine(t, o, false); !strings.Contains(msg, file) {
			t.Errorf("error: got %q, want it to name %s", msg, file)
		}
	})
}

func TestBadFlags(t *testing.T) {
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"--rate", "-5"}, []string{"--rate", `"-5"`, "want a positive rate"}},
		{[]string{"--rate", "fast"}, []string{"--rate", `"fast"`, "want a positive rate"}},
		{[]string{"--duration", "0s"}, []string{"--duration", `"0s"`, "want a positive duration"}},
		{[]string{"--threads", "0", "--rate", "10"}, []string{"--threads", "integer between 1 and"}},
		{[]string{"-p", "records=0"}, []string{"-p records", `"0"`, "integer between 1 and"}},
		{[]string{"-p", "nosuch=1"}, []string{"-p", `"nosuch"`, "valid kv parameters:"}},
		{[]string{"--workload", "nosuch"}, []string{"--workload", `"nosuch"`, "want one of hotdoc, insert, kv, ledger"}},
		{[]string{"--nosuchflag"}, []string{"unknown flag", "--nosuchflag"}},
		{[]string{"--completion", "later"}, []string{"--completion", `"later"`, "want arrival or return"}},
	}
	for _, c := range cases {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) {
			args := append([]string{"run", "--uri", unreachable, "--no-report"}, c.args...)
			o := mb(t, args...)
			wantCode(t, o, cli.ExitUsage)
			wantQuick(t, o, usageFast)
			msg := errorLine(t, o, false)
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error: got %q, want it to contain %q", msg, w)
				}
			}
		})
	}
}

// dropAfter drops the test's database when the test ends, whatever
// mongobench did with it.
func dropAfter(t *testing.T, c *mongo.Client, db string) {
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		if err := c.Database(db).Drop(ctx); err != nil {
			t.Errorf("drop test database %s: %v", db, err)
		}
	})
}

// userData is a database the test made itself, without mongobench's
// marker: one collection of three documents.
func userData(t *testing.T, c *mongo.Client) string {
	t.Helper()
	db := testenv.DBName(t) + "_theirs"
	dropAfter(t, c, db)
	docs := []any{bson.D{{Key: "_id", Value: 1}}, bson.D{{Key: "_id", Value: 2}}, bson.D{{Key: "_id", Value: 3}}}
	if _, err := c.Database(db).Collection("precious").InsertMany(context.Background(), docs); err != nil {
		t.Fatalf("create the test's own collection: %v", err)
	}
	return db
}

// wantIntact checks that db still holds exactly the test's collection and
// its three documents.
func wantIntact(t *testing.T, c *mongo.Client, db string) {
	t.Helper()
	ctx := context.Background()
	names, err := c.Database(db).ListCollectionNames(ctx, bson.D{})
	if err != nil {
		t.Fatalf("list collections of %s: %v", db, err)
	}
	if !slices.Equal(names, []string{"precious"}) {
		t.Errorf("collections of %s: got %v, want [precious] alone", db, names)
	}
	n, err := c.Database(db).Collection("precious").CountDocuments(ctx, bson.D{})
	if err != nil {
		t.Fatalf("count %s.precious: %v", db, err)
	}
	if n != 3 {
		t.Errorf("documents in %s.precious: got %d, want 3", db, n)
	}
}

func databaseExists(t *testing.T, c *mongo.Client, db string) bool {
	t.Helper()
	names, err := c.ListDatabaseNames(context.Background(), bson.D{{Key: "name", Value: db}})
	if err != nil {
		t.Fatalf("list databases: %v", err)
	}
	return slices.Contains(names, db)
}

func TestRefusesDatabaseItDidNotCreate(t *testing.T) {
	uri := testenv.URI(t)
	c := connect(t, uri)
	db := userData(t, c)
	results := filepath.Join(t.TempDir(), "results.jsonl")

	o := mb(t, "run", "--uri", uri, "--database", db, "--threads", "2", "--ops", "50",
		"-p", "records=200", "--results-file", results, "--no-report")
	wantCode(t, o, cli.ExitFailure)
	msg := errorLine(t, o, true)
	if !strings.Contains(msg, "not created by mongobench") || !strings.Contains(msg, db) {
		t.Errorf("run error: got %q, want it to say %s was not created by mongobench", msg, db)
	}
	wantIntact(t, c, db)

	o = mb(t, "clean", "--uri", uri, "--database", db)
	wantCode(t, o, cli.ExitFailure)
	msg = errorLine(t, o, false)
	if !strings.Contains(msg, "not created by mongobench") || !strings.Contains(msg, db) {
		t.Errorf("clean error: got %q, want it to say %s was not created by mongobench", msg, db)
	}
	wantIntact(t, c, db)
}

func TestCleanDropsDatabaseItCreated(t *testing.T) {
	uri := testenv.URI(t)
	c := connect(t, uri)
	db := testenv.DBName(t)
	dropAfter(t, c, db)
	results := filepath.Join(t.TempDir(), "results.jsonl")

	o := mb(t, "run", "--uri", uri, "--database", db, "--threads", "2", "--ops", "50",
		"-p", "records=200", "--results-file", results, "--no-report")
	wantCode(t, o, cli.ExitOK)
	if !databaseExists(t, c, db) {
		t.Fatalf("after a run into %s: database missing, want it created", db)
	}
	o = mb(t, "clean", "--uri", uri, "--database", db)
	wantCode(t, o, cli.ExitOK)
	if databaseExists(t, c, db) {
		t.Errorf("after clean: database %s still exists, want it dropped", db)
	}
}

func TestClosedLoopRunAndResults(t *testing.T) {
	uri := testenv.URI(t)
	c := connect(t, uri)
	db := testenv.DBName(t)
	dropAfter(t, c, db)
	results := filepath.Join(t.TempDir(), "results.jsonl")

	o := mb(t, "run", "--uri", uri, "--database", db, "--threads", "2", "--ops", "300",
		"-p", "records=200", "--results-file", results, "--no-report", "--json")
	wantCode(t, o, cli.ExitOK)
	var doc struct {
		ID    map[string]any `json:"_id"`
		RunID string         `json:"runId"`
		Ops   []struct {
			Name   string `json:"name"`
			Count  int64  `json:"count"`
			Errors struct {
				Total int64 `json:"total"`
			} `json:"errors"`
		} `json:"ops"`
		Schedule *struct {
			Mode     string `json:"mode"`
			Workers  int    `json:"workers"`
			Intended int64  `json:"intended"`
		} `json:"schedule"`
		Client struct {
			CPUPerOp *float64 `json:"cpuPerOpUs"`
		} `json:"client"`
		Target struct {
			URI string `json:"uri"`
		} `json:"target"`
	}
	if err := json.Unmarshal([]byte(o.stdout), &doc); err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%s", err, o.stdout)
	}
	if len(doc.ID) == 0 {
		t.Errorf("_id: got %v, want the test and variant", doc.ID)
	}
	if doc.RunID == "" {
		t.Fatalf("runId: got empty, want one")
	}
	var done int64
	for _, op := range doc.Ops {
		done += op.Count + op.Errors.Total
	}
	if len(doc.Ops) == 0 || done != 300 {
		t.Errorf("ops: got %d types, %d operations; want at least one type and 300 operations", len(doc.Ops), done)
	}
	if doc.Schedule == nil || doc.Schedule.Mode != "closed" || doc.Schedule.Workers != 2 {
		t.Errorf("schedule: got %+v, want a closed loop of 2 workers", doc.Schedule)
	}
	if doc.Client.CPUPerOp == nil || *doc.Client.CPUPerOp <= 0 {
		t.Errorf("client.cpuPerOpUs: got %v, want a positive figure", doc.Client.CPUPerOp)
	}
	if doc.Target.URI == "" || !strings.HasPrefix(doc.Target.URI, "mongodb") {
		t.Errorf("target.uri: got %q, want the target's connection string", doc.Target.URI)
	}

	o = mb(t, "results", "list", "--results-file", results)
	wantCode(t, o, cli.ExitOK)
	if !strings.Contains(o.stdout, doc.RunID) {
		t.Errorf("results list: got\n%s\nwant a line for run %s", o.stdout, doc.RunID)
	}

	prefix := doc.RunID[:min(8, len(doc.RunID))]
	o = mb(t, "results", "show", prefix, "--results-file", results, "--json")
	wantCode(t, o, cli.ExitOK)
	var shown struct {
		RunID string `json:"runId"`
	}
	if err := json.Unmarshal([]byte(o.stdout), &shown); err != nil {
		t.Fatalf("results show --json: stdout is not JSON: %v\n%s", err, o.stdout)
	}
	if shown.RunID != doc.RunID {
		t.Errorf("results show %s: got run %q, want %q", prefix, shown.RunID, doc.RunID)
	}
	o = mb(t, "results", "show", prefix, "--results-file", results)
	wantCode(t, o, cli.ExitOK)
	if !strings.Contains(o.stdout, "p99") {
		t.Errorf("results show %s: got\n%s\nwant the summary with latency percentiles", prefix, o.stdout)
	}

	o = mb(t, "results", "show", "no-such-run", "--results-file", results)
	wantCode(t, o, cli.ExitFailure)
	if msg := errorLine(t, o, false); !strings.Contains(msg, "no-such-run") {
		t.Errorf("results show no-such-run: got %q, want it to name the run asked for", msg)
	}
}
