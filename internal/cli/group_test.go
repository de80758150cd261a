package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/hist"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// The group tests run real client processes of the binary, built once.
var (
	binOnce sync.Once
	binPath string
	binErr  error
)

func groupBinary(t *testing.T) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "mongobench-group-bin-")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "mongobench")
		cmd := exec.Command("go", "build", "-o", binPath, "github.com/mongobench/mongobench/cmd/mongobench")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// client is one client process of a group.
type client struct {
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	err            error
	done           chan struct{}
}

func startClient(t *testing.T, args ...string) *client {
	t.Helper()
	c := &client{cmd: exec.Command(groupBinary(t), args...), done: make(chan struct{})}
	c.cmd.Stdout, c.cmd.Stderr = &c.stdout, &c.stderr
	if err := c.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { c.err = c.cmd.Wait(); close(c.done) }()
	t.Cleanup(func() {
		_ = c.cmd.Process.Kill() // a client left running by a failed test
		<-c.done
	})
	return c
}

func (c *client) wait(t *testing.T, limit time.Duration) {
	t.Helper()
	select {
	case <-c.done:
	case <-time.After(limit):
		t.Fatalf("client %v still running after %v\nstderr:\n%s", c.cmd.Args, limit, c.stderr.String())
	}
}

func (c *client) String() string {
	return fmt.Sprintf("%v: %v\nstdout:\n%s\nstderr:\n%s", c.cmd.Args[1:], c.err, c.stdout.String(), c.stderr.String())
}

func groupStore(t *testing.T, uri string) *store.Mongo {
	return store.NewMongo(testenv.Client(t, uri), store.DefaultDatabase, "test")
}

