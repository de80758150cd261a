package ycsb_test

import (
	"context"
	"math"
	"slices"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
	"github.com/mongobench/mongobench/internal/workload"
	"github.com/mongobench/mongobench/internal/workload/builtin"
	"github.com/mongobench/mongobench/internal/workload/ycsb"
	core "github.com/mongobench/mongobench/internal/ycsb"
)

func ycsbParams(t *testing.T, name string, assignments ...string) spec.Params {
	return paramsOf(t, name, assignments...)
}

func ycsbWorkload(t *testing.T, name string) ycsb.Workload {
	t.Helper()
	w, err := builtin.Registry().Get(name)
	if err != nil {
		t.Fatal(err)
	}
	return w.(ycsb.Workload)
}

// TestYCSBParamsArePresets checks that every YCSB property is declared
// and that the defaults convert back into exactly the preset.
func TestYCSBParamsArePresets(t *testing.T) {
	if got, want := slices.Sorted(slices.Values(ycsb.PropertyNames())), core.Names(); !slices.Equal(got, want) {
		t.Errorf("declared YCSB properties %v, want every property core.Properties accepts %v", got, want)
	}
	for _, preset := range core.PresetNames() {
		name := "ycsb-" + preset
		w := ycsbWorkload(t, name)
		got, err := w.Properties(ycsbParams(t, name))
		if err != nil {
			t.Fatal(err)
		}
		if want, _ := core.Preset(preset); got != want {
			t.Errorf("%s defaults: got %+v, want the preset %+v", name, got, want)
		}
	}
	p := ycsbParams(t, "ycsb-a", "readproportion=0.25", "insertorder=ordered", "readallfields=no", "fieldlength=7")
	got, err := ycsbWorkload(t, "ycsb-a").Properties(p)
	if err != nil {
		t.Fatal(err)
	}
	if got.ReadProportion != 0.25 || !got.Ordered() || got.ReadAllFields || got.FieldLength != 7 {
		t.Errorf("overrides not applied: %+v", got)
	}
}

func TestYCSBParamsAreValidated(t *testing.T) {
	reg := builtin.Registry()
	for _, bad := range []string{"readproportion=1.5", "requestdistribution=pareto", "fieldcount=0", "nosuchproperty=1", "insertorder=random"} {
		sc := &spec.Scenario{Workload: "ycsb-b"}
		if err := sc.SetParam(reg, bad); err == nil {
			t.Errorf("-p %s: accepted, want an error", bad)
		}
	}
	// Cross-property problems surface when the workload is built.
	p := ycsbParams(t, "ycsb-b", "recordcount=10", "insertstart=5", "insertcount=10")
	if _, err := ycsbWorkload(t, "ycsb-b").Properties(p); err == nil || !strings.Contains(err.Error(), "recordcount") {
		t.Errorf("insertstart+insertcount > recordcount: got %v, want an error about recordcount", err)
	}
}

