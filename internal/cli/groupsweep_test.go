package cli_test

import (
	"context"
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// sweepClients runs n client processes of one grouped sweep and waits
// for them all to succeed.
func sweepClients(t *testing.T, n int, id string, args ...string) []*client {
	t.Helper()
	var cs []*client
	for i := range n {
		a := append([]string{"sweep"}, args...)
		a = append(a, "--clients", fmt.Sprint(n), "--client-index", fmt.Sprint(i), "--group", id, "--group-timeout", "60s")
		cs = append(cs, startClient(t, a...))
	}
	for _, c := range cs {
		c.wait(t, 4*time.Minute)
		if c.err != nil {
			t.Fatalf("client failed: %s", c)
		}
	}
	return cs
}

// groupSteps reads the merged step results of sweep id, by step and
// repetition.
func groupSteps(t *testing.T, st *store.Mongo, id string) []result.Doc {
	t.Helper()
	all, err := st.Sweeps(context.Background(), store.Query{Workload: "kv"})
	if err != nil {
		t.Fatal(err)
	}
	var steps []result.Doc
	for _, d := range all {
		if v := result.VariantOf(&d); v.Sweep != nil && *v.Sweep == id {
			steps = append(steps, d)
		}
	}
	slices.SortFunc(steps, func(a, b result.Doc) int {
		va, vb := result.VariantOf(&a), result.VariantOf(&b)
		if *va.SweepStep != *vb.SweepStep {
			return *va.SweepStep - *vb.SweepStep
		}
		return *va.Repetition - *vb.Repetition
	})
	return steps
}

// stepLine is a sweep's progress line of one step.
var stepLine = regexp.MustCompile(`(?m)^step (\d+) +(\d+)/s run (\d+): achieved (\d+)/s`)

// checkGroupSteps checks every merged step of a grouped sweep against
// its clients' results and the clients' output: the step is the group
// run ID.sSTEP.rREP, each client did 1/N of its rate, its counts are the
// sum of the clients', its stored verdict is the one its merged figures
// give, and every client printed the group's achieved rate for it.
func checkGroupSteps(t *testing.T, st *store.Mongo, id string, n int, steps []result.Doc, cs []*client, criteria study.Criteria) {
	t.Helper()
	printed := make([]map[string]string, len(cs)) // "step/rep" → achieved, per client
	for i, c := range cs {
		printed[i] = map[string]string{}
		for _, m := range stepLine.FindAllStringSubmatch(c.stderr.String(), -1) {
			printed[i][m[1]+"/"+m[3]] = m[4]
		}
	}
	for _, d := range steps {
		v := result.VariantOf(&d)
		gid := fmt.Sprintf("%s.s%d.r%d", id, *v.SweepStep, *v.Repetition)
		if d.Group == nil || d.Group.ID != gid || d.Group.ClientIndex != nil || len(d.Group.Members) != n || d.Partial {
			t.Fatalf("step %d run %d: group section %+v, partial %v; want the complete merged result of %s", *v.SweepStep, *v.Repetition+1, d.Group, d.Partial, gid)
		}
		s, err := study.StepOf(&d)
		if err != nil {
			t.Fatal(err)
		}
		holds, _ := study.Holds(s, criteria)
		if tr := d.TestResults.Sweep; tr == nil || tr.ID != id || tr.Holds != holds {
			t.Errorf("step %d: stored verdict %+v; the merged figures say holds=%v", s.Index, tr, holds)
		}
		clients, err := st.GroupRuns(context.Background(), gid)
		if err != nil {
			t.Fatal(err)
		}
		if len(clients) != n {
			t.Fatalf("group %s: %d client results, want %d", gid, len(clients), n)
		}
		var count int64
		for _, c := range clients {
			cv := result.VariantOf(&c)
			if cv.Sweep == nil || *cv.Sweep != id || c.TestResults.Sweep != nil {
				t.Errorf("client result %s: variant.sweep %v, testResults.sweep %+v; want %s and no verdict of its own", c.RunID, cv.Sweep, c.TestResults.Sweep, id)
			}
			if c.Schedule.TargetRate == nil || *c.Schedule.TargetRate != s.Rate/float64(n) {
				t.Errorf("client result %s: target rate %v, want 1/%d of %g", c.RunID, c.Schedule.TargetRate, n, s.Rate)
			}
			for _, op := range c.Ops {
				count += op.Count
			}
			// what the search would have seen from one client's share
			own, err := study.StepOf(&c)
			if err != nil {
				t.Fatal(err)
			}
			if ok, _ := study.Holds(own, criteria); ok {
				t.Errorf("client result %s holds on its own share (%g of %g/s): the test could not tell the group's verdict from a client's", c.RunID, own.Achieved, own.Rate)
			}
		}
		var merged int64
		for _, op := range d.Ops {
			merged += op.Count
		}
		if merged != count {
			t.Errorf("step %d: merged count %d, the clients' sum %d", s.Index, merged, count)
		}
		want := strconv.FormatFloat(d.Schedule.AchievedRate, 'f', 0, 64)
		for i := range cs {
			if got := printed[i][fmt.Sprintf("%d/%d", s.Index, s.Rep+1)]; got != want {
				t.Errorf("client %d printed achieved %q/s for step %d run %d, the group's result %s/s", i, got, s.Index, s.Rep+1, want)
			}
		}
	}
}

// Three clients sweep with --rate auto: each step is a group run, the
// search decides from the group's merged result (a client's share of a
// step, judged alone, never holds), so every client runs the same rates
// and prints the same table.
func TestGroupSweepAuto(t *testing.T) {
	uri := testenv.URI(t)
	db, id := testenv.DBName(t), "g-sweep-"+testenv.DBName(t)
	const n = 3
	auto := study.Auto{Start: 150, Factor: 2, Max: 600}
	cs := sweepClients(t, n, id, "--uri", uri, "--database", db, "--workload", "kv", "--rate", "auto",
		"--start-rate", "150", "--rate-factor", "2", "--max-rate", "600", "--warmup", "0s", "--duration", "1s",
		"--threads", "6", "-p", "records=300", "--report-dir", "")
	for _, c := range cs[1:] {
		if c.stdout.String() != cs[0].stdout.String() {
			t.Errorf("clients printed different tables:\n%s\n%s", cs[0], c)
		}
	}
	st := groupStore(t, uri)
	steps := groupSteps(t, st, id)
	if len(steps) == 0 {
		t.Fatalf("no merged step of sweep %s stored\n%s", id, cs[0])
	}
	criteria := study.Criteria{MaxErrors: 0.01}
	checkGroupSteps(t, st, id, n, steps, cs, criteria)
	// The rates run are those the search chooses from the merged steps.
	var tried []study.Trial
	for _, d := range steps {
		s, err := study.StepOf(&d)
		if err != nil {
			t.Fatal(err)
		}
		want, ok := auto.Next(tried)
		if !ok || want != s.Rate {
			t.Fatalf("step %d ran %g/s; from the merged steps before it the search chooses %g/s (%v)", s.Index, s.Rate, want, ok)
		}
		holds, _ := study.Holds(s, criteria)
		tried = append(tried, study.Trial{Value: s.Rate, Held: holds, Achieved: s.Achieved})
		t.Logf("step %d: %g/s, the group achieved %.1f/s, holds %v", s.Index, s.Rate, s.Achieved, holds)
	}
	if next, ok := auto.Next(tried); ok {
		t.Errorf("the sweep ended after %d steps; the search would go on at %g/s", len(tried), next)
	}
	for _, c := range cs {
		if !strings.Contains(c.stdout.String(), "Maximum throughput that held") {
			t.Errorf("no verdict printed: %s", c)
		}
	}
}

// A list of one rate repeated twice by two clients: each repetition is a
// group run of its own.
func TestGroupSweepRepeat(t *testing.T) {
	uri := testenv.URI(t)
	db, id := testenv.DBName(t), "g-sweep-rep-"+testenv.DBName(t)
	const n = 2
	cs := sweepClients(t, n, id, "--uri", uri, "--database", db, "--workload", "kv", "--rate", "240", "--repeat", "2",
		"--warmup", "0s", "--duration", "1s", "--threads", "4", "-p", "records=200", "--report-dir", "")
	if cs[0].stdout.String() != cs[1].stdout.String() {
		t.Errorf("clients printed different tables:\n%s\n%s", cs[0], cs[1])
	}
	st := groupStore(t, uri)
	steps := groupSteps(t, st, id)
	if len(steps) != 2 || *result.VariantOf(&steps[1]).Repetition != 1 {
		t.Fatalf("%d merged steps stored, want the 2 repetitions of step 1", len(steps))
	}
	checkGroupSteps(t, st, id, n, steps, cs, study.Criteria{MaxErrors: 0.01})
}

// A sweep's run group, like a run's, cannot coordinate through a JSON
// Lines file.
func TestGroupSweepRefusesResultsFile(t *testing.T) {
	o := mb(t, "sweep", "--workload", "kv", "--rate", "auto", "--clients", "2", "--client-index", "1", "--group", "x",
		"--results-file", filepath.Join(t.TempDir(), "r.jsonl"))
	wantCode(t, o, 2)
	if line := errorLine(t, o, false); !strings.Contains(line, "--results-file") || !strings.Contains(line, "groups") {
		t.Errorf("got %q", line)
	}
}

// A client killed in a step: the others store the step's group result,
// partial, judge it as stored (it does not hold) and stop the sweep,
// naming the missing client.
func TestGroupSweepClientKilled(t *testing.T) {
	uri := testenv.URI(t)
	db, id := testenv.DBName(t), "g-sweep-kill-"+testenv.DBName(t)
	var cs []*client
	for i := range 2 {
		cs = append(cs, startClient(t, "sweep", "--uri", uri, "--database", db, "--workload", "kv", "--rate", "100,200",
			"--warmup", "0s", "--duration", "4s", "--threads", "4", "-p", "records=200", "--report-dir", "",
			"--clients", "2", "--client-index", fmt.Sprint(i), "--group", id, "--group-timeout", "3s"))
	}
	st := groupStore(t, uri)
	deadline := time.Now().Add(2 * time.Minute)
	for {
		g, err := st.Group(context.Background(), id+".s1.r0")
		if err == nil && g.StartAt != nil && time.Now().After(g.StartAt.Add(time.Second)) {
			break // in the first step's measured phase
		}
		if time.Now().After(deadline) {
			t.Fatalf("the first step never started: %v\n%s", err, cs[1])
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err := cs[1].cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	c := cs[0]
	c.wait(t, 2*time.Minute)
	if code := c.cmd.ProcessState.ExitCode(); code != 1 {
		t.Fatalf("exit code %d, want 1: %s", code, c)
	}
	lines := strings.Split(strings.TrimSpace(c.stderr.String()), "\n")
	if last := lines[len(lines)-1]; !strings.Contains(last, id+".s1.r0") || !strings.Contains(last, "client 1 of 2 stored no result") {
		t.Errorf("last line %q, want it to name the step's group and the missing client\n%s", last, c)
	}
	t.Logf("the sweep's last line: %s", lines[len(lines)-1])
	steps := groupSteps(t, st, id)
	if len(steps) != 1 {
		t.Fatalf("%d merged steps, want the first step only", len(steps))
	}
	d := steps[0]
	if !d.Partial || d.TestResults.Sweep == nil || d.TestResults.Sweep.Holds || len(d.Group.Missing) != 1 || d.Group.Missing[0] != 1 {
		t.Errorf("step 1: partial %v (%s), verdict %+v, missing %v; want partial, not holding, client 1 missing",
			d.Partial, d.PartialReason, d.TestResults.Sweep, d.Group.Missing)
	}
	if !strings.Contains(c.stdout.String(), "❌") || !strings.Contains(c.stdout.String(), "group result partial: client 1 of 2 stored no result") {
		t.Errorf("the step's table row does not fail: %s", c)
	}
}