// groupRuns reads the group's client results and its merged result.
func groupRuns(t *testing.T, st *store.Mongo, id string) ([]result.Doc, *result.Doc) {
	t.Helper()
	ctx := context.Background()
	runs, err := st.GroupRuns(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	g, err := st.Group(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if g.Merged == "" {
		t.Fatalf("group %s has no merged result: %+v", id, g)
	}
	merged, err := st.Get(ctx, g.Merged)
	if err != nil {
		t.Fatal(err)
	}
	return runs, merged
}

// Three client processes do one open-loop run: their schedules add up to
// exactly one client's, and the group's result merges their histograms
// exactly.
func TestGroupRunMergesExactly(t *testing.T) {
	uri := testenv.URI(t)
	db, id := testenv.DBName(t), "g-run-"+testenv.DBName(t)
	const rate, warmup, duration = 300, 1, 3
	var clients []*client
	for i := range 3 {
		clients = append(clients, startClient(t, "run", "--uri", uri, "--database", db, "--workload", "kv",
			"--rate", fmt.Sprint(rate), "--warmup", fmt.Sprintf("%ds", warmup), "--duration", fmt.Sprintf("%ds", duration),
			"--threads", "6", "-p", "records=500", "--no-report",
			"--clients", "3", "--client-index", fmt.Sprint(i), "--group", id, "--group-timeout", "60s"))
	}
	for _, c := range clients {
		c.wait(t, 3*time.Minute)
		if c.err != nil {
			t.Fatalf("client failed: %s", c)
		}
	}
	runs, merged := groupRuns(t, groupStore(t, uri), id)
	if len(runs) != 3 {
		t.Fatalf("%d client results stored, want 3", len(runs))
	}
	// One client's schedule: slot n at n/rate, measured in [warmup, warmup+duration).
	want := int64(math.Ceil((warmup+duration)*rate) - math.Ceil(warmup*rate))
	var intended int64
	union := map[string]*hist.H{}
	counts := map[string]int64{}
	for _, r := range runs {
		intended += r.Schedule.Intended
		if r.Group == nil || r.Group.ClientIndex == nil || !r.Group.StartAt.Equal(runs[0].Group.StartAt) {
			t.Errorf("run %s: group section %+v", r.RunID, r.Group)
		}
		for _, op := range r.Ops {
			h, err := hist.FromDist(op.Latency)
			if err != nil {
				t.Fatal(err)
			}
			if union[op.Name] == nil {
				union[op.Name] = hist.New()
			}
			if err := hist.Merge(union[op.Name], h); err != nil {
				t.Fatal(err)
			}
			counts[op.Name] += op.Count
		}
	}
	if intended != want || merged.Schedule.Intended != want {
		t.Errorf("intended: the clients %d, the group %d; one client's schedule %d", intended, merged.Schedule.Intended, want)
	}
	t.Logf("group achieved %.1f ops/s of %d/s (%.2f%%); clients' pacers %q, %q, %q", merged.Schedule.AchievedRate, rate,
		100*merged.Schedule.AchievedRate/rate, runs[0].Schedule.Pacer, runs[1].Schedule.Pacer, runs[2].Schedule.Pacer)
	if merged.Partial || merged.Group == nil || len(merged.Group.Members) != 3 || len(merged.Group.Missing) != 0 {
		t.Errorf("merged: partial %v (%s), group %+v", merged.Partial, merged.PartialReason, merged.Group)
	}
	if merged.Schedule.TargetRate == nil || *merged.Schedule.TargetRate != rate {
		t.Errorf("merged target rate %v, want %d", merged.Schedule.TargetRate, rate)
	}
	for name, h := range union {
		op := merged.Op(name)
		if op == nil {
			t.Fatalf("merged result has no %s", name)
		}
		if op.Count != counts[name] || op.Latency.Count != h.TotalCount() {
			t.Errorf("%s: merged count %d (histogram %d), clients' %d", name, op.Count, op.Latency.Count, counts[name])
		}
		for _, p := range []struct {
			q   float64
			got *float64
		}{{50, op.Latency.P50}, {99, op.Latency.P99}, {99.9, op.Latency.P999}} {
			if w := hist.Percentile(h, p.q); w == nil || p.got == nil || *w != *p.got {
				t.Errorf("%s p%g: merged %v, the union of the clients' histograms %v", name, p.q, p.got, w)
			}
		}
	}
	if _, ok := merged.Variant["clientIndex"]; ok {
		t.Errorf("merged variant %v keeps clientIndex", merged.Variant)
	}
	// The group's result is judged as a run is, and keeps each client's
	// canary.
	if merged.Validity == nil || len(merged.Validity.Rules) == 0 || merged.Validity.State == "" {
		t.Errorf("merged validity %+v, want the group's result judged", merged.Validity)
	}
	for _, m := range merged.Group.Members {
		if m.Canary == nil || m.Canary.Before == nil || m.Canary.After == nil {
			t.Errorf("member %d: canary %+v, want its client's, before and after", m.ClientIndex, m.Canary)
		}
	}
	// the merge rebuilds the same result, judged by the bounds given
	o := mb(t, "results", "merge", id, "--results", uri, "--validity", "few-operations=0")
	wantCode(t, o, 0)
	if !strings.Contains(o.stdout, merged.RunID) {
		t.Errorf("results merge: %s", o)
	}
	again, err := groupStore(t, uri).Get(context.Background(), merged.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if again.Validity == nil || again.Validity.State == result.Valid || !strings.Contains(validityLine(again), "few-operations suspect") {
		t.Errorf("merged again with few-operations=0: %s, want the bound given judged (every run has at least 0 operation types too few)", validityLine(again))
	}
	wantCode(t, mb(t, "results", "merge", id, "--results", uri, "--validity", "steal=5"), cli.ExitUsage)
}

// A YCSB load of N × k records by N clients leaves exactly N × k keys:
// the clients' slices of the insert range do not overlap.
func TestGroupLoadSlicesKeys(t *testing.T) {
	uri := testenv.URI(t)
	db, id := testenv.DBName(t), "g-load-"+testenv.DBName(t)
	const clients, k = 3, 700
	var cs []*client
	for i := range clients {
		cs = append(cs, startClient(t, "load", "--uri", uri, "--database", db, "--workload", "ycsb-a",
			"-p", fmt.Sprintf("recordcount=%d", clients*k), "-p", "batchSize=100", "-p", "loaders=3", "-p", "fieldcount=2", "-p", "fieldlength=20", "--report-dir", "",
			"--clients", fmt.Sprint(clients), "--client-index", fmt.Sprint(i), "--group", id))
	}
	for _, c := range cs {
		c.wait(t, 3*time.Minute)
		if c.err != nil {
			t.Fatalf("client failed: %s", c)
		}
	}
	coll := testenv.Client(t, uri).Database(db).Collection("usertable")
	t.Cleanup(func() { _ = coll.Database().Drop(context.Background()) })
	ids, err := coll.Distinct(context.Background(), "_id", bson.D{}).Raw()
	if err != nil {
		t.Fatal(err)
	}
	vals, err := ids.Values()
	if err != nil {
		t.Fatal(err)
	}
	n, err := coll.CountDocuments(context.Background(), bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	if len(vals) != clients*k || n != clients*k {
		t.Errorf("%d distinct keys in %d documents, want %d", len(vals), n, clients*k)
	}
	_, merged := groupRuns(t, groupStore(t, uri), id)
	if merged.TestResults.Docs == nil || *merged.TestResults.Docs != clients*k {
		t.Errorf("merged load docs %v, want %d", merged.TestResults.Docs, clients*k)
	}
}

// A client killed in the measured phase: the others store their results
// and, once it has been silent for the group timeout, the group's result,
// partial, naming it.
func TestGroupClientKilled(t *testing.T) {
	uri := testenv.URI(t)
	db, id := testenv.DBName(t), "g-kill-"+testenv.DBName(t)
	var cs []*client
	for i := range 3 {
		cs = append(cs, startClient(t, "run", "--uri", uri, "--database", db, "--workload", "kv",
			"--rate", "150", "--warmup", "1s", "--duration", "6s", "--threads", "6", "-p", "records=300", "--no-report",
			"--clients", "3", "--client-index", fmt.Sprint(i), "--group", id, "--group-timeout", "4s"))
	}
	st := groupStore(t, uri)
	deadline := time.Now().Add(2 * time.Minute)
	for {
		g, err := st.Group(context.Background(), id)
		if err == nil && g.StartAt != nil && time.Now().After(g.StartAt.Add(2*time.Second)) {
			break // in the measured phase
		}
		if time.Now().After(deadline) {
			t.Fatalf("the group never started: %v\n%s", err, cs[2])
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := cs[2].cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for _, c := range cs[:2] {
		c.wait(t, 2*time.Minute)
		if c.err != nil {
			t.Fatalf("client failed: %s", c)
		}
	}
	runs, merged := groupRuns(t, st, id)
	if len(runs) != 2 {
		t.Errorf("%d client results, want 2", len(runs))
	}
	if !merged.Partial || !strings.Contains(merged.PartialReason, "client 2 of 3") || len(merged.Group.Missing) != 1 || merged.Group.Missing[0] != 2 {
		t.Errorf("merged: partial %v (%q), missing %v", merged.Partial, merged.PartialReason, merged.Group.Missing)
	}
	t.Logf("partial group result: %s", merged.PartialReason)
}

// A client that never starts: the others give up after the timeout,
// saying which client is missing.
func TestGroupClientNeverStarts(t *testing.T) {
	uri := testenv.URI(t)
	db, id := testenv.DBName(t), "g-absent-"+testenv.DBName(t)
	var cs []*client
	for i := range 2 {
		cs = append(cs, startClient(t, "run", "--uri", uri, "--database", db, "--workload", "kv",
			"--rate", "100", "--duration", "2s", "--threads", "4", "-p", "records=100", "--no-report",
			"--clients", "3", "--client-index", fmt.Sprint(i), "--group", id, "--group-timeout", "3s"))
	}
	for _, c := range cs {
		c.wait(t, 2*time.Minute)
		if c.err == nil {
			t.Fatalf("client succeeded without the group: %s", c)
		}
		lines := strings.Split(strings.TrimSpace(c.stderr.String()), "\n")
		last := lines[len(lines)-1]
		if !strings.Contains(last, "client 2 of 3 did not arrive within 3s") {
			t.Errorf("last line: %q, want it to name client 2 and the timeout\n%s", last, c)
		}
	}
}

// --clients with a JSON Lines results file is refused before anything
// starts.
func TestGroupRefusesResultsFile(t *testing.T) {
	o := mb(t, "run", "--clients", "2", "--client-index", "0", "--group", "x", "--results-file", filepath.Join(t.TempDir(), "r.jsonl"))
	wantCode(t, o, 2)
	if line := errorLine(t, o, false); !strings.Contains(line, "--results-file") || !strings.Contains(line, "groups") {
		t.Errorf("got %q", line)
	}
	t.Setenv("JOB_COMPLETION_INDEX", "5")
	o = mb(t, "run", "--clients", "2", "--group", "x")
	wantCode(t, o, 2)
	if line := errorLine(t, o, false); !strings.Contains(line, "--client-index: got 5") {
		t.Errorf("got %q", line)
	}
}
