package store

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/result"
)

func indexDoc(id string, start time.Time) *result.Doc {
	return &result.Doc{RunID: id, TestName: "kv", Label: "cached-" + id, Start: start, End: start.Add(time.Second), Duration: 1000,
		ID:   result.Ordered{{Key: "testname", Value: "kv"}, {Key: "label", Value: "cached-" + id}},
		Tags: []string{"nightly"}, TestConfig: map[string]any{"workload": "kv", "threads": int32(4)},
		Group:    &result.Group{ID: "g1", Clients: 2, ClientIndex: result.Ptr(1)},
		Schedule: result.Schedule{Mode: "open", TargetRate: result.F(100), AchievedRate: 99.5, SuccessRate: 99, FailedRate: 0.5, Workers: 4},
		Ops:      []result.OpStats{{Name: "read", Count: 10, Latency: result.Dist{P99: result.F(1.5), P50: result.F(0.5)}}}}
}

// TestFileIndexIsCachedBetweenProcesses: a results file's index is
// cached in the user's cache directory; a later process (the in-memory
// indexes forgotten) starts from it and reads only the lines appended
// since; a file rewritten in place under the cached end is read again,
// never listed from a stale index; a corrupt cache is ignored.
func TestFileIndexIsCachedBetweenProcesses(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	ctx := context.Background()
	path := t.TempDir() + "/runs.jsonl"
	f := NewFile(path)
	start := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	for i, id := range []string{"run-a-0001", "run-b-0002"} {
		if err := f.Save(ctx, indexDoc(id, start.Add(time.Duration(i)*time.Hour))); err != nil {
			t.Fatal(err)
		}
	}
	forget := func() {
		fileIndexes.Lock()
		fileIndexes.byPath = map[string]*fileIndex{}
		fileIndexes.Unlock()
	}
	if l, err := f.ListRuns(ctx, RunFilter{}, 0); err != nil || len(l.Runs) != 2 {
		t.Fatalf("list: %v, %v", l.Runs, err)
	}
	file, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = file.Close() }()
	st, _ := file.Stat()
	idx := loadIndex(path, file, st.Size())
	if idx == nil || len(idx.entries) != 2 || idx.entries[1].summary.RunID != "run-b-0002" {
		t.Fatalf("the cached index: %+v, want the file's two runs", idx)
	}
	for i, id := range []string{"run-a-0001", "run-b-0002"} {
		d := indexDoc(id, start.Add(time.Duration(i)*time.Hour))
		if want := Summary(d); !reflect.DeepEqual(idx.entries[i].summary, want) {
			t.Errorf("cached summary of %s:\n%+v\nwant Summary's\n%+v", id, idx.entries[i].summary, want)
		}
	}
	// An index nobody wrote for a month is pruned when another is written.
	old := filepath.Join(filepath.Dir(indexCachePath(path)), "0123456789abcdef01234567.bson")
	if err := os.WriteFile(old, []byte("an old index"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(old, time.Now(), time.Now().Add(-indexKeep-time.Hour)); err != nil {
		t.Fatal(err)
	}
	forget()
	if err := f.Save(ctx, indexDoc("run-c-0003", start.Add(2*time.Hour))); err != nil {
		t.Fatal(err)
	}
	if l, err := f.ListRuns(ctx, RunFilter{}, 0); err != nil || len(l.Runs) != 3 || l.Runs[0].RunID != "run-c-0003" {
		t.Fatalf("a later process's list: %v, %v; want the three runs, the appended one first", l.Runs, err)
	}
	if _, err := os.Stat(old); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a month-old cached index: %v, want it pruned", err)
	}
	// Rewritten in place: the same length, other runs.
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	b3 := []byte(string(b))
	for i := 1; i+1 < len(b3); i++ {
		if b3[i] == 'c' && b3[i-1] == '-' && b3[i+1] == '-' {
			b3[i] = 'q' // run-c-0003 becomes run-q-0003, under the cached end
		}
	}
	if err := os.WriteFile(path, b3, 0o600); err != nil {
		t.Fatal(err)
	}
	forget()
	l, err := f.ListRuns(ctx, RunFilter{}, 0)
	if err != nil || len(l.Runs) != 3 || l.Runs[0].RunID != "run-q-0003" {
		t.Fatalf("a file rewritten in place: %v, %v; want its runs read again", l.Runs, err)
	}
	if err := os.WriteFile(indexCachePath(path), []byte("not an index"), 0o600); err != nil {
		t.Fatal(err)
	}
	forget()
	if l, err := f.ListRuns(ctx, RunFilter{}, 0); err != nil || len(l.Runs) != 3 {
		t.Fatalf("a corrupt cache: %v, %v; want the file read", l.Runs, err)
	}
}
