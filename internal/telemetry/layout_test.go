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
