package telemetry

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/mongobench/mongobench/internal/result"
)

// burn keeps this process on CPU for d.
func burn(d time.Duration) {
	for end := time.Now().Add(d); time.Now().Before(end); {
	}
}

// onBlockDevice says whether dir's file system has a real device number
// (anonymous ones, used by overlay, tmpfs and proc, have major 0).
func onBlockDevice(t *testing.T, dir string) bool {
	t.Helper()
	var st syscall.Stat_t
	if err := syscall.Stat(dir, &st); err != nil {
		t.Fatal(err)
	}
	return unix.Major(uint64(st.Dev)) != 0 // Dev's width differs by architecture
}

func TestHostOwnProcess(t *testing.T) {
	dir := t.TempDir()
	h, err := NewHost(os.Getpid(), dir)
	if err != nil {
		t.Fatalf("NewHost: got error %v, want none", err)
	}
	if onBlockDevice(t, dir) && h.Device() == "" {
		t.Errorf("Device() = \"\" for %s, want the block device holding it", dir)
	}
	t.Logf("data directory %s is on device %q", dir, h.Device())

	before, err := h.Read()
	if err != nil {
		t.Fatalf("Read: got error %v, want none", err)
	}
	burn(300 * time.Millisecond)
	if err := os.WriteFile(filepath.Join(dir, "f"), make([]byte, 1<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	after, err := h.Read()
	if err != nil {
		t.Fatalf("Read: got error %v, want none", err)
	}

	if after.Cores < 1 || after.CPU == nil || after.Proc == nil {
		t.Fatalf("Read: got cores %d, cpu %v, proc %v; want all", after.Cores, after.CPU, after.Proc)
	}
	if (after.Disk != nil) != (h.Device() != "") {
		t.Errorf("Read: got disk %v for device %q, want counters exactly when there is a device", after.Disk, h.Device())
	}
	f := HostFigures(before, after)
	if f[KeyProcCPUUser]+f[KeyProcCPUKernel] <= 0 {
		t.Errorf("process CPU = %v user + %v kernel after 300ms busy, want > 0", f[KeyProcCPUUser], f[KeyProcCPUKernel])
	}
	if f[KeyCPUUser] <= 0 || f[KeyCPUUser] > 100 {
		t.Errorf("%s = %v, want in (0, 100]", KeyCPUUser, f[KeyCPUUser])
	}
	_, hasIOPS := f[KeyDiskIOPS]
	if hasIOPS != (h.Device() != "") {
		t.Errorf("%s present = %v, want %v", KeyDiskIOPS, hasIOPS, h.Device() != "")
	}
	t.Logf("host figures: %v", f)
}

func TestHostWithoutBlockDevice(t *testing.T) {
	h, err := NewHost(os.Getpid(), "/proc") // procfs has no block device
	if err != nil {
		t.Fatalf("NewHost: got error %v, want none", err)
	}
	if h.Device() != "" {
		t.Errorf("Device() = %q, want none", h.Device())
	}
	s, err := h.Read()
	if err != nil || s.Disk != nil {
		t.Errorf("Read: got disk %v, error %v; want no disk counters and no error", s.Disk, err)
	}
}

func TestHostProcessGone(t *testing.T) {
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("cannot run a short-lived process: %v", err)
	}
	h, err := NewHost(cmd.Process.Pid, t.TempDir())
	if err != nil {
		t.Fatalf("NewHost: got error %v, want none", err)
	}
	s, err := h.Read()
	if err == nil || s.Proc != nil {
		t.Errorf("Read of exited process: got proc %v, error %v; want missing with an error", s.Proc, err)
	}
	if s.CPU == nil {
		t.Error("Read of exited process: got no system CPU, want it read regardless")
	}
}

func TestNewHostMissingDir(t *testing.T) {
	if _, err := NewHost(os.Getpid(), filepath.Join(t.TempDir(), "absent")); err == nil {
		t.Error("NewHost(missing dir): got no error, want one")
	}
}

func TestSamplerHostOnly(t *testing.T) {
	h, err := NewHost(os.Getpid(), t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	s := NewSampler("", h)
	if err := s.Start(t.Context(), 50*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	burn(220 * time.Millisecond)
	samples := s.Stop()
	if len(samples) < 3 {
		t.Fatalf("got %d samples, want at least 3", len(samples))
	}
	m := Series(samples, samples[0].Time, samples[len(samples)-1].Time, time.Second)
	if m.Series(result.CPUUser) == nil || m.Series(result.OpTimeWrites) != nil {
		t.Errorf("got series %v, want host series and no server latency", describeAll(m))
	}
}
