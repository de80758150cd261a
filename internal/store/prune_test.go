package store_test

import (
	"context"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// TestPruneRemovesOldRunsWithTheirIntervals: old runs go with their
// full-resolution records; a variant's latest row, a new run and a
// document mongobench did not write stay.
func TestPruneRemovesOldRunsWithTheirIntervals(t *testing.T) {
	ctx := context.Background()
	c := connect(t)
	dbName := testenv.DBName(t)
	t.Cleanup(func() { _ = c.Database(dbName).Drop(context.Background()) })
	st := store.NewMongo(c, dbName, "the test server")
	now := time.Now().UTC().Truncate(time.Millisecond)
	old := now.Add(-100 * 24 * time.Hour)
	long := longDoc(t, "run-old-long", 1500, []string{"READ"}, []string{result.CPUUser}, nil)
	long.Start, long.End = old, old.Add(1500*time.Second)
	long.ID = sampleDoc(t, "x", "v1", old).ID
	for _, d := range []*result.Doc{long, sampleDoc(t, "run-old-a", "v1", old.Add(time.Hour)), sampleDoc(t, "run-old-b", "v2", old),
		sampleDoc(t, "run-new-b", "v2", now)} {
		if err := st.Save(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	history := c.Database(dbName).Collection(store.HistoryCollection)
	if _, err := history.InsertOne(ctx, bson.D{{Key: "_id", Value: "not-ours"}, {Key: "start", Value: old}}); err != nil {
		t.Fatal(err)
	}
	before := now.Add(-90 * 24 * time.Hour)
	// Nothing older than a thousand days: nothing to remove, no error.
	if none, err := st.Prune(ctx, store.Prune{Before: now.Add(-1000 * 24 * time.Hour), DryRun: true}); err != nil || none.Runs != 0 || none.Records != 0 {
		t.Fatalf("nothing old enough: %+v, %v", none, err)
	}
	dry, err := st.Prune(ctx, store.Prune{Before: before, DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	// run-old-long is superseded by run-old-a (same variant, later);
	// run-old-a is v1's latest row; run-old-b is superseded by run-new-b.
	if dry.Runs != 2 || dry.Latest != 0 || dry.Foreign != 1 || dry.Records != 1500+1500 {
		t.Fatalf("dry run %+v, want 2 runs, 0 latest, 1 foreign, 3000 records", dry)
	}
	if n, _ := history.CountDocuments(ctx, bson.D{}); n != 5 {
		t.Fatalf("a dry run removed documents: %d left of 5", n)
	}
	got, err := st.Prune(ctx, store.Prune{Before: before})
	if err != nil || got != dry {
		t.Fatalf("prune %+v, %v; want what the dry run said, %+v", got, err, dry)
	}
	for id, want := range map[string]int64{"run-old-long": 0, "run-old-b": 0, "run-old-a": 1, "run-new-b": 1, "not-ours": 1} {
		if n, _ := history.CountDocuments(ctx, bson.D{{Key: "_id", Value: id}}); n != want {
			t.Errorf("history %s: %d documents, want %d", id, n, want)
		}
	}
	if n, _ := c.Database(dbName).Collection(store.IntervalsCollection).CountDocuments(ctx, bson.D{}); n != 0 {
		t.Errorf("%d full-resolution records left, want none", n)
	}
	all, err := st.Prune(ctx, store.Prune{Before: before, Latest: true})
	if err != nil || all.Runs != 1 || all.Latest != 1 {
		t.Errorf("prune --latest %+v, %v; want run-old-a, the latest of v1", all, err)
	}
}
