package telemetry

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/testsupport/nodeexporter"
)

func TestHostFromRecordedNodeExporter(t *testing.T) {
	f, err := os.Open("testdata/node_exporter.prom")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	fams, err := ParseMetrics(f)
	if err != nil {
		t.Fatal(err)
	}
	dev, note := DataDevice(fams, "/var/lib/mongodb")
	if dev != "vda" || note != "" {
		t.Fatalf("DataDevice: got %q %q, want vda (the root file system's disk)", dev, note)
	}
	s := HostFromNodeExporter(fams, dev)
	if s.Source != SourceNodeExporter || s.Cores != 2 || s.Proc != nil {
		t.Errorf("got source %q, %d cores, proc %v; want node_exporter, 2, missing", s.Source, s.Cores, s.Proc)
	}
	// The sums of the recorded page's lines, by mode.
	if s.CPU == nil || math.Abs(s.CPU.User-(663.37+654.98)) > 1e-9 || math.Abs(s.CPU.Idle-(877.84+866.06)) > 1e-9 {
		t.Errorf("cpu: got %+v, want user 1318.35 and idle 1743.9", s.CPU)
	}
	if s.Disk == nil || s.Disk.WriteIOs != 123921 || s.Disk.ReadIOs != 71597 || s.Disk.WriteSectors != 10643214336/512 {
		t.Errorf("disk: got %+v, want vda's counters", s.Disk)
	}
	if s := HostFromNodeExporter(fams, "nvme9n1"); s.Disk != nil {
		t.Errorf("a device the page does not list: got %+v, want no disk counters", s.Disk)
	}
}

func TestDataDeviceFindsTheDiskOfAPartition(t *testing.T) {
	page := `node_filesystem_size_bytes{device="/dev/nvme0n1p2",fstype="xfs",mountpoint="/data"} 1e12
node_filesystem_size_bytes{device="/dev/sda1",fstype="ext4",mountpoint="/"} 1e11
node_filesystem_size_bytes{device="tmpfs",fstype="tmpfs",mountpoint="/run"} 1e9
node_disk_reads_completed_total{device="nvme0n1"} 5
node_disk_reads_completed_total{device="sda"} 7
`
	fams, err := ParseMetrics(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ dir, dev, note string }{
		{"/data/db", "nvme0n1", ""},
		{"/data", "nvme0n1", ""},
		{"/database", "sda", ""}, // not under /data: the root file system
		{"/run/mongo", "", "no disk counters for tmpfs"},
		{"", "", "data directory is unknown"},
	} {
		dev, note := DataDevice(fams, tt.dir)
		if dev != tt.dev || !strings.Contains(note, tt.note) || (tt.note == "") != (note == "") {
			t.Errorf("DataDevice(%q): got %q %q, want %q and a note containing %q", tt.dir, dev, note, tt.dev, tt.note)
		}
	}
}

// The node exporter source and the local /proc source agree over the same
// window on the same host: CPU within 5 percentage points, disk writes
// within 10%.
func TestNodeExporterAgreesWithProc(t *testing.T) {
	e := nodeexporter.Start(t)
	dir := t.TempDir()
	local, err := NewHost(os.Getpid(), dir)
	if err != nil {
		t.Fatal(err)
	}
	remote, err := NewNodeExporter(context.Background(), e.URL, "", dir, 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if local.Device() != remote.Device() {
		t.Fatalf("devices: local %q, node exporter %q (%s); want the same disk", local.Device(), remote.Device(), remote.Note())
	}
	read := func() (HostSample, HostSample) {
		l, err := local.Read()
		if err != nil {
			t.Fatal(err)
		}
		r, err := remote.Read()
		if err != nil {
			t.Fatal(err)
		}
		return l, r
	}
	l0, r0 := read()
	burn(1500 * time.Millisecond)
	writeSynced(t, filepath.Join(dir, "blob"), 32<<20)
	l1, r1 := read()
	lf, rf := HostFigures(l0, l1), HostFigures(r0, r1)
	busy := func(f map[string]float64) float64 { return f[KeyCPUUser] + f[KeyCPUKernel] }
	if math.Abs(busy(lf)-busy(rf)) > 5 {
		t.Errorf("CPU user+kernel: local %.1f%%, node exporter %.1f%%; want within 5 points", busy(lf), busy(rf))
	}
	if l1.Swap == nil || r1.Swap == nil || r1.Swap.In < l0.Swap.In || r1.Swap.In > l1.Swap.In+1000 || r1.Swap.Out < l0.Swap.Out || r1.Swap.Out > l1.Swap.Out+1000 {
		t.Errorf("swap counters: local %+v then %+v, node exporter %+v; want the same host's counters", l0.Swap, l1.Swap, r1.Swap)
	}
	if _, ok := rf[KeyProcCPUUser]; ok {
		t.Errorf("process CPU from the node exporter: got %v, want missing (it does not report processes)", rf[KeyProcCPUUser])
	}
	if local.Device() == "" {
		t.Logf("no block device under %s: disk counters are compared missing on both sides", dir)
		return
	}
	lw, rw := lf[KeyDiskWrite], rf[KeyDiskWrite]
	if lw <= 0 || math.Abs(lw-rw) > 0.1*lw {
		t.Errorf("disk write bytes/s: local %.0f, node exporter %.0f; want within 10%%", lw, rw)
	}
}

func writeSynced(t *testing.T, path string, n int) {
	t.Helper()
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write(make([]byte, n)); err != nil {
		t.Fatal(err)
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
}

// A node exporter that stops answering gives readings with every part
// missing and an error, never zeros.
func TestNodeExporterGoneIsMissing(t *testing.T) {
	e := nodeexporter.Start(t)
	n, err := NewNodeExporter(context.Background(), e.URL, "", t.TempDir(), time.Second)
	if err != nil {
		t.Fatal(err)
	}
	e.Stop()
	s, err := n.Read()
	if err == nil || s.CPU != nil || s.Disk != nil || s.Source != SourceNodeExporter {
		t.Errorf("got %+v, %v; want an error and no counters", s, err)
	}
}
