package telemetry

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/ftdc"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/testsupport/ftdcwrite"
)

// A sample written to a file and the same sample answered live by
// getDiagnosticData give the same figures, for the flat layout (7.0 and
// 8.0 names) and 8.0's role-split one (a mongos, a shard member): both
// are read by FTDCSamples through the one layout resolver.
func TestFileAndLiveSamplesAgree(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name  string
		state ftdcwrite.State
		lag   bool
	}{
		{"7.0 flat", ftdcwrite.State{}, false},
		{"8.0 flat", ftdcwrite.State{V8: true}, false},
		{"8.0 mongos", ftdcwrite.State{V8: true, Split: "router"}, false},
		{"8.0 shard member", ftdcwrite.State{V8: true, Split: "shard"}, true},
	} {
		states := ftdcStates(c.state.V8)[:2]
		var docs []bson.D
		for i := range states {
			states[i].Split = c.state.Split
			docs = append(docs, ftdcwrite.Sample(t0.Add(time.Duration(i)*time.Second), states[i]))
		}
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "metrics.interim"), ftdcwrite.File(ftdcwrite.Metadata(states[0]), docs, 300), 0o644); err != nil {
			t.Fatal(err)
		}
		var file []Figures
		if _, err := (FTDCRead{Path: dir}).Figures(context.Background(), func(f Figures) { file = append(file, f) }, func(int) {}); err != nil {
			t.Fatal(err)
		}
		var live [2]Sample
		for i, d := range docs {
			raw, _ := bson.Marshal(d)
			st, h, err := SampleFromDiagnosticData(raw)
			if err != nil {
				t.Fatalf("%s: %v", c.name, err)
			}
			live[i] = Sample{Time: st.Time, Status: st, Host: &h}
		}
		got := FigureOf(live[0], live[1])
		if len(file) != 1 || !maps.Equal(file[0].Server, got.Server) || !maps.Equal(file[0].Host, got.Host) {
			t.Fatalf("%s: file %+v, live %+v: want the same figures", c.name, file, got)
		}
		if got.Server["insertPerSec"] != 1000 || got.Host[KeyCPUUser] != 25 {
			t.Errorf("%s: figures %v %v: want 1,000 inserts/s and 25%% user CPU", c.name, got.Server, got.Host)
		}
		if lag, ok := got.Server[KeyReplLag]; ok != c.lag || (c.lag && lag != 1.5) {
			t.Errorf("%s: replication lag %v (%v), want it %v (1.5 s)", c.name, lag, ok, c.lag)
		}
	}
}

// The layout the live sample is read with is the file's: a live 8.0
// mongos sample is a router's.
func TestLiveSampleLayout(t *testing.T) {
	raw, _ := bson.Marshal(ftdcwrite.Sample(time.Unix(0, 0), ftdcwrite.State{V8: true, Split: "router"}))
	c, err := ftdc.SampleChunk(raw)
	if err != nil {
		t.Fatal(err)
	}
	if l := c.Layout(); !l.Split || l.Role != ftdc.RoleRouter {
		t.Fatalf("layout %+v: want the role-split router's", l)
	}
}

// The series the diagnosis's checkpoint, cache, ticket and eviction
// rules read are the same from an 8.0 shard member's file (role-split)
// as from the same samples answered live, through FTDCSeries, the
// function the sampler's series come from.
func TestRuleSeriesFromFileAndLive(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	s := ftdcwrite.State{V8: true, Split: "shard", CacheMax: 1 << 30, Tickets: 128, TicketsOut: 3, NumCPUs: 2, MemTotalKB: 8 << 20, MemAvailableKB: 4 << 20}
	var docs []bson.D
	for i := range 20 {
		s.Checkpointing = i >= 5 && i <= 8
		if i == 5 {
			s.Checkpoints++ // counted when it starts
		}
		if i == 9 {
			s.CheckpointMs = 3900
		}
		s.TicketsOut = 3
		if i == 12 {
			s.TicketsOut = 128
			s.AppEvicted += 500
		}
		s.CacheDirty = int64(i) << 24
		s.Inserts += 1000
		docs = append(docs, ftdcwrite.Sample(t0.Add(time.Duration(i)*time.Second), s))
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "metrics.interim"), ftdcwrite.File(ftdcwrite.Metadata(s), docs, 299), 0o644); err != nil {
		t.Fatal(err)
	}
	fromFile, err := FTDCRead{Path: dir}.Samples(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var live []Sample
	for _, d := range docs {
		raw, _ := bson.Marshal(d)
		st, h, err := SampleFromDiagnosticData(raw)
		if err != nil {
			t.Fatal(err)
		}
		live = append(live, Sample{Time: st.Time, Status: st, Host: &h})
	}
	end := t0.Add(19 * time.Second)
	a, b := FTDCSeries(fromFile, t0, end), FTDCSeries(live, t0, end)
	for _, name := range []string{result.CheckpointRunning, result.CacheDirty, result.TicketsOut, result.CacheAppEviction} {
		fa, fb := a.Series(name), b.Series(name)
		if fa == nil || fb == nil || len(fa.DataPoints) != 19 || len(fa.DataPoints) != len(fb.DataPoints) {
			t.Fatalf("%s: file %+v, live %+v: want 19 points each", name, fa, fb)
		}
		var most float64
		for i := range fa.DataPoints {
			va, vb := fa.DataPoints[i].Value, fb.DataPoints[i].Value
			if (va == nil) != (vb == nil) || (va != nil && *va != *vb) {
				t.Errorf("%s point %d: file %v, live %v", name, i, va, vb)
			}
			if va != nil {
				most = max(most, *va)
			}
		}
		want := map[string]float64{result.CheckpointRunning: 1, result.CacheDirty: 19 << 24, result.TicketsOut: 128, result.CacheAppEviction: 500}[name]
		if most != want {
			t.Errorf("%s: highest point %v, want %v", name, most, want)
		}
	}
}
