package store_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

func partial(d *result.Doc) *result.Doc {
	d.Partial, d.PartialReason = true, "interrupted"
	return d
}

// resultsRow is the run id in the results row of the sample variant.
func resultsRow(t *testing.T, st *store.Mongo, dbName string) string {
	t.Helper()
	var row struct {
		RunID string `bson:"runId"`
	}
	c := connect(t)
	if err := c.Database(dbName).Collection(store.ResultsCollection).FindOne(context.Background(), bson.D{}).Decode(&row); err != nil {
		t.Fatalf("read the results row: %v", err)
	}
	return row.RunID
}

func historyCount(t *testing.T, dbName string) int64 {
	t.Helper()
	n, err := connect(t).Database(dbName).Collection(store.HistoryCollection).CountDocuments(context.Background(), bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestPartialRunNeverReplacesCompleteRow(t *testing.T) {
	start := time.Now().UTC().Truncate(time.Millisecond)
	tests := []struct {
		name           string
		runs           []*result.Doc
		replacePartial bool
		wantRow        string
	}{
		{"complete then partial", []*result.Doc{sampleDoc(t, "r1", "v", start), partial(sampleDoc(t, "r2", "v", start.Add(time.Minute)))}, false, "r1"},
		{"complete then partial, replace asked", []*result.Doc{sampleDoc(t, "r1", "v", start), partial(sampleDoc(t, "r2", "v", start.Add(time.Minute)))}, true, "r2"},
		{"partial then partial", []*result.Doc{partial(sampleDoc(t, "r1", "v", start)), partial(sampleDoc(t, "r2", "v", start.Add(time.Minute)))}, false, "r2"},
		{"partial then complete", []*result.Doc{partial(sampleDoc(t, "r1", "v", start)), sampleDoc(t, "r2", "v", start.Add(time.Minute))}, false, "r2"},
		{"complete then complete", []*result.Doc{sampleDoc(t, "r1", "v", start), sampleDoc(t, "r2", "v", start.Add(time.Minute))}, false, "r2"},
	}
	c := connect(t)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dbName := testenv.DBName(t)
			t.Cleanup(func() { _ = c.Database(dbName).Drop(context.Background()) })
			st := store.NewMongo(c, dbName, "the test server")
			st.ReplacePartial = tt.replacePartial
			for _, d := range tt.runs {
				if err := st.Save(context.Background(), d); err != nil {
					t.Fatalf("Save(%s): %v", d.RunID, err)
				}
			}
			if got := resultsRow(t, st, dbName); got != tt.wantRow {
				t.Errorf("results row: got run %s, want %s", got, tt.wantRow)
			}
			if got := historyCount(t, dbName); got != int64(len(tt.runs)) {
				t.Errorf("history rows: got %d, want %d (every run)", got, len(tt.runs))
			}
		})
	}
}

// Two rescued runs of one variant are imported side by side (no _id
// collision), importing them again stores nothing twice, and an older
// rescued run does not replace the newer row in results.
func TestRescueAndImport(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	start := time.Now().UTC().Truncate(time.Millisecond)
	older := sampleDoc(t, "rescued-1", "v", start)
	newer := sampleDoc(t, "rescued-2", "v", start.Add(time.Minute))
	var files []string
	for _, d := range []*result.Doc{older, newer} {
		path, err := store.RescueTo(ctx, d, filepath.Join(dir, "gone"), dir)
		if err != nil {
			t.Fatalf("RescueTo(%s): %v", d.RunID, err)
		}
		if filepath.Dir(path) != dir {
			t.Errorf("RescueTo(%s) = %s, want it in the fallback %s", d.RunID, path, dir)
		}
		files = append(files, path)
	}

	c := connect(t)
	dbName := testenv.DBName(t)
	t.Cleanup(func() { _ = c.Database(dbName).Drop(context.Background()) })
	st := store.NewMongo(c, dbName, "the test server")
	if err := st.Save(ctx, sampleDoc(t, "stored-3", "v", start.Add(2*time.Minute))); err != nil {
		t.Fatal(err)
	}
	for round := 0; round < 2; round++ {
		for _, f := range files {
			docs, err := store.ReadFile(f)
			if err != nil || len(docs) != 1 {
				t.Fatalf("ReadFile(%s): %d runs, %v; want 1", f, len(docs), err)
			}
			out, err := st.Import(ctx, &docs[0])
			if err != nil {
				t.Fatalf("Import(%s), round %d: %v", docs[0].RunID, round, err)
			}
			if out != store.KeptNewer {
				t.Errorf("Import(%s): %v, want %v", docs[0].RunID, out, store.KeptNewer)
			}
		}
	}
	if got := historyCount(t, dbName); got != 3 {
		t.Errorf("history rows after importing two files twice: got %d, want 3", got)
	}
	if got := resultsRow(t, st, dbName); got != "stored-3" {
		t.Errorf("results row: got %s, want the newest run stored-3", got)
	}
}

