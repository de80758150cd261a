package cli_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/testsupport/plantest"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// storedRuns reads the runs a command appended to a results file.
func storedRuns(t *testing.T, file string) []result.Doc {
	t.Helper()
	docs, err := store.NewFile(file).List(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	return docs
}

// lastLine returns the last line of standard error, the one that says
// why the command ended, and checks it is the command's own.
func lastLine(t *testing.T, o outcome) string {
	t.Helper()
	lines := strings.Split(strings.TrimRight(o.stderr, "\n"), "\n")
	last := lines[len(lines)-1]
	if !strings.HasPrefix(last, "mongobench: ") {
		t.Fatalf("last stderr line: got %q, want one starting %q\n%s", last, "mongobench: ", o)
	}
	return last
}

// TestRunThresholdExitCodes runs kv briefly on the real server with
// thresholds that hold (exit 0), one that fails (exit 99), one on an
// operation type that never ran (missing: exit 99, never compared as 0)
// and one that stops the run early with --abort-on-fail (exit 99, the
// partial result kept). Every verdict is printed and stored with its run.
// No latency a loaded machine achieves decides a case: the bounds are an
// hour and a microsecond (below what any operation over a socket takes).
func TestRunThresholdExitCodes(t *testing.T) {
	uri := testenv.URI(t)
	db := testenv.DBName(t)
	dropAfter(t, connect(t, uri), db)
	run := []string{"run", "--uri", uri, "--database", db, "--workload", "kv", "-p", "records=200",
		"--rate", "100", "--duration", "1s", "--threads", "4", "--no-report"}
	cases := []struct {
		name       string
		args       []string
		code       int
		verdicts   []string // stored expression → pass
		pass       []bool
		stdout     []string
		errLine    string // in the last stderr line
		partial    bool
		missingFor string // the expression whose figure is missing
	}{
		{name: "holds", args: []string{"--threshold", "p99(read) < 1h", "--threshold", "svc.p50 < 1h", "--threshold", "errors(timeout) < 1000000", "--threshold", "rate >= 1/s"},
			code: cli.ExitOK, verdicts: []string{"p99(read) < 1h", "svc.p50 < 1h", "errors(timeout) < 1000000", "rate >= 1/s"}, pass: []bool{true, true, true, true},
			stdout: []string{"PASS     p99(read) < 1h", "PASS     rate >= 1/s"}},
		{name: "fails", args: []string{"--threshold", "p99 < 1h", "--threshold", "p99(update) < 1us"},
			code: cli.ExitVerdict, verdicts: []string{"p99 < 1h", "p99(update) < 1us"}, pass: []bool{true, false},
			stdout: []string{"FAIL     p99(update) < 1us"}, errLine: "1 of 2 thresholds failed: p99(update) < 1us: "},
		{name: "missing", args: []string{"-p", "readPercent=100", "--threshold", "p99(update) < 1h"},
			code: cli.ExitVerdict, verdicts: []string{"p99(update) < 1h"}, pass: []bool{false},
			stdout: []string{"FAIL     p99(update) < 1h  missing: no update operation succeeded"}, missingFor: "p99(update) < 1h",
			errLine: "p99(update) < 1h: missing: no update operation succeeded"},
		// Half of the 6 s phase is 3 s: from the fifteenth interval of
		// 200 ms on, the threshold cannot hold, and the run stops there.
		{name: "abort", args: []string{"--duration", "6s", "--interval", "200ms", "--threshold", "p99 < 1us", "--abort-on-fail"},
			code: cli.ExitVerdict, verdicts: []string{"p99 < 1us"}, pass: []bool{false}, partial: true,
			stdout: []string{"PARTIAL RUN: aborted after 3s of the measured phase: p99 < 1us: "}, errLine: "cannot hold; its partial result is stored"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "results.jsonl")
			o := mb(t, append(append(append([]string{}, run...), "--results-file", file), c.args...)...)
			wantCode(t, o, c.code)
			for _, want := range c.stdout {
				if !strings.Contains(o.stdout, want) {
					t.Errorf("stdout lacks %q\n%s", want, o)
				}
			}
			if c.errLine != "" {
				if line := lastLine(t, o); !strings.Contains(line, c.errLine) {
					t.Errorf("error line %q lacks %q", line, c.errLine)
				}
			}
			docs := storedRuns(t, file)
			if len(docs) != 1 {
				t.Fatalf("stored %d runs, want 1", len(docs))
			}
			d := docs[0]
			if d.Partial != c.partial || c.partial && !strings.HasPrefix(d.PartialReason, "aborted after 3s") {
				t.Errorf("partial %v %q, want %v", d.Partial, d.PartialReason, c.partial)
			}
			if len(d.Thresholds) != len(c.verdicts) {
				t.Fatalf("stored verdicts %+v, want %v", d.Thresholds, c.verdicts)
			}
			for i, v := range d.Thresholds {
				if v.Expression != c.verdicts[i] || v.Pass != c.pass[i] {
					t.Errorf("verdict %d: %q pass %v, want %q pass %v", i, v.Expression, v.Pass, c.verdicts[i], c.pass[i])
				}
				if missing := v.Expression == c.missingFor; missing != (v.Value == nil) || missing != (v.Missing != "") {
					t.Errorf("verdict %q: value %v, missing %q", v.Expression, v.Value, v.Missing)
				}
			}
		})
	}
}

