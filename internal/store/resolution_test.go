package store_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/group"
	"github.com/mongobench/mongobench/internal/hist"
	"github.com/mongobench/mongobench/internal/merge"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// longDoc is a run of n one-second intervals of the operation types ops,
// each with its latency and service-time histograms, and a telemetry
// series per name in series, read every second, on every member.
func longDoc(t testing.TB, runID string, n int, ops []string, series []string, members []string) *result.Doc {
	t.Helper()
	start := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	d := sampleDoc(t.(*testing.T), runID, "long", start)
	d.End = start.Add(time.Duration(n) * time.Second)
	d.Duration = float64(n) * 1000
	rnd := rand.New(rand.NewPCG(1, 2))
	for k := range n {
		iv := result.Interval{Start: start.Add(time.Duration(k) * time.Second), Seconds: 1, ClientCPU: result.F(12),
			Server: map[string]float64{"connections": 10, "insertPerSec": 900}, Host: map[string]float64{"cpuUserPct": 40}}
		for _, op := range ops {
			h := hist.New()
			for range 200 {
				hist.Record(h, time.Duration((0.2+rnd.ExpFloat64())*float64(time.Millisecond)))
			}
			s, err := hist.Summarize(h)
			if err != nil {
				t.Fatal(err)
			}
			iv.Ops = append(iv.Ops, result.OpStats{Name: op, Count: 200, Rate: 200, Latency: s, Service: s})
		}
		d.Intervals = append(d.Intervals, iv)
	}
	for _, m := range append([]string{""}, members...) {
		for _, name := range series {
			s := result.Series{Name: name, Units: "PERCENT", Source: "node_exporter", GranularitySec: 1, Member: m}
			for k := range n {
				s.DataPoints = append(s.DataPoints, result.DataPoint{Timestamp: start.Add(time.Duration(k+1) * time.Second), Value: result.F(float64(k % 100))})
			}
			if m == "" {
				d.Metrics.Measurements = append(d.Metrics.Measurements, s)
			} else {
				d.Metrics.Members = append(d.Metrics.Members, s)
			}
		}
	}
	return d
}