// Rescue files need no server: a run written where the first directory is
// missing lands in the next, and reads back as it was.
func TestRescueToFallsBack(t *testing.T) {
	dir := t.TempDir()
	d := partial(sampleDoc(t, "rescued-x", "v", time.Now().UTC().Truncate(time.Millisecond)))
	path, err := store.RescueTo(context.Background(), d, filepath.Join(dir, "missing", "deeper"), dir)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(path, dir) || !strings.Contains(path, "rescued-x") {
		t.Errorf("RescueTo = %s, want a file named after the run in %s", path, dir)
	}
	docs, err := store.ReadFile(path)
	if err != nil || len(docs) != 1 {
		t.Fatalf("ReadFile: %d runs, %v", len(docs), err)
	}
	if got := docs[0]; got.RunID != d.RunID || !got.Partial || got.TestName != d.TestName {
		t.Errorf("read back run %s partial %v test %s, want %s true %s", got.RunID, got.Partial, got.TestName, d.RunID, d.TestName)
	}
	if v, _ := docs[0].ID.Get("variant"); v != "v" {
		t.Errorf("read back _id variant %v, want v (restored from testId)", v)
	}
	if _, err := store.RescueTo(context.Background(), d, filepath.Join(dir, "missing")); err == nil {
		t.Errorf("RescueTo with no writable directory: got nil error")
	}
}

// A run id that is a path is never a rescue file's name: nothing is
// written, inside the directory or beside it.
func TestRescueRefusesPathRunID(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "rescue")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"../escaped-by-runid", "a/../../b", "/tmp/x", ".."} {
		d := sampleDoc(t, "x", "v", time.Now())
		d.RunID = id
		if path, err := store.RescueTo(context.Background(), d, dir); err == nil || !strings.Contains(err.Error(), "run id") {
			t.Errorf("%q: got %q, %v, want it refused", id, path, err)
		}
	}
	inside, _ := os.ReadDir(dir)
	beside, _ := os.ReadDir(filepath.Dir(dir))
	if len(inside) != 0 || len(beside) != 1 {
		t.Errorf("%s holds %v and its parent %v, want nothing written", dir, inside, beside)
	}
}

// Several files checked together: each one's runs counted; one that
// cannot be read fails them all, naming it; a run whose id is a path is
// refused before anything is imported.
func TestCheckImports(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for _, id := range []string{"file-a", "file-b"} {
		p, err := store.RescueTo(context.Background(), partial(sampleDoc(t, id, "v", time.Now().UTC().Truncate(time.Millisecond))), dir)
		if err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	checked, err := store.CheckImports(context.Background(), paths)
	if err != nil || len(checked) != 2 || checked[0].Runs != 1 || checked[1].Runs != 1 || checked[0].Path != paths[0] {
		t.Fatalf("CheckImports: %v, %v", checked, err)
	}
	missing := filepath.Join(dir, "nosuch.jsonl")
	if _, err := store.CheckImports(context.Background(), append(paths, missing)); err == nil || !strings.Contains(err.Error(), missing) {
		t.Errorf("a missing file: %v, want it named", err)
	}
	bad := filepath.Join(dir, "bad.jsonl")
	b, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bad, append(b, bytes.ReplaceAll(b, []byte(`"file-a"`), []byte(`"../etc/x"`))...), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := store.CheckImports(context.Background(), []string{bad}); err == nil || !strings.Contains(err.Error(), bad+":2") {
		t.Errorf("a run id that is a path: %v, want %s:2 named", err, bad)
	}
}

// A records file is checked at import: a histogram that does not decode
// is refused, naming its line (rebuild failed on it later); records of
// runs the file does not hold coarsened, and a coarsened run without a
// record, are warned of (the run was stored with none of its intervals
// and no word).
func TestCheckImportRecords(t *testing.T) {
	dir := t.TempDir()
	d := partial(sampleDoc(t, "coarse-a", "v", time.Now().UTC().Truncate(time.Millisecond)))
	d.Resolution = &result.Resolution{IntervalSec: 10, FullIntervalSec: 1, FullIntervals: 4, Collection: "intervals"}
	path, err := store.RescueTo(context.Background(), d, dir)
	if err != nil {
		t.Fatal(err)
	}
	record := func(id, hist string) string {
		return fmt.Sprintf(`{"run": {"id": %q, "kind": "interval"}, "t": {"$date": "2026-03-01T00:00:00Z"}, "secs": 1, "ops": [{"name": "read", "latency": {"hist": %q}}]}`+"\n", id, hist)
	}
	write := func(text string) {
		if err := os.WriteFile(store.RecordsPath(path), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write(record("other-run", "") + record("../bad", ""))
	fi, err := store.CheckImport(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	if w := strings.Join(fi.Warnings, "\n"); fi.Records != 0 || !strings.Contains(w, "2 records name runs this file does not hold") || !strings.Contains(w, "run coarse-a holds its intervals coarsened") {
		t.Errorf("records of other runs: %d records, warnings %q", fi.Records, fi.Warnings)
	}
	write(record("coarse-a", "") + record("coarse-a", "not base64!"))
	if _, err := store.CheckImport(context.Background(), path); err == nil || !strings.Contains(err.Error(), store.RecordsPath(path)+":2: run coarse-a's interval: read latency histogram") {
		t.Errorf("a histogram that does not decode: %v, want it refused naming its line", err)
	}
	write(record("coarse-a", ""))
	if fi, err := store.CheckImport(context.Background(), path); err != nil || fi.Records != 1 || len(fi.Warnings) != 0 {
		t.Errorf("a run's own record: %+v, %v", fi, err)
	}
}
