package server

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/unix"
)

func TestProfilesDir(t *testing.T) {
	if got, want := ProfilesDir("/home/u/.local/share/mongobench/server"), "/home/u/.local/share/mongobench/profiles"; got != want {
		t.Errorf("ProfilesDir = %q, want %q", got, want)
	}
}

func TestCheckCPUs(t *testing.T) {
	var allowed unix.CPUSet
	if err := unix.SchedGetaffinity(0, &allowed); err != nil {
		t.Skipf("cannot read this process's CPU set: %v", err)
	}
	first := -1
	for c := range 1024 {
		if allowed.IsSet(c) {
			first = c
			break
		}
	}
	if err := CheckCPUs([]int{first}); err != nil {
		t.Errorf("CheckCPUs([%d]) = %v, want nil for a CPU this process runs on", first, err)
	}
	if err := CheckCPUs(nil); err != nil {
		t.Errorf("CheckCPUs(nil) = %v, want nil", err)
	}
	err := CheckCPUs([]int{first, 4096})
	if err == nil || !strings.HasPrefix(err.Error(), "names CPU 4096, which this machine does not let mongobench use") {
		t.Errorf("CheckCPUs([%d 4096]) = %v, want it to name CPU 4096", first, err)
	}
}

// TestStartProfileFailureRemovesItsDir: a profile whose server cannot
// start leaves no directory behind, and the error names the profile.
func TestStartProfileFailureRemovesItsDir(t *testing.T) {
	notExec := filepath.Join(t.TempDir(), "secantusd-rs")
	if err := os.WriteFile(notExec, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", t.TempDir())
	t.Setenv("MONGOBENCH_SERVER_BIN", notExec)
	root := filepath.Join(t.TempDir(), "profiles")
	var said []string
	say := func(format string, args ...any) { said = append(said, format) }
	_, err := StartProfile(context.Background(), root, Profile{Label: "tiny", CacheSize: 256 << 20}, say)
	if !errors.Is(err, ErrNotFound) || !strings.HasPrefix(err.Error(), "profile tiny: start its server: ") {
		t.Fatalf("StartProfile = %v, want a profile tiny error wrapping ErrNotFound", err)
	}
	left, _ := os.ReadDir(root)
	if len(left) != 0 {
		t.Errorf("%s holds %d entries after a failed start, want none", root, len(left))
	}
	if len(said) != 1 || !strings.Contains(said[0], "starting a server") {
		t.Errorf("said %q, want the one note that the server is starting", said)
	}
}
