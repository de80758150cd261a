package cli_test

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// statusLine is a status line as a log shows it: elapsed/total, ops/s,
// p99, errors, late.
var statusLine = regexp.MustCompile(`^\d+:\d\d/\d+:\d\d  \S+ ops/s  p99 \S+ ms  errors \d+  late \d+$`)

// TestStatusLinesInALog: a run whose standard error is not a terminal
// (here a buffer, as with '| cat' or a CI log) prints a plain status line
// every --status-interval: a 3 s measured phase at 1 s gives about three,
// and no carriage return.
func TestStatusLinesInALog(t *testing.T) {
	uri := testenv.URI(t)
	db := testenv.DBName(t)
	dropAfter(t, connect(t, uri), db)
	o := mb(t, "run", "--uri", uri, "--database", db, "--rate", "200/s", "--duration", "3s", "--warmup", "1s",
		"-p", "records=200", "--status-interval", "1s", "--results-file", filepath.Join(t.TempDir(), "r.jsonl"), "--no-report")
	wantCode(t, o, cli.ExitOK)
	var status []string
	for _, l := range strings.Split(o.stderr, "\n") {
		if statusLine.MatchString(l) {
			status = append(status, l)
		}
	}
	t.Logf("stderr:\n%s", o.stderr)
	if n := len(status); n < 2 || n > 4 {
		t.Errorf("got %d status lines, want 3 ± 1 (one a second of a 3 s phase):\n%s", n, o.stderr)
	}
	if strings.Contains(o.stderr, "\r") {
		t.Errorf("stderr is not a terminal, yet holds a carriage return:\n%q", o.stderr)
	}
	if !strings.Contains(o.stderr, "warm-up 0:01 (not measured), then measuring 0:03\n") {
		t.Errorf("the log does not say when the warm-up and the measured phase begin:\n%s", o.stderr)
	}

	// A negative interval is bad input, named.
	bad := mb(t, "run", "--uri", uri, "--status-interval", "-1s", "--ops", "10")
	wantCode(t, bad, cli.ExitUsage)
	if !strings.Contains(bad.stderr, "--status-interval") {
		t.Errorf("a negative --status-interval: got %q, want the flag named", bad.stderr)
	}
}
