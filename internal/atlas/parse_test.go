package atlas

import (
	"errors"
	"os"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/result"
)

func read(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestParseProcessMeasurements(t *testing.T) {
	m, err := ParseMeasurements(read(t, "process-measurements.json"))
	if err != nil {
		t.Fatal(err)
	}
	if m.Granularity != 10*time.Second || len(m.Series) != 3 {
		t.Fatalf("got granularity %v and %d series, want 10s and 3", m.Granularity, len(m.Series))
	}
	cpu := m.Series[0]
	if cpu.Name != result.CPUUser || cpu.Source != "atlas" || cpu.GranularitySec != 10 || cpu.Units != "PERCENT" {
		t.Errorf("first series: got %s from %q every %gs in %s", cpu.Name, cpu.Source, cpu.GranularitySec, cpu.Units)
	}
	if len(cpu.DataPoints) != 3 || *cpu.DataPoints[1].Value != 43.25 || cpu.DataPoints[2].Value != nil {
		t.Errorf("points: got %+v, want 41.5, 43.25 and a missing one", cpu.DataPoints)
	}
}

func TestParseDiskMeasurementsAndPartitions(t *testing.T) {
	parts, err := ParsePartitions(read(t, "disks.json"))
	if err != nil || len(parts) != 1 || parts[0] != "data" {
		t.Fatalf("partitions: got %v %v, want [data]", parts, err)
	}
	m, err := ParseMeasurements(read(t, "disk-measurements.json"))
	if err != nil {
		t.Fatal(err)
	}
	w := m.Series[2]
	if m.Granularity != time.Minute || w.Name != result.DiskWriteBytes || *w.DataPoints[0].Value != 157286400 || w.GranularitySec != 60 {
		t.Errorf("got %v %+v", m.Granularity, w)
	}
}

func TestParseCluster(t *testing.T) {
	in, err := ParseCluster(read(t, "cluster.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := result.Instance{AtlasInstanceType: "M40", AtlasIOPS: 3000, AtlasDiskType: "PROVISIONED", AtlasDiskSizeGB: 200}
	if in.AtlasInstanceType != want.AtlasInstanceType || in.AtlasIOPS != want.AtlasIOPS || in.AtlasDiskType != want.AtlasDiskType || in.AtlasDiskSizeGB != want.AtlasDiskSizeGB {
		t.Errorf("got %+v, want %+v", in, want)
	}
	if _, err := ParseCluster([]byte(`{"name": "x"}`)); err == nil {
		t.Error("a description without replicationSpecs: got no error")
	}
}

func TestAPIErrorNamesTheCode(t *testing.T) {
	err := apiError("/api/atlas/v2/groups/g/processes/p/measurements", 400, read(t, "error-granularity.json"))
	var e *Error
	if !errors.As(err, &e) || e.Code != "INVALID_GRANULARITY" || e.Status != 400 {
		t.Fatalf("got %v", err)
	}
	if got := err.Error(); got != "atlas /api/atlas/v2/groups/g/processes/p/measurements: HTTP 400 INVALID_GRANULARITY: Invalid granularity PT10S for this cluster tier." {
		t.Errorf("message: %q", got)
	}
}

func TestParseGranularityRefusesOthers(t *testing.T) {
	if _, err := ParseGranularity("PT30S"); err == nil {
		t.Error("PT30S: got no error")
	}
}

func TestCredentialsCheckNamesNoSecret(t *testing.T) {
	for _, c := range []Credentials{{ClientID: "id"}, {PrivateKey: "s3cret"}, {}} {
		err := c.Check()
		if err == nil {
			t.Errorf("%+v: got no error", c)
			continue
		}
		if msg := err.Error(); contains(msg, "s3cret") || contains(msg, "id ") && c.ClientID == "id" && contains(msg, `"id"`) {
			t.Errorf("message names a secret: %q", msg)
		}
	}
}

func contains(s, sub string) bool { return len(sub) > 0 && len(s) >= len(sub) && indexOf(s, sub) >= 0 }

func indexOf(s, sub string) int {
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			return i
		}
	}
	return -1
}
