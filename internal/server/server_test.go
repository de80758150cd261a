package server

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// needBinary returns the server binary, skipping in -short mode and
// failing otherwise when none is installed.
func needBinary(t *testing.T) Binary {
	t.Helper()
	if testing.Short() {
		t.Skip("needs a real server; skipped with -short")
	}
	bin, err := EnvFrom(os.Getenv).Find()
	if err != nil {
		t.Fatalf("Find: %v", err)
	}
	return bin
}

// startTest starts a test server in a fresh directory and stops it at cleanup.
func startTest(t *testing.T, o Options) *Handle {
	t.Helper()
	o.Binary, o.Test = needBinary(t), true
	if o.Dir == "" {
		o.Dir = t.TempDir()
	}
	begin := time.Now()
	h, err := Start(context.Background(), o)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Logf("%s %s answered on port %d after %v", h.Kind, h.Version, h.Port, time.Since(begin))
	t.Cleanup(func() {
		if err := h.Stop(context.Background()); err != nil {
			t.Errorf("Stop at cleanup: %v", err)
		}
	})
	return h
}

// pingWithin pings h with the given timeout.
func pingWithin(h *Handle, d time.Duration) error {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	return h.Ping(ctx)
}

func TestLifecycle(t *testing.T) {
	h := startTest(t, Options{})
	if h.Port == 0 || h.PID == 0 || h.Version == "" {
		t.Fatalf("handle = %+v, want port, pid and version set", h)
	}
	if err := pingWithin(h, 2*time.Second); err != nil {
		t.Fatalf("ping: %v", err)
	}
	loaded, err := Load(h.Dir)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	if loaded.PID != h.PID || loaded.URI != h.URI || loaded.Kind != h.Kind || loaded.DataDir != h.DataDir {
		t.Errorf("Load = %+v, want %+v", loaded, h)
	}
	if !Running(loaded) {
		t.Fatal("Running(loaded) = false, want true")
	}
	freezeThaw(t, h)
	if err := loaded.Stop(context.Background()); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	if Running(loaded) || Running(h) {
		t.Error("Running after Stop = true, want false")
	}
	if _, err := Load(h.Dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("Load after Stop: got %v, want ErrNotExist", err)
	}
}

// freezeThaw checks that a frozen server misses a short ping and answers
// again once thawed.
func freezeThaw(t *testing.T, h *Handle) {
	t.Helper()
	if err := h.Freeze(); err != nil {
		t.Fatalf("Freeze: %v", err)
	}
	thawed := time.AfterFunc(300*time.Millisecond, func() { _ = h.Thaw() })
	defer thawed.Stop()
	if err := pingWithin(h, 100*time.Millisecond); err == nil {
		t.Error("ping of a frozen server succeeded, want a timeout")
	}
	time.Sleep(300 * time.Millisecond)
	if err := pingWithin(h, 2*time.Second); err != nil {
		t.Errorf("ping after Thaw: %v", err)
	}
}

func TestStopFrozen(t *testing.T) {
	h := startTest(t, Options{})
	if err := h.Freeze(); err != nil {
		t.Fatalf("Freeze: %v", err)
	}
	begin := time.Now()
	if err := h.Stop(context.Background()); err != nil {
		t.Fatalf("Stop of a frozen server: %v", err)
	}
	if d := time.Since(begin); d > 10*time.Second {
		t.Errorf("Stop of a frozen server took %v, want it to thaw and stop promptly", d)
	}
}

func TestStartRefusesLiveDir(t *testing.T) {
	h := startTest(t, Options{})
	_, err := Start(context.Background(), Options{Dir: h.Dir, Binary: needBinary(t), Test: true})
	if !errors.Is(err, ErrRunning) {
		t.Fatalf("second Start: got %v, want ErrRunning", err)
	}
	if !strings.Contains(err.Error(), h.Dir) {
		t.Errorf("error %q does not name the directory %s", err, h.Dir)
	}
	if !Running(h) {
		t.Error("first server stopped running after the refused Start")
	}
}

func TestStartReplacesStaleState(t *testing.T) {
	dir := t.TempDir()
	stale := &Handle{PID: deadPID(t), Port: 1, Dir: dir, DataDir: filepath.Join(dir, "data")}
	if err := stale.save(); err != nil {
		t.Fatal(err)
	}
	h := startTest(t, Options{Dir: dir})
	loaded, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if loaded.PID != h.PID {
		t.Errorf("state pid = %d, want the new server's %d", loaded.PID, h.PID)
	}
}

// deadPID returns the pid of a process that has exited and been reaped.
func deadPID(t *testing.T) int {
	t.Helper()
	p, err := os.StartProcess("/bin/true", []string{"true"}, &os.ProcAttr{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Wait(); err != nil {
		t.Fatal(err)
	}
	return p.Pid
}

func TestStartRestartsOnSameData(t *testing.T) {
	dir := t.TempDir()
	h := startTest(t, Options{Dir: dir})
	if err := h.Stop(context.Background()); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	h2 := startTest(t, Options{Dir: dir})
	if !Running(h2) {
		t.Error("restarted server is not running")
	}
}

func TestStartDetachedPinned(t *testing.T) {
	h := startTest(t, Options{Detach: true, CPUs: "0"})
	sid, err := getsid(h.PID)
	if err != nil {
		t.Fatal(err)
	}
	if sid != h.PID {
		t.Errorf("server session = %d, want its own (%d)", sid, h.PID)
	}
	if got := cpusAllowed(t, h.PID); got != "0" {
		t.Errorf("server cpus = %q, want %q", got, "0")
	}
}

// getsid returns the session id of pid.
func getsid(pid int) (int, error) {
	sid, _, errno := syscall.RawSyscall(syscall.SYS_GETSID, uintptr(pid), 0, 0)
	if errno != 0 {
		return 0, errno
	}
	return int(sid), nil
}

// cpusAllowed reads the CPU list a process may run on.
func cpusAllowed(t *testing.T, pid int) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("/proc", itoa(pid), "status"))
	if err != nil {
		t.Skipf("no procfs: %v", err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "Cpus_allowed_list:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return ""
}

func TestStartFailsFastWithLog(t *testing.T) {
	bin := needBinary(t)
	// SecantusDB rejects the size once running; mongod's is checked before exec.
	o := Options{Dir: t.TempDir(), Binary: bin, Test: true, CacheSize: "notasize"}
	start := time.Now()
	_, err := Start(context.Background(), o)
	if err == nil {
		t.Fatal("Start with a bad cache size succeeded")
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("Start took %v to fail, want a fast failure", d)
	}
	if _, lerr := Load(o.Dir); !errors.Is(lerr, os.ErrNotExist) {
		t.Errorf("state after failed Start: got %v, want none", lerr)
	}
	t.Logf("error: %v", err)
}

func TestStartBadCPUs(t *testing.T) {
	_, err := Start(context.Background(), Options{
		Dir: t.TempDir(), CPUs: "zero", Binary: Binary{Path: "/bin/true", Kind: KindSecantus},
	})
	if err == nil || !strings.Contains(err.Error(), "invalid cpu list") {
		t.Errorf("Start with CPUs %q: got %v, want an invalid cpu list error", "zero", err)
	}
}

func TestStartWithAuth(t *testing.T) {
	h := startTest(t, Options{ExtraArgs: []string{"--auth"}})
	if !Running(h) {
		t.Error("server started with --auth does not answer a ping")
	}
}
