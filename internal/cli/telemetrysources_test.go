package cli_test

import (
	"path/filepath"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// --telemetry names the sources a run reads: with proc and connections,
// the stored run has this host's CPU series (proc) and the server's
// connection counts as series (connections), and nothing from the
// sources left out; a name that is no source is refused before the run,
// with the valid names.
func TestTelemetrySourcesChosen(t *testing.T) {
	uri := testenv.URI(t)
	c := connect(t, uri)
	db := testenv.DBName(t)
	dropAfter(t, c, db)
	o := mb(t, "run", "--uri", uri, "--database", db, "--threads", "2", "--duration", "2s", "--warmup", "0s",
		"-p", "records=200", "--results-file", filepath.Join(t.TempDir(), "r.jsonl"), "--no-report", "--json",
		"--telemetry", "proc", "--telemetry", "connections")
	wantCode(t, o, cli.ExitOK)
	var d result.Doc
	if err := bson.UnmarshalExtJSON([]byte(o.stdout), false, &d); err != nil {
		t.Fatalf("stdout is not one result document: %v\n%.300s", err, o.stdout)
	}
	for _, name := range []string{"SERVER_CONNECTIONS", "SERVER_CONNECTIONS_AVAILABLE", "SERVER_CONNECTIONS_CREATED"} {
		if s := d.Metrics.Series(name); s == nil || s.Source != "serverStatus" || len(s.DataPoints) == 0 {
			t.Errorf("%s: %+v, want a series from serverStatus", name, s)
		}
	}
	if s := d.Metrics.Series(result.CPUUser); s == nil || s.Source != "local" {
		t.Errorf("%s: %+v, want this host's /proc (source local)", result.CPUUser, s)
	}
	o = mb(t, "run", "--uri", uri, "--database", db, "--ops", "10", "--telemetry", "proc,prok")
	wantCode(t, o, cli.ExitUsage)
	if msg := errorLine(t, o, false); !strings.Contains(msg, `--telemetry: "prok" is no telemetry source`) || !strings.Contains(msg, "connections") {
		t.Errorf("an unknown source: got %q", msg)
	}
}