// TestYCSBPresetsRun loads 500 records for each preset, runs 300
// operations with 4 closed-loop workers and checks the mix, the inserts,
// the scans and the stored records.
func TestYCSBPresetsRun(t *testing.T) {
	for _, preset := range core.PresetNames() {
		name := "ycsb-" + preset
		t.Run(name, func(t *testing.T) {
			db := ownedDB(t)
			ctx := context.Background()
			w := ycsbWorkload(t, name)
			p := ycsbParams(t, name, "recordcount=500", "batchSize=64", "loaders=3")
			props, err := w.Properties(p)
			if err != nil {
				t.Fatal(err)
			}
			var loaded int64
			env := workload.Env{DB: db, URI: testenv.URI(t), Seed: 5, // the wire client
				Progress: func(_ string, done, _ int64) { loaded = max(loaded, done) }}
			run := prepare(t, w, env, p)
			coll := db.Collection("usertable")
			if n, err := coll.CountDocuments(ctx, bson.D{}); err != nil || n != 500 || loaded != 500 {
				t.Fatalf("after load: %d records (err %v), progress %d; want 500", n, err, loaded)
			}
			checkYCSBRecord(t, coll, "user6284781860667377211", 10, 100)

			var tasks []engine.Task
			const ops = 300
			cfg := engine.Config{Ops: w.Ops(p), Workers: 4, Count: ops, Classify: workload.Classify}
			r, err := engine.Run(ctx, cfg, func(i int) (engine.Task, error) {
				task, err := run.Tasks.NewTask(context.Background(), i)
				tasks = append(tasks, task)
				return task, err
			})
			if err != nil {
				t.Fatal(err)
			}
			counts := map[string]int64{}
			for _, task := range tasks {
				for k, v := range task.(workload.Counter).Counts().Map() {
					counts[k] += v
				}
			}
			t.Logf("%s: %s, counts %v", name, r, counts)
			weights := []float64{props.ReadProportion, props.UpdateProportion, props.InsertProportion,
				props.ScanProportion, props.ReadModifyWriteProportion}
			var total int64
			for i, op := range r.Ops {
				if op.Name != core.Op(i).String() {
					t.Errorf("op %d: named %q, want %q", i, op.Name, core.Op(i))
				}
				if e := op.Errors.Total(); e != 0 {
					t.Errorf("%s: %d errors %+v, want none", op.Name, e, op.Errors)
				}
				total += op.Count
				pr := weights[i]
				want := ops * pr
				tol := 4.5*math.Sqrt(ops*pr*(1-pr)) + 1
				if math.Abs(float64(op.Count)-want) > tol {
					t.Errorf("%s: %d of %d, want %.0f ± %.0f (proportion %g)", op.Name, op.Count, ops, want, tol, pr)
				}
			}
			if total != ops {
				t.Errorf("operations: %d succeeded, want %d", total, ops)
			}
			inserts := r.Ops[core.Insert].Count
			if n, err := coll.CountDocuments(ctx, bson.D{}); err != nil || n != 500+inserts {
				t.Errorf("after the run: %d records (err %v), want 500 + %d inserted", n, err, inserts)
			}
			if scans := r.Ops[core.Scan].Count; scans > 0 {
				if counts["scanned"] == 0 || counts["scanned"] > scans*props.MaxScanLength {
					t.Errorf("scans returned %d records in %d scans, want 1..%d each", counts["scanned"], scans, props.MaxScanLength)
				}
			}
			if inserts > 0 {
				// The first run-phase insert is key number recordcount.
				checkYCSBRecord(t, coll, core.KeyName(500, 1, false), 10, 100)
			}
		})
	}
}

// TestYCSBOverrides runs with ordered keys, fewer and shorter fields, one
// field read and all fields written, and a split key space.
func TestYCSBOverrides(t *testing.T) {
	db := ownedDB(t)
	ctx := context.Background()
	w := ycsbWorkload(t, "ycsb-a")
	p := ycsbParams(t, "ycsb-a", "recordcount=300", "insertstart=100", "insertcount=150",
		"insertorder=ordered", "zeropadding=6", "fieldcount=3", "fieldlength=20",
		"readallfields=false", "writeallfields=true", "requestdistribution=uniform", "table=ycsbsplit")
	env := workload.Env{DB: db, Seed: 9}
	run := prepare(t, w, env, p)
	coll := db.Collection("ycsbsplit")
	if n, err := coll.CountDocuments(ctx, bson.D{}); err != nil || n != 150 {
		t.Fatalf("records: %d (err %v), want insertcount 150", n, err)
	}
	checkYCSBRecord(t, coll, "user000100", 3, 20)
	checkYCSBRecord(t, coll, "user000249", 3, 20)
	task, err := run.Tasks.NewTask(context.Background(), 0)
	if err != nil {
		t.Fatal(err)
	}
	for range 200 {
		if op, err := task.Do(ctx); err != nil {
			t.Fatalf("%s: %v", core.Op(op), err)
		}
	}
	checkYCSBRecord(t, coll, "user000100", 3, 20)
}

