package store

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/result"
)

func indexDoc(id string, start time.Time) *result.Doc {
	return &result.Doc{RunID: id, TestName: "kv", Label: "cached-" + id, Start: start, End: start.Add(time.Second), Duration: 1000,
		ID:  result.Ordered{{Key: "testname", Value: "kv"}, {Key: "label", Value: "cached-" + id}},
		Ops: []result.OpStats{{Name: "read", Count: 10}}}
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
	if idx := loadIndex(path, file, st.Size()); idx == nil || len(idx.entries) != 2 || idx.entries[1].summary.RunID != "run-b-0002" {
		t.Fatalf("the cached index: %+v, want the file's two runs", idx)
	}
	forget()
	if err := f.Save(ctx, indexDoc("run-c-0003", start.Add(2*time.Hour))); err != nil {
		t.Fatal(err)
	}
	if l, err := f.ListRuns(ctx, RunFilter{}, 0); err != nil || len(l.Runs) != 3 || l.Runs[0].RunID != "run-c-0003" {
		t.Fatalf("a later process's list: %v, %v; want the three runs, the appended one first", l.Runs, err)
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
