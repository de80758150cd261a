package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// dumpSorted is a collection's documents in _id order, each as canonical
// Extended JSON: two dumps are equal only when the collection is byte for
// byte the same.
func dumpSorted(t *testing.T, coll *mongo.Collection) []byte {
	t.Helper()
	ctx := context.Background()
	cur, err := coll.Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
	if err != nil {
		t.Fatal(err)
	}
	defer cur.Close(ctx)
	var b bytes.Buffer
	for cur.Next(ctx) {
		js, err := bson.MarshalExtJSON(cur.Current, true, false)
		if err != nil {
			t.Fatal(err)
		}
		b.Write(js)
		b.WriteByte('\n')
	}
	if err := cur.Err(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// The five attacks of issue 24 leave the results and the history byte
// for byte as they were, create no collection, and each is refused
// naming the block's line and the stage.
func TestTemplateAttacksWriteNothing(t *testing.T) {
	uri := testenv.URI(t)
	name := seedResults(t, uri)
	c := testenv.Client(t, uri)
	ctx := context.Background()
	db := c.Database(store.DefaultDatabase)
	hist := db.Collection(store.HistoryCollection)
	for i := range 2 {
		id := fmt.Sprintf("%s-run-%d", name, i)
		if _, err := hist.InsertOne(ctx, bson.D{{Key: "_id", Value: id}, {Key: "runId", Value: id}, {Key: "testName", Value: name}}); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { _, _ = hist.DeleteMany(context.Background(), bson.D{{Key: "testName", Value: name}}) })
	results := db.Collection(store.ResultsCollection)
	before := [][]byte{dumpSorted(t, results), dumpSorted(t, hist)}
	if !bytes.Contains(before[0], []byte(name)) || !bytes.Contains(before[1], []byte(name+"-run-1")) {
		t.Fatalf("the seeded rows are not there:\n%s\n%s", before[0], before[1])
	}

	block := func(pipeline string) string {
		return fmt.Sprintf("# Attack\n\n<!-- MONGO_TABLE:\n{\"collection\": \"results\",\n \"pipeline\": %s,\n \"columns\": [\"x\"]} -->\n", pipeline)
	}
	attacks := []struct {
		cmd      string
		pipeline string
		stage    string
	}{
		{"tables", `[{"$match": {}}, {"$out": "history"}]`, "stage 2 ($out): $out writes a collection"},
		{"tables", `[{"$out": "results"}]`, "stage 1 ($out): $out writes a collection"},
		{"tables", `[{"$project": {"_id": 1}}, {"$merge": {"into": "results", "whenMatched": "replace"}}]`, "stage 2 ($merge): $merge writes a collection"},
		{"tables", `[{"$out": {"db": "mongobench_data", "coll": "stolen"}}]`, "stage 1 ($out): $out writes a collection"},
		{"report", `[{"$out": "created_by_report"}]`, "stage 1 ($out): $out writes a collection"},
		{"tables", `[{"$lookup": {"from": "history", "pipeline": [{"$merge": "results"}], "as": "h"}}]`, "stage 1 ($lookup): $merge at $lookup.pipeline[0].$merge"},
		{"tables", `[{"$project": {"x": {"$function": {"body": "function() { return 1 }", "args": [], "lang": "js"}}}}]`, "stage 1 ($project): $function at $project.x.$function runs server-side JavaScript"},
	}
	for _, a := range attacks {
		tpl := writeTemplate(t, block(a.pipeline))
		args := []string{"tables", tpl, "--results", uri}
		if a.cmd == "report" {
			args = []string{"report", "--template", tpl, "-o", filepath.Join(t.TempDir(), "r.md"), "--results", uri}
		}
		o := mb(t, args...)
		wantCode(t, o, cli.ExitFailure)
		want := tpl + ":3: MONGO_TABLE: pipeline " + a.stage
		if msg := errorLine(t, o, false); !strings.Contains(msg, want) {
			t.Errorf("%s %s: got %q, want it to contain %q", a.cmd, a.pipeline, msg, want)
		}
	}

	after := [][]byte{dumpSorted(t, results), dumpSorted(t, hist)}
	for i, coll := range []string{"results", "history"} {
		if !bytes.Equal(before[i], after[i]) {
			t.Errorf("%s changed:\nbefore\n%s\nafter\n%s", coll, before[i], after[i])
		}
	}
	for _, w := range []struct{ db, coll string }{{"mongobench_data", "stolen"}, {store.DefaultDatabase, "created_by_report"}} {
		names, err := c.Database(w.db).ListCollectionNames(ctx, bson.D{{Key: "name", Value: w.coll}})
		if err != nil {
			t.Fatal(err)
		}
		if len(names) > 0 {
			t.Errorf("collection %s.%s was created", w.db, w.coll)
		}
	}
}
