package store_test

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// ListSelected reads the runs a selection names, and both stores read
// the same ones: by label, test, a variant key and its value; a brief
// read holds a run's label, workload and variant but not its results.
func TestListSelected(t *testing.T) {
	ctx := context.Background()
	c := connect(t)
	dbName := testenv.DBName(t)
	t.Cleanup(func() { _ = c.Database(dbName).Drop(context.Background()) })
	start := time.Now().UTC().Truncate(time.Millisecond)
	docs := []*result.Doc{
		sampleDoc(t, "run-1", "v1", start),
		sampleDoc(t, "run-2", "v2", start.Add(time.Minute)),
		sampleDoc(t, "run-3", "v3", start.Add(2*time.Minute)),
		sampleDoc(t, "run-4", "v4", start.Add(3*time.Minute)),
	}
	docs[0].Label, docs[1].Label, docs[2].Label = "a", "b", "c"
	docs[1].Variant = map[string]any{"plan": "p1"}
	docs[2].Variant = map[string]any{"plan": "p2"}
	docs[3].TestName = "txn_sla"
	for _, st := range []interface {
		store.Store
		ListSelected(context.Context, store.Selection) ([]result.Doc, error)
	}{store.NewMongo(c, dbName, "the test server"), store.NewFile(filepath.Join(t.TempDir(), "r.jsonl"))} {
		for _, d := range docs {
			if err := st.Save(ctx, d); err != nil {
				t.Fatal(err)
			}
		}
		for _, tc := range []struct {
			sel  store.Selection
			want []string
		}{
			{store.Selection{Labels: []string{"a", "c"}}, []string{"run-3", "run-1"}},
			{store.Selection{Variant: "plan"}, []string{"run-3", "run-2"}},
			{store.Selection{Variant: "plan", Value: "p1"}, []string{"run-2"}},
			{store.Selection{Variant: "plan", Value: "nope"}, nil},
			{store.Selection{Test: "txn_sla"}, []string{"run-4"}},
			{store.Selection{Brief: true, Labels: []string{"b"}}, []string{"run-2"}},
			{store.Selection{Figures: true, Labels: []string{"a"}}, []string{"run-1"}},
		} {
			got, err := st.ListSelected(ctx, tc.sel)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, d := range got {
				ids = append(ids, d.RunID)
				if !tc.sel.Matches(&d) || d.Intervals != nil {
					t.Errorf("%s %+v: %s read with intervals, or not selected", st.Where(), tc.sel, d.RunID)
				}
			}
			if !slices.Equal(ids, tc.want) {
				t.Errorf("%s %+v: %v, want %v", st.Where(), tc.sel, ids, tc.want)
			}
		}
	}
}
