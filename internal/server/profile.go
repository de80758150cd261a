package server

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/unix"
)

// profileStopTimeout bounds how long stopping a profile's server may take.
const profileStopTimeout = 30 * time.Second

// Say prints a progress note for people; the command line hands it in.
type Say func(format string, args ...any)

// A Profile is the server of one target of a study: started for the
// study in a fresh directory of its own, on a free port, pinned to CPUs
// with a cache size, and removed with its data when it stops.
type Profile struct {
	Label     string // the target's label, naming the server in notes and errors
	CPUs      string // a CPU list for taskset -c, such as "0-1"; "" all
	CacheSize int64  // bytes of storage cache; 0 the server's default
	Env       Env    // where to find the server binary (from the cli)
}

// A ProfileServer is a running profile's server.
type ProfileServer struct {
	*Handle
	profile Profile
	dir     string // removed by Stop
	say     Say
}

// ProfilesDir holds the profiles' servers while they run: next to the
// embedded server's directory.
func ProfilesDir(serverDir string) string {
	return filepath.Join(filepath.Dir(serverDir), "profiles")
}

// StartProfile starts p's server in a fresh directory under root, on a
// free port, pinned to p's CPUs with its cache size, and says so. It is
// not detached: it dies with this process.
func StartProfile(ctx context.Context, root string, p Profile, say Say) (*ProfileServer, error) {
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("profile %s: %w", p.Label, err)
	}
	dir, err := os.MkdirTemp(root, "profile-")
	if err != nil {
		return nil, fmt.Errorf("profile %s: %w", p.Label, err)
	}
	o := Options{Dir: dir, Env: p.Env, CPUs: p.CPUs, SyncOnCommit: true}
	if p.CacheSize > 0 {
		o.CacheSize = fmt.Sprintf("%dM", p.CacheSize/(1<<20))
	}
	say("profile %s: starting a server (cpus %s, cache %s) in %s …\n", p.Label, orText(o.CPUs, "all"), orText(o.CacheSize, "default"), dir)
	h, err := Start(ctx, o)
	if err != nil {
		_ = os.RemoveAll(dir)
		return nil, fmt.Errorf("profile %s: start its server: %w", p.Label, err)
	}
	say("profile %s: %s %s at %s (pid %d)\n", p.Label, h.Kind, h.Version, h.URI, h.PID)
	return &ProfileServer{Handle: h, profile: p, dir: dir, say: say}, nil
}

// Stop stops the profile's server, also when ctx is done, and removes its
// directory. A server killed after ignoring SIGTERM is gone: its unclean
// storage is removed anyway.
func (s *ProfileServer) Stop(ctx context.Context) error {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), profileStopTimeout)
	defer cancel()
	how := "stopped"
	switch err := s.Handle.Stop(sctx); {
	case errors.Is(err, ErrKilled):
		how = "killed after ignoring SIGTERM"
	case err != nil:
		return fmt.Errorf("profile %s: stop its server (pid %d, data in %s): %w", s.profile.Label, s.PID, s.dir, err)
	}
	s.say("profile %s: %s (pid %d)\n", s.profile.Label, how, s.PID)
	if err := os.RemoveAll(s.dir); err != nil {
		return fmt.Errorf("profile %s: remove its data: %w", s.profile.Label, err)
	}
	return nil
}

// CheckCPUs reports the first of cpus this process may not run on, so a
// profile pinned to it fails before its server starts rather than in
// taskset. It says nothing when the process's CPU set cannot be read.
func CheckCPUs(cpus []int) error {
	var allowed unix.CPUSet
	if err := unix.SchedGetaffinity(0, &allowed); err != nil {
		return nil
	}
	for _, c := range cpus {
		if !allowed.IsSet(c) {
			return fmt.Errorf("names CPU %d, which this machine does not let mongobench use: want CPUs from the %d available", c, allowed.Count())
		}
	}
	return nil
}

func orText(s, none string) string {
	if s == "" {
		return none
	}
	return s
}
