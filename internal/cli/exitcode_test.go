package cli

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"testing"

	"github.com/mongobench/mongobench/internal/runner"
	"github.com/mongobench/mongobench/internal/study"
)

// TestExitCodeOfCommandLine checks the exit code of command lines cobra
// refuses before any command runs: no server is involved.
func TestExitCodeOfCommandLine(t *testing.T) {
	cases := []struct {
		args []string
		want int
	}{
		{[]string{"nosuch"}, ExitUsage},
		{[]string{"sever", "status"}, ExitUsage},
		{[]string{"server", "status", "--nosuch"}, ExitUsage},
		{[]string{"server", "status", "extra"}, ExitUsage},
		{[]string{"server", "start", "--port", "many"}, ExitUsage},
		{[]string{"results", "show"}, ExitUsage},
		{[]string{"--version"}, ExitOK},
		// Thresholds are checked before anything connects.
		{[]string{"run", "--threshold", "p99(READ) < 5"}, ExitUsage},
		{[]string{"run", "--threshold", "rate >= 99%"}, ExitUsage},                      // closed loop: no target rate
		{[]string{"run", "--rate", "100", "--threshold", "p99(SCAN) < 5ms"}, ExitUsage}, // kv has read and update
		{[]string{"sweep", "--workload", "kv", "--rate", "100", "--threshold", "p99(SCAN) < 5ms"}, ExitUsage},
		{[]string{"sla", "--rate", "100", "--p99", "20ms", "--repeat", "3", "--require", "5/5"}, ExitUsage},
		{[]string{"sla", "--rate", "100", "--p99", "20ms", "--require", "6/5"}, ExitUsage},
		{[]string{"catalog", "run", "insert_docsize", "--threshold", "rate >= 99%"}, ExitUsage},
	}
	for _, c := range cases {
		t.Run(fmt.Sprint(c.args), func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			if got := Main(context.Background(), c.args, &stdout, &stderr); got != c.want {
				t.Errorf("exit code %d, want %d\nstderr: %s", got, c.want, stderr.String())
			}
		})
	}
}

// TestExitCodeOfErrors checks that the exit code follows the error's type,
// never words a server or a driver may use in its message.
func TestExitCodeOfErrors(t *testing.T) {
	cases := []struct {
		name string
		err  error
		want int
	}{
		{"none", nil, ExitOK},
		{"usage", usage(errors.New("--rate: want a positive rate")), ExitUsage},
		{"bad URI", fmt.Errorf("connect: %w", runner.ErrBadURI), ExitUsage},
		{"interrupted", fmt.Errorf("run: %w", errInterrupted), ExitInterrupted},
		{"verdict", study.VerdictFailed("run %s: 1 of 1 thresholds failed", "x"), ExitVerdict},
		{"verdict wrapped", fmt.Errorf("sweep: %w", study.VerdictFailed("no target rate held")), ExitVerdict},
		{"server needs authentication", errors.New("insert: (Unauthorized) command insert requires authentication"), ExitFailure},
		{"server words like cobra's", errors.New(`find: accepts 1 arg(s), invalid argument "x", unknown flag, flag needs an argument`), ExitFailure},
		{"unknown command inside a message", errors.New(`run: server says: unknown command "foo" for "mongobench"`), ExitFailure},
		{"plain failure", errors.New("store the result: disk full"), ExitFailure},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			a := &app{stdout: io.Discard, stderr: io.Discard}
			if got := a.exitCode(c.err); got != c.want {
				t.Errorf("exitCode(%v) = %d, want %d", c.err, got, c.want)
			}
		})
	}
}
