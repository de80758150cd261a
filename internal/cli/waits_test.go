package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// Every wait ends within two seconds of Ctrl-C, exit 130 (issue 24, item
// 3). These tests cancel the context of an in-process run as Ctrl-C does,
// or send SIGINT to a client process, and time the end.

// mainUntil runs the cli with ctx and returns its exit code and stderr,
// failing the test (instead of hanging) when it has not returned within
// limit of the cancellation.
func mainUntil(t *testing.T, ctx context.Context, cancelled func() time.Time, limit time.Duration, args ...string) (int, string, time.Duration) {
	t.Helper()
	var out, errOut bytes.Buffer
	done := make(chan int, 1)
	go func() { done <- cli.Main(ctx, args, &out, &errOut) }()
	<-ctx.Done()
	select {
	case code := <-done:
		return code, errOut.String(), time.Since(cancelled())
	case <-time.After(limit):
		t.Fatalf("still running %v after the interrupt", limit) // the goroutine is left behind
		return 0, "", 0
	}
}

// --threads 10000 dials its connections in parallel under the command's
// context: Ctrl-C during the dialling ends the run at once (it dialled one
// after another on a context never cancelled: still running 35 s after
// SIGINT). The connections go through a proxy adding 20 ms each way, and
// the run is stopped after 200 of them, far from 10000.
func TestInterruptWhileConnectingThreads(t *testing.T) {
	uri := testenv.URI(t)
	p := startProxy(t, hostOf(t, uri))
	p.Latency(20 * time.Millisecond)
	db := testenv.DBName(t)
	t.Cleanup(func() {
		var o bytes.Buffer
		cli.Main(context.Background(), []string{"clean", "--uri", uri, "--database", db}, &o, &o)
	})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var at time.Time
	go func() {
		for p.Accepted() < 200 && ctx.Err() == nil {
			time.Sleep(10 * time.Millisecond)
		}
		at = time.Now()
		cancel()
	}()
	code, stderr, took := mainUntil(t, ctx, func() time.Time { return at }, 10*time.Second,
		"run", "--uri", proxied(t, uri, p.Addr()), "--database", db, "--workload", "ycsb-b", "-p", "client=wire",
		"-p", "recordcount=100", "--threads", "10000", "--duration", "5s", "--no-report",
		"--results-file", filepath.Join(t.TempDir(), "r.jsonl"))
	t.Logf("Ctrl-C while connecting %d connections of --threads 10000: ended %v after, exit %d", p.Accepted(), took.Round(time.Millisecond), code)
	if code != cli.ExitInterrupted || took > 2*time.Second {
		t.Errorf("exit %d %v after the interrupt, want %d within 2s; stderr:\n%s", code, took, cli.ExitInterrupted, stderr)
	}
	if !strings.Contains(stderr, "interrupted during connecting the workers") {
		t.Errorf("stderr does not say the dialling was interrupted:\n%s", stderr)
	}
	if n := p.Accepted(); n > 2000 {
		t.Errorf("%d connections accepted: the dialling went on after the interrupt", n)
	}
}

