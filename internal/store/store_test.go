package store_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/mongobench/mongobench/internal/hist"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// sampleDoc is a small but complete result: one operation with a latency
// distribution summarised from a real HDR histogram, encoded with it.
func sampleDoc(t *testing.T, runID, variant string, start time.Time) *result.Doc {
	t.Helper()
	h := hist.New()
	for i := 1; i <= 1000; i++ {
		hist.Record(h, time.Duration(i)*10*time.Microsecond)
	}
	hist.Record(h, 250*time.Millisecond)
	lat, err := hist.Summarize(h)
	if err != nil {
		t.Fatalf("summarize histogram: %v", err)
	}
	if lat.Hist == "" {
		t.Fatal("summarize histogram: got no encoded histogram, want one")
	}
	return &result.Doc{
		ID:            result.Ordered{{Key: "testname", Value: "store-test"}, {Key: "variant", Value: variant}},
		SchemaVersion: result.SchemaVersion,
		RunID:         runID,
		TestName:      "store-test",
		Start:         start,
		End:           start.Add(2 * time.Second),
		Duration:      2000,
		Schedule:      result.Schedule{Mode: "closed", Workers: 2, Intended: 1001},
		Ops: []result.OpStats{{
			Name: "read", Count: 1001, Rate: 500.5, Latency: lat, Service: lat,
		}},
		Target: result.Target{URI: "mongodb://user@127.0.0.1:27017/"},
	}
}

func connect(t *testing.T) *mongo.Client { return testenv.Client(t, testenv.URI(t)) }

func TestMongoSaveReplacesResultAndAppendsHistory(t *testing.T) {
	ctx := context.Background()
	c := connect(t)
	dbName := testenv.DBName(t)
	t.Cleanup(func() { _ = c.Database(dbName).Drop(context.Background()) })
	st := store.NewMongo(c, dbName, "the test server")

	start := time.Now().UTC().Truncate(time.Millisecond)
	first := sampleDoc(t, "run-alpha-0001", "v1", start)
	second := sampleDoc(t, "run-beta-0002", "v1", start.Add(time.Minute))
	for _, d := range []*result.Doc{first, second} {
		if err := st.Save(ctx, d); err != nil {
			t.Fatalf("Save(%s): got error %v, want nil", d.RunID, err)
		}
	}

	db := c.Database(dbName)
	for coll, want := range map[string]int64{store.ResultsCollection: 1, store.HistoryCollection: 2} {
		got, err := db.Collection(coll).CountDocuments(ctx, bson.D{})
		if err != nil {
			t.Fatalf("count %s: %v", coll, err)
		}
		if got != want {
			t.Errorf("documents in %s after two saves of one variant: got %d, want %d", coll, got, want)
		}
	}
	var row struct {
		RunID string `bson:"runId"`
	}
	if err := db.Collection(store.ResultsCollection).FindOne(ctx, bson.D{}).Decode(&row); err != nil {
		t.Fatalf("read the results row: %v", err)
	}
	if row.RunID != second.RunID {
		t.Errorf("results row runId: got %q, want the latest run %q", row.RunID, second.RunID)
	}

	got, err := st.Get(ctx, "run-al")
	if err != nil {
		t.Fatalf("Get(prefix run-al): got error %v, want nil", err)
	}
	if got.RunID != first.RunID {
		t.Errorf("Get(prefix run-al).RunID: got %q, want %q", got.RunID, first.RunID)
	}
	if v, _ := got.ID.Get("variant"); v != "v1" {
		t.Errorf("Get(prefix run-al).ID variant: got %v, want v1", v)
	}

	_, err = st.Get(ctx, "run-")
	if err == nil || !strings.Contains(err.Error(), "more than one run") {
		t.Errorf("Get(ambiguous prefix run-): got error %v, want one saying it matches more than one run", err)
	}
	_, err = st.Get(ctx, "nosuchrun")
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Get(nosuchrun): got error %v, want ErrNotFound", err)
	}
	// A prefix is matched literally, not as a regular expression.
	_, err = st.Get(ctx, "run.")
	if !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Get(run.): got error %v, want ErrNotFound (the dot is not a wildcard)", err)
	}

	list, err := st.List(ctx, 0)
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	if len(list) != 2 || list[0].RunID != second.RunID {
		t.Errorf("List: got %d runs, first %q; want 2, newest (%q) first", len(list), firstID(list), second.RunID)
	}
}

func firstID(docs []result.Doc) string {
	if len(docs) == 0 {
		return ""
	}
	return docs[0].RunID
}

