package telemetry

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

func loadDiagnosticData(t *testing.T, name string) HostSample {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var reply bson.Raw
	if err := bson.UnmarshalExtJSON(b, false, &reply); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	s, err := HostFromDiagnosticData(reply.Lookup("data").Document())
	if err != nil {
		t.Fatal(err)
	}
	return s
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