// TestStudyVerdictExitCodes: an SLA whose runs pass fewer than --require
// exits 99, and so does a sweep in which no rate held, by its --sla or by
// a threshold on each step. The bounds are a microsecond, which no
// operation over a socket meets.
func TestStudyVerdictExitCodes(t *testing.T) {
	uri := testenv.URI(t)
	cases := []struct {
		name    string
		args    []string
		errLine string
		runs    int
	}{
		{"sla below --require", []string{"sla", "--rate", "20", "--p99", "1us", "--repeat", "1", "--require", "1/1", "--modes", "per-op",
			"-p", "accounts=200"}, "sla: per-op at 20 TPS: 0 of 1 runs passed, 1 required", 1},
		{"sweep with no rate held", []string{"sweep", "--workload", "kv", "-p", "records=200", "--rate", "50", "--p99", "1us"},
			"no target rate held", 1},
		{"sweep whose thresholds fail", []string{"sweep", "--workload", "kv", "-p", "records=200", "--rate", "50,100", "--threshold", "max < 1us"},
			"no target rate held", 2},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			db := testenv.DBName(t)
			dropAfter(t, connect(t, uri), db)
			file := filepath.Join(t.TempDir(), "results.jsonl")
			o := mb(t, append(c.args, "--uri", uri, "--database", db, "--duration", "1s", "--warmup", "0s", "--threads", "4",
				"--results-file", file, "--report-dir", t.TempDir())...)
			wantCode(t, o, cli.ExitVerdict)
			if line := lastLine(t, o); !strings.Contains(line, c.errLine) {
				t.Errorf("error line %q lacks %q", line, c.errLine)
			}
			if docs := storedRuns(t, file); len(docs) != c.runs {
				t.Errorf("stored %d runs, want %d", len(docs), c.runs)
			}
		})
	}
}

// TestPlanVerdictExitCode answers the seed study from its stored runs
// (no server): with a latency constraint no candidate meets, the plan
// exits 99; TestPlanFromStoredSeedStudy has the plan that holds, exit 0.
func TestPlanVerdictExitCode(t *testing.T) {
	docs, err := plantest.Docs("seed")
	if err != nil {
		t.Fatal(err)
	}
	results := filepath.Join(t.TempDir(), "results.jsonl")
	for _, d := range docs {
		if err := store.NewFile(results).Save(context.Background(), d); err != nil {
			t.Fatal(err)
		}
	}
	path := seedPlanFile(t, "1625")
	text, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	strict := strings.Replace(string(text), "constraints: [p95 READ <= +5%, p95 UPDATE <= +5%]", "constraints: [p95 READ <= 1us]", 1)
	if err := os.WriteFile(path, []byte(strict), 0o644); err != nil {
		t.Fatal(err)
	}
	o := mb(t, "plan", path, "--from-results", "--results-file", results, "--report-dir", t.TempDir())
	wantCode(t, o, cli.ExitVerdict)
	if line := lastLine(t, o); !strings.Contains(line, "plan seed: no candidate meets the constraints") {
		t.Errorf("error line %q", line)
	}
}

// wantEnded checks that a study ran to its end: exit 0, or 99 when its
// own verdict failed. Which of the two depends on what a loaded machine
// achieved; wantVerdict then checks the code against the verdict that
// the study's output or its stored runs show.
func wantEnded(t *testing.T, o outcome) {
	t.Helper()
	if o.code != cli.ExitOK && o.code != cli.ExitVerdict {
		t.Fatalf("exit code: got %d, want %d or, when the study's verdict failed, %d\n%s", o.code, cli.ExitOK, cli.ExitVerdict, o)
	}
}

// wantVerdict checks the exit code against the study's verdict: 0 when
// it held, 99 when it failed.
func wantVerdict(t *testing.T, o outcome, held bool) {
	t.Helper()
	want := cli.ExitOK
	if !held {
		want = cli.ExitVerdict
	}
	if o.code != want {
		t.Errorf("exit code: got %d, want %d (the verdict held: %v)\n%s", o.code, want, held, o)
	}
}

// slaHeld is an SLA study's verdict over a list of rates, from its
// stored runs: every mode at every rate had most of its runs pass.
func slaHeld(t *testing.T, docs []result.Doc) bool {
	t.Helper()
	type key struct {
		mode string
		tps  float64
	}
	runs, passed := map[key]int{}, map[key]int{}
	for i := range docs {
		r, err := study.RunOf(&docs[i])
		if err != nil {
			t.Fatal(err)
		}
		k := key{r.Mode, r.TPS}
		runs[k]++
		if v := docs[i].TestResults.SLA; v != nil && v.Pass {
			passed[k]++
		}
	}
	for k, n := range runs {
		if !study.Majority(passed[k], n) {
			return false
		}
	}
	return len(runs) > 0
}
