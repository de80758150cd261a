package cli_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/server"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// A run against the embedded server (SecantusDB reports no WiredTiger:
// its checkpoint, cache and ticket rules cannot judge), then the
// server's FTDC files of its seconds attached (written by the test
// encoder, with MongoDB 7.0's names, a checkpoint running in the second
// that holds most of the run's tail): the run keeps its id, gains the
// series at one point a second with source ftdc, its own host series
// are kept, and the diagnosis judges checkpoints, cache and tickets from
// FTDC and names the checkpoint in the tail when the tail is there.
func TestAttachFTDC(t *testing.T) {
	h := testenv.Own(t, server.Options{})
	wantCode(t, mb(t, "run", "--uri", h.URI, "--database", testenv.DBName(t), "--workload", "kv", "--rate", "300/s",
		"--duration", "8s", "--warmup", "1s", "-p", "records=1000", "--results", h.URI, "--no-report"), cli.ExitOK)
	st := store.NewMongo(connect(t, h.URI), "mongobench", h.URI)
	ctx := context.Background()
	docs, err := st.List(ctx, 0)
	if err != nil || len(docs) != 1 {
		t.Fatalf("%d runs stored (%v)", len(docs), err)
	}
	d := docs[0]
	for _, nj := range d.Diagnosis.NotJudged {
		t.Logf("before: %s not judged: %s", nj.Rule, nj.Missing)
	}
	// The interval holding most of the tail, and the FTDC second whose
	// point lands in it: the pair that starts within (start, end].
	tail := d.Diagnosis.Tail
	worst := 0
	for i, n := range tail.PerInterval {
		if n > tail.PerInterval[worst] {
			worst = i
		}
	}
	t0 := d.Start.Truncate(time.Second).Add(-5 * time.Second)
	iv := d.Intervals[worst]
	stamp := iv.Start.Truncate(time.Second).Add(time.Second) // the whole second in (start, end]
	k := int(stamp.Sub(t0)/time.Second) + 1
	n := int(d.End.Sub(t0)/time.Second) + 10
	dir := ftdcDir(t, t0, n, false, never, func(sec int) bool { return sec == k })

	o := mb(t, "results", "attach-ftdc", d.RunID, dir, "--results", h.URI)
	wantCode(t, o, cli.ExitOK)
	if !strings.Contains(o.stdout, "run "+d.RunID+": ") || !strings.Contains(o.stdout, "FTDC samples attached") {
		t.Errorf("output:\n%s", o.stdout)
	}
	got, err := st.Get(ctx, d.RunID)
	if err != nil {
		t.Fatal(err)
	}
	hist, err := connect(t, h.URI).Database("mongobench").Collection(store.HistoryCollection).CountDocuments(ctx, bson.D{{Key: "runId", Value: d.RunID}})
	if err != nil || hist != 1 {
		t.Fatalf("history rows of run %s: %d (%v), want 1", d.RunID, hist, err)
	}
	secs := int(d.Duration / 1000)
	for _, name := range []string{result.CheckpointRunning, result.CacheUsed, result.CacheDirty, result.TicketsOut, result.OpTimeWrites} {
		s := got.Metrics.Series(name)
		if s == nil {
			t.Errorf("no %s series", name)
			continue
		}
		if s.Source != "ftdc" || s.GranularitySec != 1 || len(s.DataPoints) < secs || len(s.DataPoints) > secs+3 {
			t.Errorf("%s: source %q, granularity %v, %d points for a %d s run", name, s.Source, s.GranularitySec, len(s.DataPoints), secs)
		}
	}
	for _, s := range d.Metrics.Measurements { // the run's own host series stay
		if g := got.Metrics.Series(s.Name); g == nil || g.Source != s.Source {
			t.Errorf("the run's own %s (source %s) was not kept", s.Name, s.Source)
		}
	}
	for _, nj := range got.Diagnosis.NotJudged {
		if nj.Rule == "checkpoints" || nj.Rule == "cache" || nj.Rule == "tickets" {
			t.Errorf("after attach-ftdc, %s not judged: %s", nj.Rule, nj.Missing)
		}
	}
	if len(got.Notes) != len(d.Notes)+1 || !strings.Contains(got.Notes[len(got.Notes)-1], "series from the server's FTDC files") {
		t.Errorf("notes %q", got.Notes)
	}
	gt := got.Diagnosis.Tail
	t.Logf("tail per interval %v (interval %d has the checkpoint)\n%s", gt.PerInterval, worst, gt.Line)
	if tail.Above > 0 && float64(tail.PerInterval[worst]) >= 0.25*float64(tail.Above) {
		found := false
		for _, c := range gt.Causes {
			found = found || (c.Series == result.CheckpointRunning && c.Source == "ftdc")
		}
		if !found {
			t.Errorf("interval %d holds %d of %d operations above p99 and had the checkpoint; causes %+v", worst, tail.PerInterval[worst], tail.Above, gt.Causes)
		}
	}
	// Attached twice: replaced, not added again.
	wantCode(t, mb(t, "results", "attach-ftdc", d.RunID, dir, "--results", h.URI), cli.ExitOK)
	again, err := st.Get(ctx, d.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if len(again.Metrics.Measurements) != len(got.Metrics.Measurements) || !slices.Equal(again.Notes, got.Notes) {
		t.Errorf("a second attach-ftdc: %d series, then %d; notes %q, then %q", len(got.Metrics.Measurements), len(again.Metrics.Measurements), got.Notes, again.Notes)
	}
	// Ctrl-C during attach-ftdc: exit 130 and a sentence, never a bare
	// "context canceled".
	cctx, cancel := context.WithCancel(context.Background())
	cancel()
	var stdout, stderr strings.Builder
	if code := cli.Main(cctx, []string{"results", "attach-ftdc", d.RunID, dir, "--results", h.URI}, &stdout, &stderr); code != cli.ExitInterrupted ||
		!strings.Contains(stderr.String(), "interrupted: ") || strings.HasSuffix(strings.TrimSpace(stderr.String()), "context canceled") {
		t.Errorf("attach-ftdc interrupted: exit %d, stderr %q: want %d and a sentence", code, stderr.String(), cli.ExitInterrupted)
	}
	// A directory without the run's seconds: one line, nothing stored.
	other := ftdcDir(t, t0.Add(-24*time.Hour), 30, false, never, never)
	o = mb(t, "results", "attach-ftdc", d.RunID, other, "--results", h.URI)
	wantCode(t, o, cli.ExitUsage)
	if line := errorLine(t, o, false); !strings.Contains(line, "no FTDC samples of run "+d.RunID) {
		t.Errorf("%q", line)
	}
}
