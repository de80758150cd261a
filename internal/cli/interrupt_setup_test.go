package cli_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// TestInterruptBeforeMeasuring cancels a run, as Ctrl-C does, during its
// preload and during its warm-up: it exits 130 within 2 s with one clean
// line that says nothing was measured (no driver message), and stores
// nothing.
func TestInterruptBeforeMeasuring(t *testing.T) {
	uri := testenv.URI(t)
	tests := []struct {
		name  string
		args  []string
		after time.Duration
		stage string
	}{
		{"preload", []string{"--workload", "kv", "-p", "records=5000000", "-p", "docSize=1KB", "--duration", "5s"}, 1500 * time.Millisecond, "setup"},
		{"warm-up", []string{"--workload", "kv", "-p", "records=200", "--rate", "100/s", "--warmup", "60s", "--duration", "5s"}, 3 * time.Second, "warm-up"},
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
			var cancelled time.Time
			time.AfterFunc(tc.after, func() { cancelled = time.Now(); cancel() })
			var out, errOut bytes.Buffer
			code := cli.Main(ctx, append([]string{"run", "--uri", uri, "--database", db, "--results-file", file, "--no-report"}, tc.args...), &out, &errOut)
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
