package cli_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// --ftdc DIR on a measuring command: after the run, the run's seconds of
// the directory's FTDC files (written by the test encoder beforehand,
// sampling from before the run to after it) are in the stored run's
// series at one point a second with source ftdc, and a note says so; a
// directory with no sample in the run's window adds a one-line note and
// nothing else; a directory without FTDC files is refused before the
// run.
func TestRunWithFTDC(t *testing.T) {
	uri := testenv.URI(t)
	c := connect(t, uri)
	db := testenv.DBName(t)
	dropAfter(t, c, db)
	t0 := time.Now().Truncate(time.Second).Add(-5 * time.Second)
	now := ftdcDir(t, t0, 60, true, never, never)
	past := ftdcDir(t, t0.Add(-2*time.Hour), 30, true, never, never)
	run := func(dir string) result.Doc {
		t.Helper()
		o := mb(t, "run", "--uri", uri, "--database", db, "--rate", "200/s", "--duration", "3s", "--warmup", "1s",
			"-p", "records=200", "--results-file", filepath.Join(t.TempDir(), "r.jsonl"), "--no-report", "--json", "--ftdc", dir)
		wantCode(t, o, cli.ExitOK)
		var d result.Doc
		if err := bson.UnmarshalExtJSON([]byte(o.stdout), false, &d); err != nil {
			t.Fatalf("stdout is not one result document: %v\n%.300s", err, o.stdout)
		}
		return d
	}
	d := run(now)
	secs := int(d.Duration / 1000)
	for _, name := range []string{result.CheckpointRunning, result.TicketsOut, result.CacheUsed} {
		s := d.Metrics.Series(name)
		if s == nil || s.Source != "ftdc" || s.GranularitySec != 1 || len(s.DataPoints) < secs || len(s.DataPoints) > secs+3 {
			t.Errorf("%s series %+v: want source ftdc, a point a second over the %d s run", name, s, secs)
		}
	}
	if !hasNote(d, "series from the server's FTDC files ("+now+")") {
		t.Errorf("notes %q: want the attached series named", d.Notes)
	}
	d = run(past)
	if d.Metrics.Series(result.CheckpointRunning) != nil || !hasNote(d, "--ftdc "+past+": no FTDC sample in the run's window") {
		t.Errorf("notes %q: want the empty window said, and no FTDC series", d.Notes)
	}
	o := mb(t, "run", "--uri", uri, "--database", db, "--ops", "10", "--ftdc", t.TempDir())
	wantCode(t, o, cli.ExitUsage)
	if msg := errorLine(t, o, false); !strings.Contains(msg, "--ftdc") || !strings.Contains(msg, "no metrics.* files") {
		t.Errorf("a directory without FTDC files: got %q", msg)
	}
}

func hasNote(d result.Doc, prefix string) bool {
	for _, n := range d.Notes {
		if strings.HasPrefix(n, prefix) && !strings.Contains(n, "\n") {
			return true
		}
	}
	return false
}
