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
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// TestInterruptStoresPartialResult cancels a run in its measured phase, as
// Ctrl-C does: exit 130, and the result is stored, marked partial, with
// what was measured up to the stop.
func TestInterruptStoresPartialResult(t *testing.T) {
	uri := testenv.URI(t)
	file := filepath.Join(t.TempDir(), "results.jsonl")
	db := testenv.DBName(t)
	c := connect(t, uri)
	dropAfter(t, c, db)
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(4*time.Second, cancel)
	var out, errOut bytes.Buffer
	code := cli.Main(ctx, []string{"run", "--uri", uri, "--database", db, "--rate", "200/s", "--duration", "60s",
		"--warmup", "1s", "-p", "records=200", "--results-file", file, "--no-report"}, &out, &errOut)
	if code != cli.ExitInterrupted {
		t.Fatalf("exit: got %d want %d\nstderr: %s", code, cli.ExitInterrupted, errOut.String())
	}
	docs, err := store.NewFile(file).List(context.Background(), 0)
	if err != nil || len(docs) != 1 {
		t.Fatalf("stored runs: got %d (%v), want 1", len(docs), err)
	}
	d := docs[0]
	if !d.Partial || d.PartialReason != "interrupted" {
		t.Errorf("partial: got %v %q, want true \"interrupted\"", d.Partial, d.PartialReason)
	}
	if n := d.TestResults.NOps; n == nil {
		t.Errorf("nOps: missing")
	}
	if d.Schedule.Intended < 100 || d.Duration > 10000 {
		t.Errorf("measured %d ops in %.0f ms, want a few hundred in a few seconds", d.Schedule.Intended, d.Duration)
	}
	if !strings.Contains(out.String(), "PARTIAL") || !strings.Contains(errOut.String(), "partial result is stored") {
		t.Errorf("output does not say the run is partial and stored:\nstdout: %s\nstderr: %s", out.String(), errOut.String())
	}
	// A stopped run is judged neither client- nor server-bound: its
	// schedule ended because of the stop, not for want of headroom.
	if d.Client.ClientBound || d.Client.ServerBound || d.Client.NotJudged == "" ||
		strings.Contains(out.String(), "client-bound run") || !strings.Contains(out.String(), "judged neither") {
		t.Errorf("interrupted run: client-bound %v, server-bound %v, not judged %q; want neither, said so:\n%s",
			d.Client.ClientBound, d.Client.ServerBound, d.Client.NotJudged, out.String())
	}
	_ = os.Remove(file)
}
