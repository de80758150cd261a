package telemetry

import (
	"context"
	"maps"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
	"github.com/mongobench/mongobench/internal/validity"
)

func loadDiagnosticData(t *testing.T, name string) HostSample {
	t.Helper()
	s, err := HostFromDiagnosticData(diagnosticDataDoc(t, name))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// diagnosticDataDoc is the data document of a recorded getDiagnosticData
// reply.
func diagnosticDataDoc(t *testing.T, name string) bson.Raw {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var reply bson.Raw
	if err := bson.UnmarshalExtJSON(b, false, &reply); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return reply.Lookup("data").Document()
}

// One getDiagnosticData sample gives the sampler both halves at the
// sample's own start: its serverStatus section read as serverStatus is
// (rates over the two starts, 2 s apart), the secondaries' lag from its
// replSetGetStatus section (the arbiter left out), and the host.
func TestSampleFromDiagnosticData(t *testing.T) {
	var st [2]Status
	var hs [2]HostSample
	for i, name := range []string{"getdiagnosticdata-before.json", "getdiagnosticdata-after.json"} {
		var err error
		st[i], hs[i], err = SampleFromDiagnosticData(diagnosticDataDoc(t, name))
		if err != nil {
			t.Fatal(err)
		}
		if !st[i].Time.Equal(hs[i].Time) || st[i].Source != SourceFTDC || st[i].Doc == nil {
			t.Fatalf("%s: status at %v (source %q), host at %v: want one instant, source ftdc", name, st[i].Time, st[i].Source, hs[i].Time)
		}
	}
	wantLags := map[string]float64{"db2:27017": 1.5, "db3:27017": 0.25}
	if !maps.Equal(st[1].Lags, wantLags) {
		t.Fatalf("lags %v, want %v", st[1].Lags, wantLags)
	}
	f := ServerFigures(st[0], st[1])
	for k, want := range map[string]float64{"insertPerSec": 1000, KeyWriteLatency: 0.25, KeyReplLag: 1.5} {
		if got, ok := f[k]; !ok || math.Abs(got-want) > 1e-9 {
			t.Errorf("%s = %v (%v), want %v", k, got, ok, want)
		}
	}
	// the sampler's series from such samples: the server's latency series
	// and each secondary's lag, source ftdc
	t0 := st[0].Time
	var samples []Sample
	for i := range 2 {
		samples = append(samples, Sample{Time: t0.Add(time.Duration(2*i) * time.Second), Status: st[i], Host: &hs[i]})
	}
	m := Series(samples, t0, t0.Add(2*time.Second), 2*time.Second)
	w := m.Series(result.OpTimeWrites)
	if w == nil || w.Source != SourceFTDC || len(w.DataPoints) != 1 || *w.DataPoints[0].Value != 0.25 {
		t.Fatalf("write latency series %+v: want one point of 0.25 ms, source ftdc", w)
	}
	lags := LagSeries(samples, t0, t0.Add(2*time.Second), 2*time.Second)
	if len(lags) != 2 || lags[0].Member != "db2:27017" || lags[0].Role != "secondary" || lags[0].Source != SourceFTDC ||
		lags[0].Name != result.ReplicationLag || *lags[0].DataPoints[0].Value != 1.5 || *lags[1].DataPoints[0].Value != 0.25 {
		t.Fatalf("lag series %+v: want db2 1.5 s and db3 0.25 s, source ftdc", lags)
	}
}

// The members' states from recorded getDiagnosticData samples make one
// series per member, which the member-state-changed rule judges: the
// samples as recorded keep their states (valid), and a third sample in
// which db2 took over from db1 (the recorded states, as an election
// leaves them) makes the run invalid, naming both changes and the new
// primary.
func TestMemberStatesJudged(t *testing.T) {
	var samples []Sample
	for _, name := range []string{"getdiagnosticdata-before.json", "getdiagnosticdata-after.json"} { // 2 s apart
		st, hs, err := SampleFromDiagnosticData(diagnosticDataDoc(t, name))
		if err != nil {
			t.Fatal(err)
		}
		if st.States["db1:27017"] != 1 || st.States["db2:27017"] != 2 {
			t.Fatalf("%s: states %v, want db1 primary (1), db2 secondary (2)", name, st.States)
		}
		samples = append(samples, Sample{Time: st.Time, Status: st, Host: &hs})
	}
	t0 := samples[0].Time
	judge := func(samples []Sample) result.ValidityRule {
		d := &result.Doc{}
		d.Metrics.Members = StateSeries(samples, t0, t0.Add(time.Minute), time.Second)
		for _, r := range validity.Judge(d, validity.Default()).Rules {
			if r.Rule == validity.MemberState {
				return r
			}
		}
		t.Fatal("no member-state-changed rule")
		return result.ValidityRule{}
	}
	series := StateSeries(samples, t0, t0.Add(time.Minute), time.Second)
	if len(series) < 3 || series[0].Member != "db1:27017" || series[0].Role != "primary" || series[0].Source != SourceFTDC ||
		len(series[0].DataPoints) != 2 || series[0].Name != result.MemberState {
		t.Fatalf("state series %+v: want one per member, db1 first as primary, a point per sample, source ftdc", series)
	}
	if r := judge(samples); r.Outcome != result.Valid || !strings.Contains(r.Evidence, "kept their state over 2 samples (primary db1:27017)") {
		t.Errorf("recorded samples: %s %q, want valid, db1 primary throughout", r.Outcome, r.Evidence)
	}
	flip := samples[1]
	flip.Time = flip.Time.Add(2 * time.Second)
	flip.Status.States = maps.Clone(flip.Status.States)
	flip.Status.States["db1:27017"], flip.Status.States["db2:27017"] = 2, 1
	r := judge(append(samples, flip))
	for _, want := range []string{"db1:27017 primary → secondary 4 s into the run", "db2:27017 secondary → primary", "the primary changed: db1:27017 → db2:27017"} {
		if r.Outcome != result.Invalid || *r.Value != 2 || !strings.Contains(r.Evidence, want) {
			t.Errorf("after an election: %s %v %q, want invalid, 2 members, %q", r.Outcome, r.Value, r.Evidence, want)
		}
	}
	if r := judge(nil); r.Outcome != result.NotJudged || !strings.Contains(r.Evidence, "no member state series") {
		t.Errorf("no samples: %s %q, want not judged", r.Outcome, r.Evidence)
	}
}

// Without a primary in the reply, no lag can be told.
func TestReplicationLagsWithoutPrimary(t *testing.T) {
	at := bson.NewDateTimeFromTime(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	doc, _ := bson.Marshal(bson.D{{Key: "members", Value: bson.A{
		bson.D{{Key: "name", Value: "db1:27017"}, {Key: "state", Value: int32(2)}, {Key: "optimeDate", Value: at}},
		bson.D{{Key: "name", Value: "db2:27017"}, {Key: "state", Value: int32(2)}, {Key: "optimeDate", Value: at}},
	}}})
	if got := ReplicationLags(doc); got != nil {
		t.Fatalf("lags %v without a primary: want none", got)
	}
}

// The host figures from two getDiagnosticData samples, rates over the
// samples' own starts (2 s apart, not an assumed second).
func TestHostFromDiagnosticData(t *testing.T) {
	a, b := loadDiagnosticData(t, "getdiagnosticdata-before.json"), loadDiagnosticData(t, "getdiagnosticdata-after.json")
	if a.Source != SourceFTDC || a.Cores != 4 || a.Disk == nil || a.Disk.Device != "nvme0n1" {
		t.Fatalf("sample %+v: want source ftdc, 4 cores, the busier disk nvme0n1", a)
	}
	if got := b.Time.Sub(a.Time); got != 2*time.Second {
		t.Fatalf("samples %v apart, want their starts' 2s", got)
	}
	want := map[string]float64{
		KeyCPUUser: 37.5, KeyCPUKernel: 12.5, KeyCPUIOWait: 10, KeyCPUSteal: 0,
		KeyDiskIOPS: 1500, KeyDiskRead: 4 << 20, KeyDiskWrite: 100 << 20,
		KeyDiskUtil: 75, KeyDiskQueue: 2.5, KeyDiskWait: 1,
		KeyMemAvailable: 7000000 * 1024,
	}
	sameFigures(t, "ftdc", HostFigures(a, b), want)
}

func TestHostFromDiagnosticDataWithoutSystemMetrics(t *testing.T) {
	doc, _ := bson.Marshal(bson.D{{Key: "start", Value: bson.DateTime(0)}, {Key: "serverStatus", Value: bson.D{}}})
	_, err := HostFromDiagnosticData(doc)
	if err == nil || !strings.Contains(err.Error(), "no systemMetrics") {
		t.Fatalf("error %v: want the missing systemMetrics named", err)
	}
}

// The embedded server (SecantusDB) has no getDiagnosticData: the source
// says so in one line, and the caller keeps its other sources.
func TestDiagnosticDataRefused(t *testing.T) {
	uri := testenv.URI(t)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	d, err := NewDiagnosticData(ctx, uri)
	if err == nil { // a mongod: its host, read the same way
		defer func() { _ = d.Close(ctx) }()
		s, err := d.ReadContext(ctx)
		if err != nil || s.Source != SourceFTDC || s.CPU == nil {
			t.Fatalf("getDiagnosticData answered, but its host sample is %+v (%v)", s, err)
		}
		return
	}
	if msg := err.Error(); !strings.HasPrefix(msg, "getDiagnosticData refused (CommandNotFound)") || strings.Contains(msg, "\n") {
		t.Fatalf("refusal %q: want one line naming CommandNotFound", msg)
	}
}
