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
	if after.Swap == nil || f[KeySwapIn] < 0 || f[KeySwapOut] < 0 {
		t.Errorf("swap: counters %v, figures in %v out %v; want /proc/vmstat's, rates at least 0", after.Swap, f[KeySwapIn], f[KeySwapOut])
	}
	if _, ok := f[KeySwapIn]; !ok {
		t.Errorf("%s missing from %v", KeySwapIn, f)
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

// /proc/vmstat's swap counters are read by name among its other lines;
// a file without them, or with a count that is not one, is an error.
func TestParseSwap(t *testing.T) {
	sw, err := parseSwap("nr_free_pages 301234\npgpgin 88\npswpin 17\npswpout 4096\npgfault 1\n")
	if err != nil || sw.In != 17 || sw.Out != 4096 {
		t.Fatalf("got %+v, %v; want in 17, out 4096", sw, err)
	}
	for _, bad := range []string{"pgpgin 88\n", "pswpin 17\npswpout x\n", "pswpin 17\n"} {
		if sw, err := parseSwap(bad); err == nil {
			t.Errorf("parseSwap(%q) = %+v, want an error", bad, sw)
		}
	}
	b := HostSample{Time: time.Unix(0, 0), Swap: &SwapPages{In: 100, Out: 50}}
	a := HostSample{Time: time.Unix(2, 0), Swap: &SwapPages{In: 140, Out: 50}}
	if f := HostFigures(b, a); f[KeySwapIn] != 20 || f[KeySwapOut] != 0 {
		t.Errorf("swap rates %v, want in 20/s, out 0/s", f)
	}
	a.Swap.In = 10 // the host rebooted between the readings
	if f := HostFigures(b, a); f != nil {
		t.Errorf("counters that fell: %v, want no figures", f)
	}
}