// A server that stops answering at the end of the measured phase: the
// phase-end serverStatus, the sampler and the driver's disconnect waited
// a silent ~15 s, deaf to Ctrl-C, and the run exited 0. Now Ctrl-C during
// them ends the run within 2 s, exit 130, the result kept (partial).
func TestInterruptAfterPhaseDeadServer(t *testing.T) {
	uri := testenv.URI(t)
	p := startProxy(t, hostOf(t, uri))
	db := testenv.DBName(t)
	t.Cleanup(func() {
		var o bytes.Buffer
		cli.Main(context.Background(), []string{"clean", "--uri", uri, "--database", db}, &o, &o)
	})
	file := filepath.Join(t.TempDir(), "r.jsonl")
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	watch := testenv.Client(t, uri)
	var at time.Time
	go func() {
		// the measured phase has begun once the preload is in and reads flow
		for ctx.Err() == nil {
			if n, err := watch.Database(db).Collection("kv").EstimatedDocumentCount(ctx); err == nil && n >= 100 {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		base := queries(ctx, watch)
		for ctx.Err() == nil && queries(ctx, watch) < base+20 {
			time.Sleep(20 * time.Millisecond)
		}
		time.Sleep(1500 * time.Millisecond)
		p.BlackHole(time.Minute) // the server is dead from before the phase's end
		time.Sleep(1500 * time.Millisecond)
		at = time.Now() // the 2 s phase is over: its closing steps are waiting
		cancel()
	}()
	start := time.Now()
	code, stderr, took := mainUntil(t, ctx, func() time.Time { return at }, 20*time.Second,
		"run", "--uri", proxied(t, uri, p.Addr()), "--database", db, "--workload", "kv", "-p", "records=100",
		"--threads", "2", "--duration", "2s", "--no-report", "--results-file", file)
	p.Pass()
	t.Logf("Ctrl-C after the phase against a dead server: ended %v after (run took %v), exit %d", took.Round(time.Millisecond), time.Since(start).Round(time.Millisecond), code)
	if code != cli.ExitInterrupted || took > 2*time.Second {
		t.Errorf("exit %d %v after the interrupt, want %d within 2s; stderr:\n%s", code, took, cli.ExitInterrupted, stderr)
	}
	docs, err := store.NewFile(file).List(context.Background(), 0)
	if err != nil || len(docs) != 1 {
		t.Fatalf("stored %d results (%v), want the run's, kept; stderr:\n%s", len(docs), err, stderr)
	}
	if d := docs[0]; !d.Partial || d.Schedule.Intended == 0 {
		t.Errorf("stored partial %v (%q), %d operations: want what was measured, marked partial", d.Partial, d.PartialReason, d.Schedule.Intended)
	}
}

// A client waiting in a run group: Ctrl-C (SIGINT to the process) ends it
// within 2 s, exit 130; a group document made hostile while it waits
// (clients: 1e12 spun at 1.7 GB in 6 s, deaf to SIGINT; a start in 2999
// was waited for past --group-timeout) is refused within 2 s, naming the
// bound.
func TestGroupWaitsEndOnInterruptAndHostileDocuments(t *testing.T) {
	uri := testenv.URI(t)
	st := groupStore(t, uri)
	for _, tc := range []struct {
		name   string
		change bson.D // nil: SIGINT
		want   string
		code   int
	}{
		{"ctrl-c", nil, "interrupted", cli.ExitInterrupted},
		{"clients 1e12", bson.D{{Key: "clients", Value: int64(1e12)}}, "1000000000000 clients, want 1 to 10000", 1},
		{"start in 2999", bson.D{{Key: "prepared", Value: time.Now()}, {Key: "startAt", Value: time.Date(2999, 1, 1, 0, 0, 0, 0, time.UTC)}},
			"start instant 2999-01-01T00:00:00Z is more than the group timeout", 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db, id := testenv.DBName(t), "g-wait-"+strings.ReplaceAll(tc.name, " ", "-")+"-"+testenv.DBName(t)
			c := startClient(t, "run", "--uri", uri, "--database", db, "--workload", "kv",
				"--rate", "100", "--duration", "2s", "--threads", "2", "-p", "records=100", "--no-report",
				"--clients", "2", "--client-index", "1", "--group", id, "--group-timeout", "60s")
			deadline := time.Now().Add(time.Minute)
			for {
				if g, err := st.Group(context.Background(), id); err == nil {
					if _, ok := g.Member(1); ok {
						break // registered: waiting for the lead
					}
				}
				if time.Now().After(deadline) {
					t.Fatalf("the client never registered: %s", c)
				}
				time.Sleep(50 * time.Millisecond)
			}
			time.Sleep(300 * time.Millisecond)
			at := time.Now()
			if tc.change == nil {
				if err := c.cmd.Process.Signal(syscall.SIGINT); err != nil {
					t.Fatal(err)
				}
			} else if _, err := testenv.Client(t, uri).Database(store.DefaultDatabase).Collection(store.GroupsCollection).
				UpdateOne(context.Background(), bson.D{{Key: "_id", Value: id}}, bson.D{{Key: "$set", Value: tc.change}}); err != nil {
				t.Fatal(err)
			}
			select {
			case <-c.done:
			case <-time.After(5 * time.Second):
				_ = c.cmd.Process.Signal(syscall.SIGINT)
				select {
				case <-c.done:
					t.Fatalf("still waiting 5 s after the change; SIGINT then ended it: %s", c)
				case <-time.After(5 * time.Second):
					t.Fatalf("still waiting 5 s after the change, and 5 s after SIGINT: %s", c)
				}
			}
			took := time.Since(at)
			code := c.cmd.ProcessState.ExitCode()
			t.Logf("%s: client ended %v after, exit %d: %s", tc.name, took.Round(time.Millisecond), code, finalLine(c.stderr.String()))
			if took > 2*time.Second || code != tc.code || !strings.Contains(c.stderr.String(), tc.want) {
				t.Errorf("ended %v after, exit %d, want within 2s, exit %d, saying %q: %s", took, code, tc.code, tc.want, c)
			}
		})
	}
}

// Two processes given the same --client-index: the second is refused,
// naming the first's host and pid, and does not run (both ran, and the
// group's result said 59.8 ops/s of 60/s while the server received 90).
func TestGroupSecondClaimantRefused(t *testing.T) {
	uri := testenv.URI(t)
	db, id := testenv.DBName(t), "g-claim-"+testenv.DBName(t)
	args := []string{"run", "--uri", uri, "--database", db, "--workload", "kv",
		"--rate", "60", "--duration", "2s", "--threads", "2", "-p", "records=100", "--no-report",
		"--clients", "2", "--client-index", "1", "--group", id, "--group-timeout", "5s"}
	first := startClient(t, args...)
	st := groupStore(t, uri)
	deadline := time.Now().Add(time.Minute)
	for {
		if g, err := st.Group(context.Background(), id); err == nil {
			if _, ok := g.Member(1); ok {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("the first client never registered: %s", first)
		}
		time.Sleep(50 * time.Millisecond)
	}
	second := startClient(t, args...)
	second.wait(t, time.Minute)
	want := fmt.Sprintf("client 1 is %s pid %d", hostname(t), first.cmd.Process.Pid)
	if second.err == nil || !strings.Contains(second.stderr.String(), want) {
		t.Errorf("second claimant: want it refused, naming %q: %s", want, second)
	}
	t.Logf("second claimant: %s", finalLine(second.stderr.String()))
	_ = first.cmd.Process.Signal(syscall.SIGINT)
	first.wait(t, time.Minute)
}

func finalLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

func hostname(t *testing.T) string {
	t.Helper()
	h, err := os.Hostname()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// Ctrl-C during `results import` (while its files are checked, or while
// runs are stored) ends it within 2 s, exit 130, saying how far it got;
// importing the file again finishes it, every run stored once.
func TestInterruptDuringImport(t *testing.T) {
	uri := testenv.URI(t)
	c := connect(t, uri)
	line, err := os.ReadFile("testdata/schema-v1-run.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	line = bytes.TrimSpace(bytes.SplitN(line, []byte("\n"), 2)[0])
	var d struct {
		RunID string `json:"runId"`
	}
	if err := json.Unmarshal(line, &d); err != nil {
		t.Fatal(err)
	}
	const runs = 200
	prefix := fmt.Sprintf("%s-i%d-", d.RunID, time.Now().UnixNano()%1e9) // this test's runs alone
	var b bytes.Buffer
	for i := range runs {
		b.Write(bytes.ReplaceAll(line, []byte(`"`+d.RunID+`"`), fmt.Appendf(nil, `"%s%03d"`, prefix, i)))
		b.WriteByte('\n')
	}
	file := filepath.Join(t.TempDir(), "runs.jsonl")
	if err := os.WriteFile(file, b.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}
	results := uri // the results database, mongobench, of the test server
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var at time.Time
	go func() {
		time.Sleep(500 * time.Millisecond)
		at = time.Now()
		cancel()
	}()
	code, stderr, took := mainUntil(t, ctx, func() time.Time { return at }, 10*time.Second, "results", "import", file, "--results", results)
	t.Logf("Ctrl-C 0.5 s into an import of %d runs: ended %v after, exit %d", runs, took.Round(time.Millisecond), code)
	if code != cli.ExitInterrupted || took > 2*time.Second || !strings.Contains(stderr, "interrupted: ") {
		t.Errorf("exit %d %v after the interrupt, want %d within 2s, saying it was interrupted; stderr:\n%s", code, took, cli.ExitInterrupted, stderr)
	}
	o := mb(t, "results", "import", file, "--results", results)
	wantCode(t, o, cli.ExitOK)
	n, err := c.Database("mongobench").Collection(store.HistoryCollection).CountDocuments(context.Background(),
		bson.D{{Key: "_id", Value: bson.D{{Key: "$regex", Value: "^" + regexp.QuoteMeta(prefix)}}}})
	if err != nil || n != runs {
		t.Errorf("after importing again: %d runs stored (%v), want %d", n, err, runs)
	}
}
