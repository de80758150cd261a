package cli_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/cli"
)

// Every read is bounded (issue 24, item 4): a FIFO where a file is
// expected is refused at once (as credentials it blocked), and a file
// past its bound is one error naming the file and the bound (-P /dev/zero,
// --atlas-credentials /dev/zero and results import /dev/zero grew by
// hundreds of MB a second). Each is refused before anything connects
// (results import opens its store first: it takes the test server). A run that does not return within 5 s fails the
// test instead of hanging it.
func TestReadsAreBounded(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	sized := func(name string, n int, line string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, bytes.Repeat([]byte(line), n/len(line)+1), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	props := sized("big.properties", 2<<20, "recordcount=1000\n")
	creds := sized("big-credentials.json", 100<<10, " ")
	scenario := sized("big-scenario.yaml", 5<<20, "# a comment\n")
	results := filepath.Join(dir, "r.jsonl")
	run := []string{"run", "--uri", "mongodb://127.0.0.1:1/", "--results-file", results, "--no-report", "--duration", "1s"}
	const storeURI = "mongodb://127.0.0.1:1/" // import reads and checks its files before it connects
	atlas := []string{"--workload", "kv", "--atlas-project", "p", "--atlas-cluster", "c", "--atlas-credentials"}
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"-P FIFO", append(run, "-P", fifo), "-P " + fifo + ": a FIFO, not a regular file"},
		{"-P 2MB", append(run, "-P", props), "-P " + props + ": larger than its bound: YCSB property files (-P) can be at most 1MB"},
		{"-P /dev/zero", append(run, "-P", "/dev/zero"), "-P /dev/zero: a device, not a regular file"},
		{"--atlas-credentials FIFO", append(append(run, atlas...), fifo), fifo + ": a FIFO, not a regular file"},
		{"--atlas-credentials 100kB", append(append(run, atlas...), creds), "--atlas-credentials can be at most 64kB"},
		{"--atlas-credentials /dev/zero", append(append(run, atlas...), "/dev/zero"), "/dev/zero: a device, not a regular file"},
		{"scenario FIFO", append(run, fifo), fifo + ": a FIFO, not a regular file"},
		{"scenario 5MB", append(run, scenario), "scenario, plan and targets files can be at most 4MB"},
		{"tables template FIFO", []string{"tables", fifo, "--results", "mongodb://127.0.0.1:1/"}, fifo + ": a FIFO, not a regular file"},
		{"report --template /dev/zero", []string{"report", "--template", "/dev/zero", "--results", "mongodb://127.0.0.1:1/"}, "/dev/zero: a device, not a regular file"},
		{"results import FIFO", []string{"results", "import", fifo, "--results", storeURI}, fifo + ": a FIFO, not a regular file"},
		{"results import /dev/zero", []string{"results", "import", "/dev/zero", "--results", storeURI}, "/dev/zero: a device, not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			var out, errOut bytes.Buffer
			done := make(chan int, 1)
			go func() { done <- cli.Main(ctx, tc.args, &out, &errOut) }()
			select {
			case code := <-done:
				if code == 0 || !strings.Contains(errOut.String(), tc.want) {
					t.Errorf("exit %d, stderr:\n%s\nwant an error containing %q", code, errOut.String(), tc.want)
				}
				if n := strings.Count(errOut.String(), "\n"); n > 3 {
					t.Errorf("%d lines of stderr, want one error:\n%s", n, errOut.String())
				}
			case <-time.After(5 * time.Second):
				cancel()
				t.Fatalf("still reading 5 s later (stderr so far: %q)", errOut.String())
			}
		})
	}
}
