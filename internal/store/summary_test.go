package store_test

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// TestSummariesAreTheSameEverywhere: a MongoDB store's projection and a
// results file's index give each run the summary store.Summary makes.
func TestSummariesAreTheSameEverywhere(t *testing.T) {
	ctx := context.Background()
	c := connect(t)
	dbName := testenv.DBName(t)
	t.Cleanup(func() { _ = c.Database(dbName).Drop(context.Background()) })
	m := store.NewMongo(c, dbName, "the test server")
	f := store.NewFile(filepath.Join(t.TempDir(), "runs.jsonl"))
	start := time.Now().UTC().Truncate(time.Millisecond)
	d := longDoc(t, "run-summary-0001", 30, []string{"READ", "UPDATE"}, []string{result.CPUUser}, nil)
	d.Start, d.Label, d.Tags = start, "m6i.large", []string{"nightly"}
	d.TestConfig = map[string]any{"workload": "ycsb-a", "recordcount": int64(1000)}
	d.Schedule.TargetRate, d.Schedule.AchievedRate = result.F(500), 499.5
	for _, st := range []store.Store{m, f} {
		if err := st.Save(ctx, d); err != nil {
			t.Fatal(err)
		}
		l, err := st.ListRuns(ctx, store.RunFilter{}, 0)
		if err != nil {
			t.Fatal(err)
		}
		got := l.Runs
		if len(got) != 1 {
			t.Fatalf("%s: %d summaries, want 1", st.Where(), len(got))
		}
		want := store.Summary(d)
		got[0].Start, want.Start = got[0].Start.UTC(), want.Start.UTC()
		got[0].End, want.End = got[0].End.UTC(), want.End.UTC()
		if !reflect.DeepEqual(got[0], want) {
			t.Errorf("%s: summary\n%+v\nwant\n%+v", st.Where(), got[0], want)
		}
		if len(got[0].Ops) != 1 || got[0].Ops[0].Latency.P99 == nil || got[0].Ops[0].Latency.Hist != "" {
			t.Errorf("%s: summary ops %+v, want the p99 without the histogram", st.Where(), got[0].Ops)
		}
	}
}

// TestFileIndexFollowsTheFile: a results file's runs are read through
// its index, which takes in the lines appended and is read again when the
// file is replaced.
func TestFileIndexFollowsTheFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "runs.jsonl")
	f := store.NewFile(path)
	start := time.Now().UTC().Truncate(time.Millisecond)
	for i, id := range []string{"run-a-0001", "run-b-0002"} {
		if err := f.Save(ctx, sampleDoc(t, id, "v", start.Add(time.Duration(i)*time.Minute))); err != nil {
			t.Fatal(err)
		}
	}
	if l, err := f.ListRuns(ctx, store.RunFilter{}, 0); err != nil || len(l.Runs) != 2 || l.Runs[0].RunID != "run-b-0002" {
		t.Fatalf("runs %v, %v; want b then a", l, err)
	}
	if err := f.Save(ctx, sampleDoc(t, "run-c-0003", "v", start.Add(2*time.Minute))); err != nil {
		t.Fatal(err)
	}
	d, err := f.Get(ctx, "run-c")
	if err != nil || d.RunID != "run-c-0003" || d.Ops[0].Latency.Hist == "" {
		t.Fatalf("Get of an appended run: %v, %v; want it whole", d, err)
	}
	if _, err := f.Get(ctx, "run-"); err == nil {
		t.Error("Get of a prefix of three runs: no error, want ambiguous")
	}
	g := store.NewFile(path + ".new")
	if err := g.Save(ctx, sampleDoc(t, "run-z-0009", "v", start)); err != nil {
		t.Fatal(err)
	}
	if err := renameOver(path+".new", path); err != nil {
		t.Fatal(err)
	}
	l, err := f.ListRuns(ctx, store.RunFilter{}, 0)
	if err != nil || len(l.Runs) != 1 || l.Runs[0].RunID != "run-z-0009" {
		t.Fatalf("after the file was replaced: %v, %v; want run-z alone", l, err)
	}
}

func renameOver(from, to string) error { return os.Rename(from, to) }

