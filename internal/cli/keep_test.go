package cli_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// A run stopped by Ctrl-C whose store also fails still exits 130; its
// result is rescued to the temporary directory when the working directory
// is gone, the error says where, and `results import` loads the file
// (twice: once stored).
func TestInterruptedRunRescuedAndImported(t *testing.T) {
	uri := testenv.URI(t)
	db := testenv.DBName(t)
	dropAfter(t, connect(t, uri), db)
	gone := t.TempDir()
	t.Chdir(gone)
	if err := os.Remove(gone); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(3*time.Second, cancel)
	var out, errOut bytes.Buffer
	code := cli.Main(ctx, []string{"run", "--uri", uri, "--database", db, "--rate", "100/s", "--duration", "60s",
		"-p", "records=100", "--results-file", filepath.Join(gone, "results.jsonl"), "--no-report"}, &out, &errOut)
	if code != cli.ExitInterrupted {
		t.Fatalf("exit: got %d want %d\nstderr: %s", code, cli.ExitInterrupted, errOut.String())
	}
	m := regexp.MustCompile(`kept in (\S+mongobench-unsaved-\S+\.jsonl)`).FindStringSubmatch(errOut.String())
	if m == nil {
		t.Fatalf("stderr does not say where the result is kept:\n%s", errOut.String())
	}
	rescued := m[1]
	t.Cleanup(func() { _ = os.Remove(rescued) })
	if !strings.HasPrefix(rescued, os.TempDir()) {
		t.Errorf("rescue file %s: want it in the temporary directory %s (the working directory is gone)", rescued, os.TempDir())
	}
	t.Chdir(os.TempDir())

	for round := 0; round < 2; round++ {
		o := mb(t, "results", "import", rescued, "--results", uri)
		wantCode(t, o, cli.ExitOK)
		if !strings.Contains(o.stdout, "imported") {
			t.Errorf("import round %d: stdout %q, want it to say the run was imported", round, o.stdout)
		}
	}
	docs, err := store.ReadFile(rescued)
	if err != nil || len(docs) != 1 || !docs[0].Partial {
		t.Fatalf("rescue file: %d runs (%v), want 1 partial run", len(docs), err)
	}
	o := mb(t, "results", "show", docs[0].RunID, "--results", uri, "--json")
	wantCode(t, o, cli.ExitOK)
}

// Without a separate results store, an unreachable target is named as the
// target, not as a results store; a separate one is named as such.
func TestUnreachableSaysWhich(t *testing.T) {
	o := mb(t, "run", "--uri", unreachable, "--ops", "10", "--no-report")
	wantCode(t, o, cli.ExitFailure)
	if msg := errorLine(t, o, false); strings.Contains(msg, "results store") || !strings.Contains(msg, "target") {
		t.Errorf("error: got %q, want it to name the target and no results store", msg)
	}
	o = mb(t, "results", "list", "--results", unreachable)
	wantCode(t, o, cli.ExitFailure)
	if msg := errorLine(t, o, false); !strings.Contains(msg, "results store") {
		t.Errorf("error: got %q, want it to name the results store", msg)
	}
}

// w=0 is refused for the results store and warned about for a target;
// options the driver ignores are warned about.
func TestUnacknowledgedAndUnknownOptions(t *testing.T) {
	o := mb(t, "results", "list", "--results", "mongodb://127.0.0.1:1/?w=0")
	wantCode(t, o, cli.ExitUsage)
	wantQuick(t, o, usageFast)
	if msg := errorLine(t, o, true); !strings.Contains(msg, "w=0") {
		t.Errorf("error: got %q, want it to refuse w=0", msg)
	}
	o = mb(t, "run", "--uri", unreachable+"?w=0&proxyHost=h&proxyPassword=pw1234", "--ops", "10", "--no-report", "--results-file", filepath.Join(t.TempDir(), "r.jsonl"))
	for _, want := range []string{"w=0", "option proxyHost", "option proxyPassword"} {
		if !strings.Contains(o.stderr, "warning: ") || !strings.Contains(o.stderr, want) {
			t.Errorf("stderr: want a warning about %s:\n%s", want, o.stderr)
		}
	}
	wantNoSecret(t, "stderr", o.stderr, "pw1234")
}

// A server that requires authentication, given no credentials, is a
// failure of the run (exit 1), not bad input (exit 2).
func TestAuthRequiredWithoutCredentials(t *testing.T) {
	h, _ := authServer(t, "noauthuser", "GoodPassw0rdQ7x")
	anon := h.URI
	for _, args := range [][]string{
		{"run", "--uri", anon, "--database", testenv.DBName(t), "--threads", "2", "--ops", "10", "-p", "records=100", "--results-file", filepath.Join(t.TempDir(), "r.jsonl"), "--no-report"},
		{"run", "--uri", anon, "--database", testenv.DBName(t), "--threads", "2", "--ops", "10", "-p", "records=100", "--no-report"},
		{"clean", "--uri", anon, "--database", testenv.DBName(t)},
		{"results", "list", "--results", anon},
		{"sweep", "--uri", anon, "--workload", "kv", "--rate", "50", "--duration", "1s", "--warmup", "0s", "-p", "records=100", "--report-dir", ""},
		{"sla", "--uri", anon, "--rate", "20", "--p99", "1s", "--repeat", "1", "--duration", "1s", "--warmup", "0s", "-p", "accounts=100", "--report-dir", ""},
		{"calibrate", "--uri", anon, "--workload", "kv", "--max-threads", "2", "--duration", "1s", "--warmup", "0s", "-p", "records=100", "--report-dir", ""},
		{"load", "--uri", anon, "--workload", "ycsb-a", "-p", "recordcount=100", "--report-dir", ""},
		{"catalog", "run", "insert_docsize", "--uri", anon, "--scale", "0.0001"},
		{"report", "--results", anon, "-o", filepath.Join(t.TempDir(), "t.md")},
	} {
		o := mb(t, args...)
		if o.code != cli.ExitFailure {
			t.Errorf("%s without credentials: exit %d, want %d\n%s", args[0], o.code, cli.ExitFailure, o)
		}
	}
}