func TestFileRoundTrip(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "results.jsonl")
	st := store.NewFile(path)
	start := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	older := sampleDoc(t, "file-run-0001", "a", start)
	newer := sampleDoc(t, "file-run-0002", "b", start.Add(time.Hour))
	for _, d := range []*result.Doc{older, newer} {
		if err := st.Save(ctx, d); err != nil {
			t.Fatalf("Save(%s): got error %v, want nil", d.RunID, err)
		}
	}

	list, err := st.List(ctx, 0)
	if err != nil {
		t.Fatalf("List: %v", err)
	}
	if len(list) != 2 || list[0].RunID != newer.RunID || list[1].RunID != older.RunID {
		t.Fatalf("List: got %d runs, first %q; want 2, newest (%q) first", len(list), firstID(list), newer.RunID)
	}
	if limited, _ := st.List(ctx, 1); len(limited) != 1 {
		t.Errorf("List(limit 1): got %d runs, want 1", len(limited))
	}

	got, err := st.Get(ctx, "file-run-0001")
	if err != nil {
		t.Fatalf("Get(file-run-0001): %v", err)
	}
	if !got.Start.Equal(older.Start) {
		t.Errorf("Start: got %v, want %v", got.Start, older.Start)
	}
	if v, _ := got.ID.Get("variant"); v != "a" {
		t.Errorf("ID variant: got %v, want a", v)
	}
	if len(got.Ops) != 1 {
		t.Fatalf("ops: got %d, want 1", len(got.Ops))
	}
	want, gotLat := older.Ops[0].Latency, got.Ops[0].Latency
	if gotLat.Count != want.Count {
		t.Errorf("latency count: got %d, want %d", gotLat.Count, want.Count)
	}
	for _, p := range []struct {
		name      string
		got, want *float64
	}{
		{"min", gotLat.Min, want.Min}, {"p50", gotLat.P50, want.P50}, {"p95", gotLat.P95, want.P95},
		{"p99", gotLat.P99, want.P99}, {"p99.9", gotLat.P999, want.P999}, {"max", gotLat.Max, want.Max},
	} {
		if p.got == nil || p.want == nil || *p.got != *p.want {
			t.Errorf("latency %s: got %v, want %v", p.name, deref(p.got), deref(p.want))
		}
	}
	if gotLat.Hist != want.Hist {
		t.Fatalf("encoded histogram changed in the round trip: got %d chars, want %d", len(gotLat.Hist), len(want.Hist))
	}
	h, err := hist.Decode(gotLat.Hist)
	if err != nil {
		t.Fatalf("decode the stored histogram: %v", err)
	}
	if got, want := h.TotalCount(), want.Count; got != want {
		t.Errorf("decoded histogram count: got %d, want %d", got, want)
	}
	if p99 := hist.Percentile(h, 99); p99 == nil || *p99 != *want.P99 {
		t.Errorf("decoded histogram p99: got %v, want %v", deref(p99), *want.P99)
	}

	if _, err := st.Get(ctx, "file-run-"); err == nil || !strings.Contains(err.Error(), "more than one run") {
		t.Errorf("Get(ambiguous prefix): got error %v, want one saying it matches more than one run", err)
	}
	if _, err := st.Get(ctx, "nope"); !errors.Is(err, store.ErrNotFound) {
		t.Errorf("Get(nope): got error %v, want ErrNotFound", err)
	}
}

func TestFileMissingIsEmpty(t *testing.T) {
	st := store.NewFile(filepath.Join(t.TempDir(), "none.jsonl"))
	list, err := st.List(context.Background(), 0)
	if err != nil || len(list) != 0 {
		t.Errorf("List of a missing file: got %d runs, error %v; want none, nil", len(list), err)
	}
}

func TestFileCorruptLineNamesFileAndLine(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "results.jsonl")
	st := store.NewFile(path)
	if err := st.Save(ctx, sampleDoc(t, "ok-run-0001", "a", time.Now().UTC())); err != nil {
		t.Fatalf("Save: %v", err)
	}
	f, err := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString("\n{\"runId\": \"broken\", \n"); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}

	for name, call := range map[string]func() error{
		"List": func() error { _, err := st.List(ctx, 0); return err },
		"Get":  func() error { _, err := st.Get(ctx, "ok-run"); return err },
	} {
		err := call()
		if err == nil {
			t.Errorf("%s on a corrupt file: got nil error, want one naming %s:3", name, path)
			continue
		}
		if want := path + ":3:"; !strings.Contains(err.Error(), want) {
			t.Errorf("%s on a corrupt file: got error %q, want it to contain %q", name, err, want)
		}
	}
}

func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestMongoSaveNestedIDReplaces saves runs whose _id holds a map (a
// target's instance) several times: the map's keys must be written in
// one order, so every save replaces the same results row, and _id.instance
// reads back by field.
func TestMongoSaveNestedIDReplaces(t *testing.T) {
	ctx := context.Background()
	c := connect(t)
	dbName := testenv.DBName(t)
	t.Cleanup(func() { _ = c.Database(dbName).Drop(context.Background()) })
	st := store.NewMongo(c, dbName, "the test server")
	start := time.Now().UTC().Truncate(time.Millisecond)
	for i := range 6 {
		d := sampleDoc(t, fmt.Sprintf("run-nested-%d", i), "v1", start.Add(time.Duration(i)*time.Second))
		d.ID = append(d.ID, result.KV{Key: "instance", Value: map[string]any{
			"atlasInstanceType": "m6i.xlarge", "atlasDiskType": "gp3", "atlasIOPS": int64(3000), "atlasDiskSizeGB": 100.0,
			"vCPU": int64(4), "ramGB": 16.0, "cost": 42.0, "price": "0.42 USD/h", "currency": "USD",
		}})
		if err := st.Save(ctx, d); err != nil {
			t.Fatalf("Save(%s): %v", d.RunID, err)
		}
	}
	coll := c.Database(dbName).Collection(store.ResultsCollection)
	n, err := coll.CountDocuments(ctx, bson.D{{Key: "_id.instance.cost", Value: 42.0}})
	if err != nil || n != 1 {
		t.Errorf("results rows with _id.instance.cost 42 after six saves of one variant: got %d (%v), want 1", n, err)
	}
}
