package cli_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// A complete run streamed to a MongoDB results store: results rebuild
// finds its stored histograms equal to its intervals' and stores
// nothing; results prune --dry-run counts what it would remove, and a
// bad --older-than is refused naming what is valid.
func TestRebuildChecksACompleteRunAndPruneCounts(t *testing.T) {
	uri := testenv.URI(t)
	db := testenv.DBName(t)
	c := connect(t, uri)
	dropAfter(t, c, db)
	o := mb(t, "run", "--uri", uri, "--database", db, "--workload", "kv", "--rate", "300/s", "--duration", "2s", "--warmup", "0s",
		"-p", "records=200", "--results", uri, "--label", "rebuild-"+db, "--no-report", "--json")
	wantCode(t, o, cli.ExitOK)
	var d struct {
		RunID string `json:"runId"`
	}
	if err := json.Unmarshal([]byte(o.stdout), &d); err != nil || d.RunID == "" {
		t.Fatalf("run --json: %v\n%s", err, o.stdout)
	}
	t.Cleanup(func() {
		rdb := c.Database(store.DefaultDatabase)
		for _, coll := range []string{store.ResultsCollection, store.HistoryCollection} {
			_, _ = rdb.Collection(coll).DeleteMany(context.Background(), bson.D{{Key: "runId", Value: d.RunID}})
		}
		_, _ = rdb.Collection(store.IntervalsCollection).DeleteMany(context.Background(), bson.D{{Key: "run.id", Value: d.RunID}})
	})

	o = mb(t, "results", "rebuild", d.RunID, "--results", uri)
	wantCode(t, o, cli.ExitOK)
	if !strings.HasPrefix(o.stdout, "run "+d.RunID+" is complete; rebuilt from its ") || !strings.Contains(o.stdout, "histograms equal the stored ones (nothing stored)") {
		t.Errorf("rebuild of a complete run:\n%s", o)
	}

	o = mb(t, "results", "prune", "--older-than", "3650d", "--dry-run", "--results", uri)
	wantCode(t, o, cli.ExitOK)
	if !strings.HasPrefix(o.stdout, "would remove ") || !strings.Contains(o.stdout, "full-resolution records from ") {
		t.Errorf("prune --dry-run:\n%s", o)
	}
	o = mb(t, "results", "prune", "--older-than", "3 days", "--results", uri)
	wantCode(t, o, cli.ExitUsage)
	if line := errorLine(t, o, false); !strings.Contains(line, `--older-than: "3 days" is not valid: want days such as 90d or a duration such as 36h`) {
		t.Errorf("a bad age: %q", line)
	}
}