// TestImportLongRunBoundedWithFullIntervals imports a 100-minute run
// (6,000 intervals, too large for one document) and finds a bounded
// document plus every interval at full resolution, once however often it
// is imported.
func TestImportLongRunBoundedWithFullIntervals(t *testing.T) {
	ctx := context.Background()
	c := connect(t)
	dbName := testenv.DBName(t)
	t.Cleanup(func() { _ = c.Database(dbName).Drop(context.Background()) })
	st := store.NewMongo(c, dbName, "the test server")

	series := []string{result.CPUUser, result.CPUKernel, result.CPUIOWait, "DISK_PARTITION_IOPS_TOTAL", "SYSTEM_MEMORY_USED"}
	d := longDoc(t, "run-long-0001", 6000, []string{"READ", "UPDATE"}, series, []string{"db2:27017", "db3:27017"})
	full, err := bson.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	if len(full) < 16<<20 {
		t.Fatalf("the long run is %d bytes, want one over BSON's 16 MB limit", len(full))
	}
	for range 2 {
		if _, err := st.Import(ctx, d); err != nil {
			t.Fatalf("import a %d-byte run: %v", len(full), err)
		}
	}
	raw, err := c.Database(dbName).Collection(store.HistoryCollection).FindOne(ctx, bson.D{{Key: "_id", Value: d.RunID}}).Raw()
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) > 2<<20 {
		t.Errorf("stored document %d bytes, want under 2 MB", len(raw))
	}
	got, err := st.Get(ctx, d.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Resolution == nil || got.Resolution.FullIntervals != 6000 || got.Resolution.FullIntervalSec != 1 || got.Resolution.IntervalSec < 6 {
		t.Fatalf("resolution %+v, want 6000 full intervals of 1 s and coarse ones of at least 6 s", got.Resolution)
	}
	if n := len(got.Intervals); n > store.MaxPoints || n < 6000/int(got.Resolution.IntervalSec) {
		t.Errorf("%d coarse intervals, want %d", n, 6000/int(got.Resolution.IntervalSec))
	}
	var reads int64
	for _, iv := range got.Intervals {
		reads += iv.Ops[0].Count
	}
	if reads != 6000*200 {
		t.Errorf("coarse intervals count %d reads, want %d", reads, 6000*200)
	}
	for _, s := range got.Metrics.Members {
		if s.GranularitySec != got.Resolution.IntervalSec || len(s.DataPoints) > store.MaxPoints {
			t.Errorf("member series %s/%s: granularity %v, %d points", s.Member, s.Name, s.GranularitySec, len(s.DataPoints))
		}
	}
	ivs, err := st.FullIntervals(ctx, d.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if len(ivs) != 6000 {
		t.Fatalf("%d full-resolution intervals after two imports, want 6000", len(ivs))
	}
	for _, k := range []int{0, 2999, 5999} {
		if ivs[k].Ops[1].Latency.Hist != d.Intervals[k].Ops[1].Latency.Hist || !ivs[k].Start.Equal(d.Intervals[k].Start) {
			t.Errorf("full interval %d differs from the run's", k)
		}
	}
	readings, err := c.Database(dbName).Collection(store.IntervalsCollection).CountDocuments(ctx, bson.D{{Key: "run.id", Value: d.RunID}, {Key: "run.kind", Value: "series"}})
	if err != nil {
		t.Fatal(err)
	}
	if want := int64(6000 * len(series) * 3); readings != want {
		t.Errorf("%d full-resolution readings, want %d", readings, want)
	}
}

// TestShortRunKeepsItsDocument: a run that fits is stored as it is, with
// nothing in the intervals collection.
func TestShortRunKeepsItsDocument(t *testing.T) {
	ctx := context.Background()
	c := connect(t)
	dbName := testenv.DBName(t)
	t.Cleanup(func() { _ = c.Database(dbName).Drop(context.Background()) })
	st := store.NewMongo(c, dbName, "the test server")
	d := longDoc(t, "run-short-0001", 60, []string{"READ", "UPDATE"}, []string{result.CPUUser}, nil)
	if err := st.Save(ctx, d); err != nil {
		t.Fatal(err)
	}
	got, err := st.Get(ctx, d.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Resolution != nil || len(got.Intervals) != 60 || got.Intervals[7].Ops[0].Latency.Hist == "" {
		t.Errorf("short run stored with resolution %+v and %d intervals, want it as it is", got.Resolution, len(got.Intervals))
	}
	if ivs, err := st.FullIntervals(ctx, d.RunID); err != nil || len(ivs) != 0 {
		t.Errorf("short run: %d full-resolution intervals (%v), want none", len(ivs), err)
	}
}

// TestResultsFileStreamsALongRun: a results file streams a run as the
// MongoDB store does: its intervals and telemetry readings appended as
// record lines as they close, then its line, its intervals coarsened as
// it ran. Readers of the file see the one run; `results import`
// (CheckImport, FileImport.Into) stores its document and every record, once
// however often it is imported.
func TestResultsFileStreamsALongRun(t *testing.T) {
	ctx := context.Background()
	path := t.TempDir() + "/results.jsonl"
	f := store.NewFile(path)
	full := longDoc(t, "run-file-long-1", 1500, []string{"READ"}, nil, nil)
	for i := 0; i < len(full.Intervals); i += 500 {
		rd := []store.Reading{{T: full.Intervals[i].Start, Seconds: 1, Host: map[string]float64{"cpuUserPct": 40}}}
		if err := f.Append(ctx, full.RunID, full.Intervals[i:i+500], rd); err != nil {
			t.Fatal(err)
		}
	}
	d, err := store.Fit(full)
	if err != nil {
		t.Fatal(err)
	}
	d.Resolution.Collection = store.IntervalsCollection
	if err := f.Save(ctx, d); err != nil {
		t.Fatal(err)
	}
	runs, err := f.List(ctx, 0)
	if err != nil || len(runs) != 1 || runs[0].RunID != full.RunID {
		t.Fatalf("the file lists %d runs (%v), want the one run", len(runs), err)
	}
	if got, err := f.Get(ctx, full.RunID); err != nil || got.Resolution == nil {
		t.Fatalf("get the run: %v, %+v", err, got)
	}
	checked, err := store.CheckImport(ctx, path)
	if err != nil || checked.Runs != 1 || checked.Records != 1503 {
		t.Fatalf("checked %+v (%v), want 1 run, 1,500 intervals + 3 readings", checked, err)
	}
	c := connect(t)
	dbName := testenv.DBName(t)
	t.Cleanup(func() { _ = c.Database(dbName).Drop(context.Background()) })
	st := store.NewMongo(c, dbName, "the test server")
	for range 2 {
		var imported []string
		if err := checked.Into(ctx, st, func(d *result.Doc, _ store.Outcome) { imported = append(imported, d.RunID) }); err != nil || len(imported) != 1 {
			t.Fatalf("imported %v: %v", imported, err)
		}
	}
	ivs, err := st.FullIntervals(ctx, full.RunID)
	if err != nil || len(ivs) != 1500 {
		t.Fatalf("%d full-resolution intervals imported (%v), want 1,500", len(ivs), err)
	}
	n, err := c.Database(dbName).Collection(store.IntervalsCollection).CountDocuments(ctx, bson.D{{Key: "run.id", Value: full.RunID}, {Key: "run.kind", Value: "telemetry"}})
	if err != nil || n != 3 {
		t.Errorf("%d telemetry readings imported (%v), want 3", n, err)
	}
}

// TestLongGroupMergesItsFullResolution: a group of two long clients, each
// stored as a long run is (a bounded document, its intervals at full
// resolution in the intervals collection; the second client ran longer,
// so its document is coarser), merges into a bounded group document whose
// full resolution is the clients' records merged interval by interval:
// every operation once, the whole-run histograms equal to those rebuilt
// from the group's stored intervals bucket for bucket, and the first
// client's telemetry. Merging again writes them once.
func TestLongGroupMergesItsFullResolution(t *testing.T) {
	ctx := context.Background()
	c := connect(t)
	dbName := testenv.DBName(t)
	t.Cleanup(func() { _ = c.Database(dbName).Drop(context.Background()) })
	st := store.NewMongo(c, dbName, "the test server")

	lengths := []int{1200, 2100}
	for i, n := range lengths {
		d := longDoc(t, fmt.Sprintf("run-long-client-%d", i), n, []string{"READ"}, []string{result.CPUUser}, nil)
		whole, err := merge.Rebuild(d, d.Intervals)
		if err != nil {
			t.Fatal(err)
		}
		whole.Group = &result.Group{ID: "long", Clients: 2, ClientIndex: result.Ptr(i)}
		whole.Client.Cores = 2
		if _, err := st.Import(ctx, whole); err != nil {
			t.Fatal(err)
		}
	}
	for range 2 {
		if _, _, err := group.Merge(ctx, st, "long", 2, nil); err != nil {
			t.Fatal(err)
		}
	}
	runs, err := st.ListLight(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var d *result.Doc
	for i := range runs {
		if runs[i].Group != nil && runs[i].Group.ClientIndex == nil {
			d, err = st.Get(ctx, runs[i].RunID)
			if err != nil {
				t.Fatal(err)
			}
		}
	}
	if d == nil {
		t.Fatal("no group result stored")
	}
	r := d.Resolution
	if r == nil || r.Collection != store.IntervalsCollection || r.FullIntervals != 2100 || r.FullIntervalSec != 1 || len(d.Intervals) > store.MaxPoints {
		t.Fatalf("group document: %d intervals, resolution %+v; want at most %d, the full 2,100 of 1 s in %s", len(d.Intervals), r, store.MaxPoints, store.IntervalsCollection)
	}
	full, err := st.FullIntervals(ctx, d.RunID)
	if err != nil {
		t.Fatal(err)
	}
	if len(full) != 2100 {
		t.Fatalf("%d full-resolution group intervals after two merges, want 2,100", len(full))
	}
	for k, iv := range full {
		want := int64(200)
		if k < 1200 {
			want = 400
		}
		if iv.Ops[0].Count != want {
			t.Fatalf("group interval %d holds %d reads, want both clients' in the first 1,200 s, the second's after", k, iv.Ops[0].Count)
		}
	}
	rebuilt, err := merge.Rebuild(d, full)
	if err != nil {
		t.Fatal(err)
	}
	want, got := hist.New(), hist.New()
	if err := hist.AddDist(want, d.Ops[0].Latency); err != nil {
		t.Fatal(err)
	}
	if err := hist.AddDist(got, rebuilt.Ops[0].Latency); err != nil {
		t.Fatal(err)
	}
	if d.Ops[0].Count != 3300*200 || rebuilt.Ops[0].Count != d.Ops[0].Count || !got.Equals(want) {
		t.Errorf("group's reads: %d, rebuilt from its stored intervals %d; want %d, histograms equal bucket for bucket", d.Ops[0].Count, rebuilt.Ops[0].Count, 3300*200)
	}
	var coarse int64
	for _, iv := range d.Intervals {
		coarse += iv.Ops[0].Count
	}
	if coarse != d.Ops[0].Count {
		t.Errorf("the group document's intervals hold %d reads, the run %d", coarse, d.Ops[0].Count)
	}
	readings, err := c.Database(dbName).Collection(store.IntervalsCollection).CountDocuments(ctx, bson.D{{Key: "run.id", Value: d.RunID}, {Key: "run.kind", Value: "series"}})
	if err != nil {
		t.Fatal(err)
	}
	if readings != 1200 {
		t.Errorf("%d telemetry readings stored with the group, want the first client's 1,200", readings)
	}
	// A client's records removed since it ran: the merge says so.
	if _, err := c.Database(dbName).Collection(store.IntervalsCollection).DeleteMany(ctx, bson.D{{Key: "run.id", Value: "run-long-client-1"}, {Key: "run.kind", Value: "interval"}, {Key: "t", Value: bson.D{{Key: "$gte", Value: d.Start.Add(2000 * time.Second)}}}}); err != nil {
		t.Fatal(err)
	}
	again, _, err := group.Merge(ctx, st, "long", 2, nil)
	if err != nil {
		t.Fatal(err)
	}
	if r := again.Resolution; r == nil || r.Collection != "" || r.FullIntervals != 2000 || !strings.Contains(strings.Join(again.Notes, " "), "Not every client's intervals are in the results store") {
		t.Errorf("a merge missing a client's records: resolution %+v, notes %q; want no collection claimed and a note", r, again.Notes)
	}
}
