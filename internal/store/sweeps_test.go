package store_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// sweepDoc is a sweep step of workload w under label, priced at 320
// cents per hour, with an interval and serverStatus documents that
// Sweeps leaves out.
func sweepDoc(t *testing.T, runID, label, w string, step int, start time.Time) *result.Doc {
	d := sampleDoc(t, runID, runID, start)
	d.Label = label
	d.Variant = map[string]any{"sweep": "sweep-" + label, "sweepStep": step, "instance": map[string]any{"cost": 320.0}}
	d.ID = append(d.ID, result.KV{Key: "instance", Value: map[string]any{"cost": 320.0}})
	d.TestConfig = map[string]any{"workload": w}
	d.BeforeStatus = map[string]any{"opcounters": map[string]any{"query": int64(1)}}
	d.Intervals = []result.Interval{{Start: start, Seconds: 1}}
	return d
}

func TestSweeps(t *testing.T) {
	ctx := context.Background()
	c := connect(t)
	dbName := testenv.DBName(t)
	t.Cleanup(func() { _ = c.Database(dbName).Drop(context.Background()) })
	start := time.Now().UTC().Truncate(time.Millisecond)
	docs := []*result.Doc{
		sweepDoc(t, "run-2", "r6g", "ycsb-b", 2, start.Add(time.Minute)),
		sweepDoc(t, "run-1", "r6g", "ycsb-b", 1, start),
		sweepDoc(t, "run-3", "r5", "ycsb-b", 1, start),
		sweepDoc(t, "run-4", "r6g", "ycsb-f", 1, start),
		sampleDoc(t, "run-5", "not a sweep", start),
		sweepDoc(t, "run-6", "r5", "ycsb-b", 1, start), // a run group client's share of a step: not a step
	}
	docs[4].Label = "r6g"
	docs[5].Variant["group"], docs[5].Variant["clientIndex"] = "g.s1.r0", 1
	docs[5].Group = &result.Group{ID: "g.s1.r0", Clients: 2, ClientIndex: result.Ptr(1)}
	for _, st := range []store.Store{store.NewMongo(c, dbName, "the test server"), store.NewFile(filepath.Join(t.TempDir(), "r.jsonl"))} {
		for _, d := range docs {
			if err := st.Save(ctx, d); err != nil {
				t.Fatal(err)
			}
		}
		for _, tc := range []struct {
			q    store.Query
			want []string
		}{
			{store.Query{Label: "r6g", Workload: "ycsb-b"}, []string{"run-1", "run-2"}},
			{store.Query{Label: "r6g"}, []string{"run-1", "run-4", "run-2"}},
			{store.Query{Workload: "ycsb-b"}, []string{"run-1", "run-3", "run-2"}},
			{store.Query{Label: "m7g"}, nil},
		} {
			got, err := st.Sweeps(ctx, tc.q)
			if err != nil {
				t.Fatalf("%s: Sweeps(%+v): %v", st.Where(), tc.q, err)
			}
			var ids []string
			for _, d := range got {
				ids = append(ids, d.RunID)
			}
			if len(ids) != len(tc.want) || (len(ids) > 0 && (ids[0] != tc.want[0] || ids[len(ids)-1] != tc.want[len(tc.want)-1])) {
				t.Errorf("%s: Sweeps(%+v): got %v, want %v (oldest first)", st.Where(), tc.q, ids, tc.want)
			}
		}
		got, err := st.Sweeps(ctx, store.Query{Label: "r5"})
		if err != nil || len(got) != 1 {
			t.Fatalf("%s: Sweeps(r5): got %d, %v; want 1", st.Where(), len(got), err)
		}
		d := got[0]
		if d.Intervals != nil || d.BeforeStatus != nil || len(d.Ops) != 1 {
			t.Errorf("%s: got %d intervals, before_status %v, %d ops; want no intervals or status, the ops kept",
				st.Where(), len(d.Intervals), d.BeforeStatus, len(d.Ops))
		}
		inst, _ := d.Variant["instance"].(map[string]any)
		id, _ := d.ID.Get("instance")
		idInst, _ := id.(map[string]any)
		if inst["cost"] != 320.0 || idInst["cost"] != 320.0 {
			t.Errorf("%s: variant.instance %#v, _id.instance %#v; want plain maps with cost 320", st.Where(), d.Variant["instance"], id)
		}
	}
}
