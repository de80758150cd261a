package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// stateFile is the name of the state file inside a server directory.
const stateFile = "server.json"

// ErrRunning reports that a live server already owns a directory.
var ErrRunning = errors.New("server already running")

// Handle describes a started server. It is also the content of the state
// file, so a Handle loaded by another process can stop the same server.
type Handle struct {
	URI       string    `json:"uri"`
	PID       int       `json:"pid"`
	Kind      string    `json:"kind"`
	Port      int       `json:"port"`
	Dir       string    `json:"dir"`
	DataDir   string    `json:"dataDir"`
	LogPath   string    `json:"logPath"`
	Binary    string    `json:"binary"`
	Version   string    `json:"version"`
	StartedAt time.Time `json:"startedAt"`
	// CacheSize is the storage cache the server was started with, such as
	// "256M": the size asked for, or SecantusDB's documented default when
	// none was; empty when unknown (mongod sizes its cache from memory and
	// reports it in serverStatus).
	CacheSize string `json:"cacheSize,omitempty"`

	// exited is closed when a child started by this process exits; it is
	// nil in a Handle loaded from a state file.
	exited chan struct{}
	// exitErr is the child's exit status, valid once exited is closed.
	exitErr error
}

// Load reads the state file in dir. A missing file yields an error that
// matches fs.ErrNotExist.
func Load(dir string) (*Handle, error) {
	b, err := os.ReadFile(filepath.Join(dir, stateFile))
	if err != nil {
		return nil, fmt.Errorf("load server state: %w", err)
	}
	var h Handle
	if err := json.Unmarshal(b, &h); err != nil {
		return nil, fmt.Errorf("load server state %s: %w", filepath.Join(dir, stateFile), err)
	}
	return &h, nil
}

// Running reports whether the server's process is alive and answers a ping.
func Running(h *Handle) bool {
	if h == nil || !h.alive() {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return Ping(ctx, h.URI) == nil
}

// save writes h to the state file in its directory atomically.
func (h *Handle) save() error {
	b, err := json.MarshalIndent(h, "", "  ")
	if err != nil {
		return fmt.Errorf("encode server state: %w", err)
	}
	path := filepath.Join(h.Dir, stateFile)
	tmp := path + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o644); err != nil {
		return fmt.Errorf("write server state: %w", err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("write server state: %w", err)
	}
	return nil
}

// removeState deletes the state file if it still describes h's process.
func (h *Handle) removeState() error {
	cur, err := Load(h.Dir)
	if err != nil || cur.PID != h.PID {
		return nil
	}
	if err := os.Remove(filepath.Join(h.Dir, stateFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove server state: %w", err)
	}
	return nil
}

// alive reports whether h's process still exists. A Handle from Start
// knows exactly; a loaded one checks the pid and that the process is the
// server started on h's data directory, not a recycled pid.
func (h *Handle) alive() bool {
	if h.exited != nil {
		select {
		case <-h.exited:
			return false
		default:
			return true
		}
	}
	return pidAlive(h.PID) && cmdlineHas(h.PID, h.DataDir)
}

// pidAlive reports whether pid names a process that is not a zombie.
func pidAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && !errors.Is(err, syscall.EPERM) {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true // no procfs: trust kill(0)
	}
	i := bytes.LastIndexByte(stat, ')')
	return i < 0 || i+2 >= len(stat) || stat[i+2] != 'Z'
}

// cmdlineHas reports whether pid's command line has arg as one argument.
// Without procfs it assumes it does.
func cmdlineHas(pid int, arg string) bool {
	if arg == "" {
		return false
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil {
		return true
	}
	for _, a := range bytes.Split(b, []byte{0}) {
		if string(a) == arg {
			return true
		}
	}
	return false
}

// checkFree returns ErrRunning if a live server owns dir. A stale or
// unreadable state file does not count: Start replaces it.
func checkFree(dir string) error {
	h, err := Load(dir)
	if err != nil || !h.alive() {
		return nil
	}
	return fmt.Errorf("%w in %s (pid %d, %s); stop it first", ErrRunning, dir, h.PID, h.URI)
}

// Status is the state of the server whose state directory is Dir: its
// handle (nil when none was started there) and whether it runs.
type Status struct {
	Running bool    `json:"running"`
	Server  *Handle `json:"server"`
	Dir     string  `json:"-"`
}

// StatusOf reads the state of the server of dir.
func StatusOf(dir string) (Status, error) {
	h, err := Load(dir)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Status{}, err
	}
	return Status{Running: err == nil && Running(h), Server: h, Dir: dir}, nil
}

// WriteText says whether the server runs, and where: its version, URI,
// process, data, log and start.
func (s Status) WriteText(w io.Writer) error {
	if !s.Running {
		_, err := fmt.Fprintf(w, "not running (directory %s)\n", s.Dir)
		return err
	}
	h := s.Server
	_, err := fmt.Fprintf(w, "running: %s %s at %s\npid %d, data %s, log %s, since %s\n",
		h.Kind, h.Version, h.URI, h.PID, h.DataDir, h.LogPath, h.StartedAt.Format("2006-01-02 15:04:05"))
	return err
}