// checkYCSBRecord checks that the record with _id key has fieldcount
// binary fields field0… of fieldlength bytes.
func checkYCSBRecord(t *testing.T, coll *mongo.Collection, key string, fieldcount, fieldlength int) {
	t.Helper()
	raw, err := coll.FindOne(context.Background(), bson.D{{Key: "_id", Value: key}}).Raw()
	if err != nil {
		t.Fatalf("record %s: %v", key, err)
	}
	elems, err := raw.Elements()
	if err != nil {
		t.Fatal(err)
	}
	if len(elems) != fieldcount+1 {
		t.Fatalf("record %s: %d elements, want _id and %d fields: %v", key, len(elems), fieldcount, raw)
	}
	for i, e := range elems[1:] {
		sub, data, ok := e.Value().BinaryOK()
		if want := "field" + string(rune('0'+i)); e.Key() != want || !ok || sub != 0 || len(data) != fieldlength {
			t.Errorf("record %s element %d: %s (%d bytes, binary %v), want %s of %d bytes", key, i+1, e.Key(), len(data), ok, want, fieldlength)
		}
	}
}

// TestYCSBMeasureRWParts runs YCSB F with measurerwparts on each client:
// every READ-MODIFY-WRITE is also recorded as a READ and an UPDATE (as
// YCSB's DB wrapper records them), the parts are counted as such, and the
// run's operations are the READs and READ-MODIFY-WRITEs alone. Without
// it, F records no UPDATE.
func TestYCSBMeasureRWParts(t *testing.T) {
	for _, tc := range []struct{ client, parts string }{{"wire", "true"}, {"driver", "true"}, {"wire", "false"}} {
		t.Run(tc.client+"/"+tc.parts, func(t *testing.T) {
			db := ownedDB(t)
			w := ycsbWorkload(t, "ycsb-f")
			p := ycsbParams(t, "ycsb-f", "recordcount=200", "client="+tc.client, "measurerwparts="+tc.parts)
			run := prepare(t, w, workload.Env{DB: db, URI: testenv.URI(t), Seed: 3}, p)
			const ops = 200
			cfg := engine.Config{Ops: w.Ops(p), Workers: 2, Count: ops, Classify: workload.Classify}
			r, err := engine.Run(context.Background(), cfg, func(w int) (engine.Task, error) { return run.Tasks.NewTask(context.Background(), w) })
			if err != nil {
				t.Fatal(err)
			}
			read, update, rmw := r.Ops[core.Read], r.Ops[core.Update], r.Ops[core.ReadModifyWrite]
			t.Logf("%s", r)
			if r.Completed() != ops || r.Failed != 0 {
				t.Errorf("completed %d, failed %d: want %d operations, none failed", r.Completed(), r.Failed, ops)
			}
			plainReads := read.Count - read.Parts
			if plainReads+rmw.Count != ops || rmw.Count == 0 || plainReads == 0 {
				t.Errorf("%d reads and %d read-modify-writes, want %d in all, some of each", plainReads, rmw.Count, ops)
			}
			if tc.parts == "false" {
				if read.Parts != 0 || update.Count != 0 {
					t.Errorf("without measurerwparts: %d read parts, %d updates; want none", read.Parts, update.Count)
				}
				return
			}
			if read.Parts != rmw.Count || update.Count != rmw.Count || update.Parts != rmw.Count {
				t.Errorf("read parts %d, updates %d (%d parts), want one of each per read-modify-write (%d)", read.Parts, update.Count, update.Parts, rmw.Count)
			}
			if update.Latency.TotalCount() != rmw.Count || read.Latency.TotalCount() != read.Count {
				t.Errorf("histograms: %d updates, %d reads recorded; want %d and %d", update.Latency.TotalCount(), read.Latency.TotalCount(), rmw.Count, read.Count)
			}
		})
	}
}
