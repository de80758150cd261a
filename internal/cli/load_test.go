package cli_test

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// TestLoad measures YCSB-A's load of 3,000 records in batches of 500 by 3
// loaders, over the wire client and over the driver: each one stored run
// of test ycsb-a, phase load, six BATCH-INSERT operations, the records and
// their rates in testResults, the client that ran in test_config, and the
// records in the table; both clients load the same bytes.
func TestLoad(t *testing.T) {
	uri := testenv.URI(t)
	c := connect(t, uri)
	loaded := map[string]any{}
	base := testenv.DBName(t)
	for _, client := range []string{"wire", "driver"} {
		dir := t.TempDir()
		file := filepath.Join(dir, "results.jsonl")
		db := base + "_" + client
		dropAfter(t, c, db)
		o := mb(t, "load", "--uri", uri, "--database", db, "--workload", "ycsb-a", "-p", "recordcount=3000",
			"-p", "batchSize=500", "-p", "loaders=3", "-p", "client="+client, "--results-file", file, "--report-dir", filepath.Join(dir, "reports"))
		wantCode(t, o, cli.ExitOK)
		if !strings.Contains(o.stdout, "loaded 3000 records") || !strings.Contains(o.stdout, "docs/s") || !strings.Contains(o.stdout, "MB/s") {
			t.Errorf("%s: output lacks the load line:\n%s", client, o)
		}
		n, err := c.Database(db).Collection("usertable").CountDocuments(context.Background(), bson.D{})
		if err != nil || n != 3000 {
			t.Errorf("%s: usertable: got %d records (%v), want 3000", client, n, err)
		}
		d := lastRun(t, file)
		if d.TestName != "ycsb-a" || d.Variant["phase"] != "load" || d.Schedule.Workers != 3 || d.TestConfig["client"] != client {
			t.Errorf("%s: run: test %q, phase %v, %d workers, client %v; want ycsb-a, load, 3, %s",
				client, d.TestName, d.Variant["phase"], d.Schedule.Workers, d.TestConfig["client"], client)
		}
		if op := d.Op("BATCH-INSERT"); op == nil || op.Count != 6 || op.Errors.Total != 0 {
			t.Errorf("%s: ops: got %+v, want 6 BATCH-INSERT, no errors", client, d.Ops)
		}
		tr := stored(t, d.TestResults)
		if tr["docs"] != int64(3000) || tr["bytes"] == nil || tr["docsPerSec"] == nil || tr["MBPerSec"] == nil {
			t.Errorf("%s: testResults: got %v, want docs 3000, bytes, docsPerSec, MBPerSec", client, tr)
		}
		loaded[client] = tr["bytes"]
	}
	if loaded["wire"] != loaded["driver"] {
		t.Errorf("bytes loaded: wire %v, driver %v; want the same records", loaded["wire"], loaded["driver"])
	}

	// A run with load=false runs over the loaded records, and refuses a
	// table that does not hold the records it expects.
	db := base + "_wire"
	file := filepath.Join(t.TempDir(), "run.jsonl")
	run := func(records string) outcome {
		return mb(t, "run", "--uri", uri, "--database", db, "--workload", "ycsb-c", "--threads", "2", "--ops", "500",
			"-p", "recordcount="+records, "-p", "load=false", "--results-file", file, "--no-report")
	}
	o := run("3000")
	wantCode(t, o, cli.ExitOK)
	if d := lastRun(t, file); d.TestConfig["loadedBefore"] != true || d.Op("READ") == nil || d.Op("READ").Count != 500 {
		t.Errorf("run over the load: loadedBefore %v, ops %+v; want true and 500 reads", d.TestConfig["loadedBefore"], d.Ops)
	}
	o = run("5000")
	wantCode(t, o, cli.ExitFailure)
	if msg := errorLine(t, o, true); !strings.Contains(msg, "usertable holds 3000 records, the run expects 5000") {
		t.Errorf("wrong recordcount: got %q", msg)
	}
}

func TestLoadBadInput(t *testing.T) {
	for _, args := range [][]string{
		{"load"},
		{"load", "--workload", "kv"},
		{"load", "--workload", "ycsb-z"},
		{"load", "--workload", "ycsb-a", "-p", "batchSize=0"},
		{"load", "--workload", "ycsb-a", "-p", "recordcount=10", "-p", "insertstart=10"},
	} {
		o := mb(t, args...)
		wantCode(t, o, cli.ExitUsage)
		wantQuick(t, o, usageFast)
	}
}

// lastRun is the newest run stored in a results file.
func lastRun(t *testing.T, file string) result.Doc {
	t.Helper()
	docs, err := store.NewFile(file).List(context.Background(), 1)
	if err != nil || len(docs) != 1 {
		t.Fatalf("stored runs in %s: got %d (%v), want at least one", file, len(docs), err)
	}
	return docs[0]
}
