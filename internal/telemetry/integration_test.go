package telemetry

import (
	"context"
	"encoding/json"
	"net"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/mongobench/mongobench/internal/result"
)

// work inserts and reads back n documents.
func work(t *testing.T, coll *mongo.Collection, n int) {
	t.Helper()
	ctx := context.Background()
	for i := range n {
		if _, err := coll.InsertOne(ctx, bson.D{{Key: "i", Value: i}}); err != nil {
			t.Fatal(err)
		}
		if err := coll.FindOne(ctx, bson.D{{Key: "i", Value: i}}).Err(); err != nil {
			t.Fatal(err)
		}
	}
}

func TestServerStatusLive(t *testing.T) {
	uri, _, _ := testServer(t)
	c := connectTest(t, uri)
	coll := testDatabase(t, c).Collection("docs")
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	before, err := ServerStatus(ctx, c)
	if err != nil {
		t.Fatalf("ServerStatus: got error %v, want none", err)
	}
	work(t, coll, 20)
	after, err := ServerStatus(ctx, c)
	if err != nil {
		t.Fatalf("ServerStatus: got error %v, want none", err)
	}

	f := ServerFigures(before, after)
	for _, key := range []string{"insertPerSec", "queryPerSec", KeyNetIn, KeyNetOut} {
		if f[key] <= 0 {
			t.Errorf("%s = %v, want > 0 after 20 inserts and finds", key, f[key])
		}
	}
	if f[KeyConnections] < 1 {
		t.Errorf("%s = %v, want >= 1", KeyConnections, f[KeyConnections])
	}
	if _, err := bson.Marshal(after.Doc); err != nil {
		t.Errorf("bson.Marshal(reply): got error %v, want none", err)
	}
	if _, err := json.Marshal(after.Doc); err != nil {
		t.Errorf("json.Marshal(reply): got error %v, want none", err)
	}
}

func TestSamplerLive(t *testing.T) {
	uri, pid, dataDir := testServer(t)
	var host HostReader // none for a server not on this host
	if pid != 0 {
		h, err := NewHost(pid, dataDir)
		if err != nil {
			t.Fatalf("NewHost: got error %v, want none", err)
		}
		host = h
	}
	coll := testDatabase(t, connectTest(t, uri)).Collection("docs")

	s := NewSampler(uri, host)
	if err := s.Start(context.Background(), 200*time.Millisecond); err != nil {
		t.Fatalf("Start: got error %v, want none", err)
	}
	deadline := time.Now().Add(time.Second)
	for time.Now().Before(deadline) {
		work(t, coll, 5)
	}
	samples := s.Stop()

	if len(samples) < 4 {
		t.Fatalf("got %d samples in 1s at 200ms, want at least 4", len(samples))
	}
	for i, smp := range samples {
		if smp.Status.Doc == nil || smp.Err != nil {
			t.Errorf("sample %d: got doc %v, error %v; want a reply", i, smp.Status.Doc != nil, smp.Err)
		}
		if i > 0 && !smp.Time.After(samples[i-1].Time) {
			t.Errorf("sample %d at %v, not after sample %d at %v", i, smp.Time, i-1, samples[i-1].Time)
		}
		if (smp.Host != nil) != (host != nil) {
			t.Errorf("sample %d: got host reading %v, want %v", i, smp.Host != nil, host != nil)
		}
	}
	m := Series(samples, samples[0].Time, samples[len(samples)-1].Time, time.Second)
	if host == nil {
		return
	}
	cpu := m.Series(result.CPUUser)
	if cpu == nil || len(cpu.DataPoints) != len(samples)-1 {
		t.Fatalf("got %s series %+v, want %d points", result.CPUUser, cpu, len(samples)-1)
	}
	if m.Series(result.ProcessCPUUser) == nil {
		t.Errorf("got no %s series for the server's own process, want one", result.ProcessCPUUser)
	}
}