// TestListRunsFilters: both stores select the same runs, newest first,
// count them and offer every run's values as choices.
func TestListRunsFilters(t *testing.T) {
	ctx := context.Background()
	c := connect(t)
	dbName := testenv.DBName(t)
	t.Cleanup(func() { _ = c.Database(dbName).Drop(context.Background()) })
	day := time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)
	mk := func(id, label string, start time.Time, tags ...string) *result.Doc {
		d := sampleDoc(t, id, id, start)
		d.Label, d.Tags, d.TestConfig = label, tags, map[string]any{"workload": "kv"}
		return d
	}
	docs := []*result.Doc{mk("r1", "a", day, "nightly", "x"), mk("r2", "a", day.Add(24*time.Hour), "nightly"), mk("r3", "b", day.Add(48*time.Hour))}
	for _, st := range []store.Store{store.NewMongo(c, dbName, "the test server"), store.NewFile(filepath.Join(t.TempDir(), "runs.jsonl"))} {
		for _, d := range docs {
			if err := st.Save(ctx, d); err != nil {
				t.Fatal(err)
			}
		}
		d5 := time.Date(2026, 3, 5, 0, 0, 0, 0, time.UTC)
		for _, cs := range []struct {
			f    store.RunFilter
			want string
		}{
			{store.RunFilter{}, "r3 r2 r1"},
			{store.RunFilter{Label: "a"}, "r2 r1"},
			{store.RunFilter{Tag: "x"}, "r1"},
			{store.RunFilter{Workload: "kv", Test: "store-test"}, "r3 r2 r1"},
			{store.RunFilter{Workload: "ycsb-a"}, ""},
			{store.RunFilter{From: d5}, "r3 r2"},
			{store.RunFilter{To: d5}, "r1"},
			{store.RunFilter{From: d5, To: d5.Add(24 * time.Hour)}, "r2"},
			{store.RunFilter{From: d5, Label: "b"}, "r3"},
		} {
			l, err := st.ListRuns(ctx, cs.f, 0)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, r := range l.Runs {
				got = append(got, r.RunID)
			}
			if strings.Join(got, " ") != cs.want || l.Matched != len(got) || l.Total != 3 {
				t.Errorf("%s %+v: got %v (%d of %d), want %s of 3", st.Where(), cs.f, got, l.Matched, l.Total, cs.want)
			}
		}
		l, err := st.ListRuns(ctx, store.RunFilter{}, 2)
		if err != nil || len(l.Runs) != 2 || l.Matched != 3 {
			t.Errorf("%s: limit 2: %d runs of %d (%v), want 2 of 3", st.Where(), len(l.Runs), l.Total, err)
		}
		if ch := l.Choices; strings.Join(ch.Labels, ",") != "a,b" || strings.Join(ch.Tags, ",") != "nightly,x" || strings.Join(ch.Workloads, ",") != "kv" || strings.Join(ch.Tests, ",") != "store-test" {
			t.Errorf("%s: choices %+v", st.Where(), ch)
		}
	}
}

// TestSummariesOfAnOlderStore: runs stored before summaries were kept are
// listed (from the history) until a write completes their summaries.
func TestSummariesOfAnOlderStore(t *testing.T) {
	ctx := context.Background()
	c := connect(t)
	dbName := testenv.DBName(t)
	t.Cleanup(func() { _ = c.Database(dbName).Drop(context.Background()) })
	start := time.Now().UTC().Truncate(time.Millisecond)
	old := sampleDoc(t, "run-old-0001", "v1", start)
	b, err := bson.Marshal(old)
	if err != nil {
		t.Fatal(err)
	}
	var row bson.D
	if err := bson.Unmarshal(b, &row); err != nil {
		t.Fatal(err)
	}
	row = append(bson.D{{Key: "_id", Value: old.RunID}}, row...)
	if _, err := c.Database(dbName).Collection(store.HistoryCollection).InsertOne(ctx, row); err != nil {
		t.Fatal(err)
	}
	reader := store.NewMongo(c, dbName, "a reader")
	if l, err := reader.ListRuns(ctx, store.RunFilter{}, 0); err != nil || len(l.Runs) != 1 || l.Runs[0].RunID != old.RunID {
		t.Fatalf("before any write: %+v, %v; want the older run, from the history", l.Runs, err)
	}
	if n, _ := c.Database(dbName).Collection(store.SummariesCollection).CountDocuments(ctx, bson.D{}); n != 0 {
		t.Fatalf("a reader wrote %d summaries, want none", n)
	}
	if err := store.NewMongo(c, dbName, "a writer").Save(ctx, sampleDoc(t, "run-new-0002", "v2", start.Add(time.Minute))); err != nil {
		t.Fatal(err)
	}
	l, err := store.NewMongo(c, dbName, "another reader").ListRuns(ctx, store.RunFilter{}, 0)
	if err != nil || len(l.Runs) != 2 || l.Runs[1].RunID != old.RunID {
		t.Fatalf("after a write: %+v, %v; want both runs", l.Runs, err)
	}
	if n, _ := c.Database(dbName).Collection(store.SummariesCollection).CountDocuments(ctx, bson.D{{Key: "runId", Value: old.RunID}}); n != 1 {
		t.Errorf("the older run has %d summaries after a write, want 1", n)
	}
}
