package store

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/result"
)

func TestRescueFile(t *testing.T) {
	if got, want := RescueFile("", "20240102T030405Z-ab12"), "mongobench-unsaved-20240102T030405Z-ab12.jsonl"; got != want {
		t.Errorf("RescueFile in the working directory = %q, want %q", got, want)
	}
	if got, want := RescueFile("out", "r1"), filepath.Join("out", "mongobench-unsaved-r1.jsonl"); got != want {
		t.Errorf("RescueFile = %q, want %q", got, want)
	}
}

// TestRescue: the rescued run reads back from its file, and a file that
// cannot be written still names where it was meant to be.
func TestRescue(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	d := &result.Doc{RunID: "r1"}
	path, err := Rescue(ctx, dir, d)
	if err != nil {
		t.Fatalf("Rescue: %v", err)
	}
	if want := RescueFile(dir, "r1"); path != want {
		t.Errorf("Rescue wrote %q, want %q", path, want)
	}
	docs, err := NewFile(path).List(ctx, 0)
	if err != nil || len(docs) != 1 || docs[0].RunID != "r1" {
		t.Errorf("rescue file holds %d runs (%v), want run r1", len(docs), err)
	}
	missing := filepath.Join(dir, "no-such-dir")
	path, err = Rescue(ctx, missing, d)
	if err == nil || path != RescueFile(missing, "r1") {
		t.Errorf("Rescue into a missing directory = %q, %v; want its path and an error", path, err)
	}
}

func TestWriteJSON(t *testing.T) {
	var b strings.Builder
	if err := WriteJSON(&b, nil); err != nil || b.String() != "[]\n" {
		t.Errorf("WriteJSON(nil) = %q, %v; want an empty array", b.String(), err)
	}
	b.Reset()
	if err := WriteJSON(&b, []result.Doc{{RunID: "r1"}, {RunID: "r2"}}); err != nil {
		t.Fatal(err)
	}
	var got []map[string]any
	if err := json.Unmarshal([]byte(b.String()), &got); err != nil || len(got) != 2 || got[1]["runId"] != "r2" {
		t.Errorf("WriteJSON wrote %s (%v), want two documents, r1 then r2", b.String(), err)
	}
	if !strings.HasPrefix(b.String(), "[\n  {") {
		t.Errorf("WriteJSON wrote %.20q…, want an indented array", b.String())
	}
}