func TestSamplerRecordsFailedSamples(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close() // nothing listens there any more

	s := NewSampler("mongodb://"+addr+"/?connectTimeoutMS=100", nil)
	if err := s.Start(context.Background(), 100*time.Millisecond); err != nil {
		t.Fatalf("Start: got error %v, want none (connecting is lazy)", err)
	}
	time.Sleep(550 * time.Millisecond)
	samples := s.Stop()
	if len(samples) < 3 {
		t.Fatalf("got %d samples, want sampling to continue past failures (at least 3)", len(samples))
	}
	for i, smp := range samples {
		if smp.Status.Doc != nil || smp.Err == nil {
			t.Errorf("sample %d: got doc %v, error %v; want missing with an error", i, smp.Status.Doc, smp.Err)
		}
	}
	if m := Series(samples, samples[0].Time, samples[len(samples)-1].Time, time.Second); len(m.Measurements)+len(m.DiskMetrics) != 0 {
		t.Errorf("got series %v from failed samples, want none", describeAll(m))
	}
}

func TestSamplerStartStop(t *testing.T) {
	s := NewSampler("", nil)
	if got := s.Stop(); got != nil {
		t.Errorf("Stop before Start: got %v, want nil", got)
	}
	if err := s.Start(context.Background(), 0); err == nil {
		t.Error("Start(0): got no error, want one")
	}
	if err := s.Start(context.Background(), time.Hour); err != nil {
		t.Fatalf("Start: got error %v, want none", err)
	}
	if err := s.Start(context.Background(), time.Hour); err == nil {
		t.Error("second Start: got no error, want one")
	}
	if got := s.Stop(); len(got) != 1 {
		t.Errorf("Stop: got %d samples, want the 1 taken at Start", len(got))
	}
}

// replay gives recorded getDiagnosticData samples in turn, the last one
// again once they run out: a host reader that carries the server's
// status, as DiagnosticData does.
type replay struct {
	docs []bson.Raw
	n    int
}

func (r *replay) Read() (HostSample, error) { return HostFromDiagnosticData(r.next()) }

func (r *replay) Sample(context.Context) (Status, HostSample, error) {
	return SampleFromDiagnosticData(r.next())
}

func (r *replay) next() bson.Raw {
	d := r.docs[min(r.n, len(r.docs)-1)]
	r.n++
	return d
}

// When the host's reader carries the server's status, the sampler takes
// both from its one sample and sends no serverStatus: its server, which
// nothing listens on, is never asked.
func TestSamplerTakesStatusFromDiagnosticData(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	src := &replay{docs: []bson.Raw{diagnosticDataDoc(t, "getdiagnosticdata-before.json"), diagnosticDataDoc(t, "getdiagnosticdata-after.json")}}
	s := NewSampler("mongodb://"+addr+"/?connectTimeoutMS=100", src)
	s.ReplicaSet = true
	if err := s.Start(context.Background(), 50*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	time.Sleep(180 * time.Millisecond)
	samples := s.Stop()
	if len(samples) < 2 {
		t.Fatalf("%d samples, want at least 2", len(samples))
	}
	for i, smp := range samples {
		if smp.Err != nil || smp.Status.Source != SourceFTDC || smp.Status.Doc == nil || smp.Host == nil || !smp.Host.Time.Equal(smp.Status.Time) {
			t.Fatalf("sample %d: status source %q, doc %v, error %v: want the diagnostic data's, no serverStatus sent", i, smp.Status.Source, smp.Status.Doc != nil, smp.Err)
		}
	}
	if f := ServerFigures(samples[0].Status, samples[1].Status); f["insertPerSec"] != 1000 {
		t.Fatalf("figures %v: want 1,000 inserts/s over the samples' own starts", f)
	}
}

// replSetGetStatus on the embedded server (a replica set of one): no
// secondary, so no lag, and the serverStatus sample is kept whole.
func TestSamplerReplicaSetLive(t *testing.T) {
	uri, _, _ := testServer(t)
	s := NewSampler(uri, nil)
	s.ReplicaSet = true
	if err := s.Start(context.Background(), time.Hour); err != nil {
		t.Fatal(err)
	}
	samples := s.Stop()
	if len(samples) != 1 || samples[0].Status.Doc == nil || samples[0].Err != nil {
		t.Fatalf("samples %+v: want the one taken at Start, with its serverStatus", samples)
	}
	if samples[0].Status.Lags != nil {
		t.Fatalf("lags %v on a set of one: want none", samples[0].Status.Lags)
	}
}
