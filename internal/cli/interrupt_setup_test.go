package cli_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// cancelOn is standard error that cancels the run, as Ctrl-C does, a
// little after the progress line that starts the stage under test appears
// (not after a fixed time, which a busy host may spend still connecting).
type cancelOn struct {
	mu        sync.Mutex
	buf       bytes.Buffer
	marker    string
	after     time.Duration
	cancel    func()
	cancelled time.Time
	armed     bool
}

func (c *cancelOn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.buf.Write(p)
	if !c.armed && strings.Contains(c.buf.String(), c.marker) {
		c.armed = true
		time.AfterFunc(c.after, func() {
			c.mu.Lock()
			c.cancelled = time.Now()
			c.mu.Unlock()
			c.cancel()
		})
	}
	return len(p), nil
}

func (c *cancelOn) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}

// TestInterruptBeforeMeasuring cancels a run, as Ctrl-C does, during its
// preload and during its warm-up: it exits 130 within 2 s with one clean
// line that says nothing was measured (no driver message), and stores
// nothing.
func TestInterruptBeforeMeasuring(t *testing.T) {
	uri := testenv.URI(t)
	tests := []struct {
		name   string
		args   []string
		marker string // the progress line that starts the stage
		stage  string
	}{
		{"preload", []string{"--workload", "kv", "-p", "records=5000000", "-p", "docSize=1KB", "--duration", "5s"}, "preload ", "setup"},
		{"warm-up", []string{"--workload", "kv", "-p", "records=200", "--rate", "100/s", "--warmup", "60s", "--duration", "5s"}, "connecting 64/64 (100%)", "warm-up"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			file := filepath.Join(t.TempDir(), "results.jsonl")
			db := testenv.DBName(t)
			t.Cleanup(func() {
				var o bytes.Buffer
				cli.Main(context.Background(), []string{"clean", "--uri", uri, "--database", db}, &o, &o)
			})
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var out bytes.Buffer
			errOut := &cancelOn{marker: tc.marker, after: 500 * time.Millisecond, cancel: cancel}
			code := cli.Main(ctx, append([]string{"run", "--uri", uri, "--database", db, "--results-file", file, "--no-report"}, tc.args...), &out, errOut)
			errOut.mu.Lock()
			cancelled := errOut.cancelled
			errOut.mu.Unlock()
			if cancelled.IsZero() {
				t.Fatalf("the run ended before its stage began (no %q on standard error); stderr:\n%s", tc.marker, errOut)
			}
			stopped := time.Since(cancelled)
			if code != cli.ExitInterrupted {
				t.Errorf("exit %d, want %d; stderr:\n%s", code, cli.ExitInterrupted, errOut.String())
			}
			if stopped > 2*time.Second {
				t.Errorf("ended %s after the interrupt, want within 2s", stopped.Round(time.Millisecond))
			}
			lines := strings.Split(strings.TrimRight(errOut.String(), "\n"), "\n")
			last := lines[len(lines)-1]
			want := "mongobench: interrupted during " + tc.stage + "; nothing was measured"
			if !strings.HasPrefix(last, want) {
				t.Errorf("last line %q, want it to start %q; stderr:\n%s", last, want, errOut.String())
			}
			for _, raw := range []string{"context canceled", "connection(", "socket", "server selection"} {
				if strings.Contains(errOut.String(), raw) {
					t.Errorf("stderr carries a raw driver message (%q):\n%s", raw, errOut.String())
				}
			}
			if data, err := os.ReadFile(file); err == nil && len(data) > 0 {
				t.Errorf("a run that measured nothing stored %d bytes", len(data))
			}
		})
	}
}
