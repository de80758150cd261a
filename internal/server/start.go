package server

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
)

// Files inside a server directory.
const (
	serverLog      = "server.log"
	mongodLog      = "mongod.log"
	secantusConfig = "secantusd.toml"
	lockFile       = ".lock"
)

// Waits while starting.
const (
	defaultTimeout = 60 * time.Second
	pollInterval   = 20 * time.Millisecond
	pingTimeout    = 500 * time.Millisecond
	portAttempts   = 3
)

// Options says how to start a server.
type Options struct {
	// Dir holds the data, the logs and the state file; the server owns it.
	// Env.DefaultDir() when empty.
	Dir string
	// Env is the environment to find the binary and the default directory
	// in (see EnvFrom).
	Env Env
	// Port is the loopback port to listen on; 0 picks a free one.
	Port int
	// CacheSize is the storage cache, such as "256M" or "1G"; empty leaves
	// the server's default (256M when Test is set).
	CacheSize string
	// SyncOnCommit makes every acknowledged write durable across a crash.
	SyncOnCommit bool
	// Test adds the small-footprint flags used by the test suite.
	Test bool
	// CPUs, such as "0" or "0-1", runs the server under taskset -c.
	CPUs string
	// Detach lets the server outlive this process, in a session of its own.
	// Otherwise it gets SIGTERM when this process dies.
	Detach bool
	// Binary is the server to run; Env.Find() when zero.
	Binary Binary
	// Timeout bounds the wait for the server to answer; 60s when zero.
	Timeout time.Duration
	// ExtraArgs are appended to the server's command line, such as
	// "--auth" for a test of authentication.
	ExtraArgs []string
}

// Start runs a server in o.Dir and returns once it answers hello as a
// writable primary. It refuses, with ErrRunning, a directory a live server
// owns, and replaces a stale state file.
func Start(ctx context.Context, o Options) (*Handle, error) {
	bin, err := o.binary()
	if err != nil {
		return nil, err
	}
	dir := o.Dir
	if dir == "" {
		dir = o.Env.DefaultDir()
	}
	dir, err = prepareDir(dir, bin.Kind)
	if err != nil {
		return nil, err
	}
	unlock, err := lockDir(dir)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if err := checkFree(dir); err != nil {
		return nil, err
	}
	return launch(ctx, bin, o, dir)
}

// binary returns the binary to run.
func (o Options) binary() (Binary, error) {
	if o.Binary.Path != "" {
		return o.Binary, nil
	}
	return o.Env.Find()
}

// timeout returns how long to wait for the server to answer.
func (o Options) timeout() time.Duration {
	if o.Timeout > 0 {
		return o.Timeout
	}
	return defaultTimeout
}

// prepareDir makes dir absolute and creates it with its data directory.
func prepareDir(dir, kind string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", fmt.Errorf("server dir %s: %w", dir, err)
	}
	if err := os.MkdirAll(filepath.Join(abs, "data"), 0o755); err != nil {
		return "", fmt.Errorf("create server dir: %w", err)
	}
	if kind != KindSecantus {
		return abs, nil
	}
	note := []byte("# Empty on purpose: keeps secantusd-rs from reading ~/.secantus or /etc/secantus.\n")
	if err := os.WriteFile(filepath.Join(abs, secantusConfig), note, 0o644); err != nil {
		return "", fmt.Errorf("write server config: %w", err)
	}
	return abs, nil
}

// lockDir holds an exclusive lock on dir so that two Starts cannot race.
func lockDir(dir string) (func(), error) {
	f, err := os.OpenFile(filepath.Join(dir, lockFile), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("lock server dir: %w", err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		_ = f.Close() // nothing was written; the lock error is the one to report
		return nil, fmt.Errorf("lock server dir %s: another start is in progress: %w", dir, err)
	}
	return func() { _ = f.Close() }, nil // closing releases the lock
}

// launch starts the server, trying other ports when a port it picked
// turns out to be taken.
func launch(ctx context.Context, bin Binary, o Options, dir string) (*Handle, error) {
	for attempt := 1; ; attempt++ {
		h, err := launchOnce(ctx, bin, o, dir)
		if err == nil || o.Port != 0 || attempt == portAttempts || !errors.Is(err, errPortTaken) {
			return h, err
		}
	}
}

// launchOnce starts the server and waits until it is ready.
func launchOnce(ctx context.Context, bin Binary, o Options, dir string) (*Handle, error) {
	port, err := choosePort(bin.Kind, o.Port)
	if err != nil {
		return nil, err
	}
	cmd, err := command(bin, o, port, dir)
	if err != nil {
		return nil, err
	}
	h, err := spawn(cmd, bin, port, dir)
	if err != nil {
		return nil, err
	}
	h.CacheSize = effectiveCacheSize(bin.Kind, o)
	if err := h.ready(ctx, o.timeout()); err != nil {
		return nil, errors.Join(err, h.kill())
	}
	if err := h.save(); err != nil {
		return nil, errors.Join(err, h.kill())
	}
	return h, nil
}

// choosePort returns the port to pass to the server. SecantusDB binds
// port 0 itself and reports the port it got, which avoids a race; for
// mongod a free port is picked here.
func choosePort(kind string, port int) (int, error) {
	if port != 0 || kind == KindSecantus {
		return port, nil
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("pick a free port: %w", err)
	}
	defer func() { _ = l.Close() }() // only its port was wanted
	return l.Addr().(*net.TCPAddr).Port, nil
}

// command builds the process to run, pinned to o.CPUs when set.
func command(bin Binary, o Options, port int, dir string) (*exec.Cmd, error) {
	args, err := serverArgs(bin.Kind, o, port, dir)
	if err != nil {
		return nil, err
	}
	path, args, err := pinned(o.CPUs, bin.Path, args)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(path, args...)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGTERM}
	if o.Detach {
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	}
	return cmd, nil
}

// spawn starts cmd with its output in the directory's log, records the
// state file, and reaps the process when it exits.
func spawn(cmd *exec.Cmd, bin Binary, port int, dir string) (*Handle, error) {
	out, err := os.OpenFile(filepath.Join(dir, serverLog), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open server log: %w", err)
	}
	cmd.Stdout, cmd.Stderr = out, out
	err = cmd.Start()
	_ = out.Close() // the server writes through its own descriptor
	if err != nil {
		return nil, fmt.Errorf("start %s: %w", bin.Path, err)
	}
	h := newHandle(bin, cmd.Process.Pid, port, dir)
	go func() {
		h.exitErr = cmd.Wait()
		close(h.exited)
	}()
	if err := h.save(); err != nil {
		return nil, errors.Join(err, h.kill())
	}
	return h, nil
}

// newHandle describes a server process that has just been started.
func newHandle(bin Binary, pid, port int, dir string) *Handle {
	h := &Handle{
		PID:       pid,
		Kind:      bin.Kind,
		Dir:       dir,
		DataDir:   filepath.Join(dir, "data"),
		LogPath:   filepath.Join(dir, serverLog),
		Binary:    bin.Path,
		StartedAt: time.Now().UTC(),
		exited:    make(chan struct{}),
	}
	if bin.Kind == KindMongod {
		h.LogPath = filepath.Join(dir, mongodLog)
	}
	h.setPort(port)
	return h
}

// setPort records the port the server listens on.
func (h *Handle) setPort(port int) {
	h.Port = port
	h.URI = ""
	if port != 0 {
		h.URI = fmt.Sprintf("mongodb://127.0.0.1:%d/?directConnection=true", port)
	}
}

// ready waits until the server answers, makes a mongod primary of its
// replica set, waits for a writable primary and reads the version.
func (h *Handle) ready(ctx context.Context, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	if err := h.poll(ctx, h.answers); err != nil {
		return err
	}
	if h.Kind == KindMongod {
		if err := initiate(ctx, h.URI, h.Port); err != nil {
			return h.failed(err)
		}
	}
	if err := h.poll(ctx, h.primary); err != nil {
		return err
	}
	v, err := serverVersion(ctx, h.URI)
	h.Version = v
	return err
}

// poll calls check until it succeeds, the process exits or ctx ends.
func (h *Handle) poll(ctx context.Context, check func(context.Context) bool) error {
	tick := time.NewTicker(pollInterval)
	defer tick.Stop()
	for !check(ctx) {
		select {
		case <-h.exited:
			return h.failed(fmt.Errorf("server exited before it was ready: %v", h.exitErr))
		case <-ctx.Done():
			return h.failed(fmt.Errorf("server not ready: %w", ctx.Err()))
		case <-tick.C:
		}
	}
	return nil
}

// answers reports whether the server answers a ping, once its port is known.
func (h *Handle) answers(ctx context.Context) bool {
	if h.Port == 0 {
		h.setPort(boundPort(h.Dir))
		if h.Port == 0 {
			return false
		}
	}
	if !listening(h.Port) {
		return false
	}
	ctx, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	return Ping(ctx, h.URI) == nil
}

// listening reports whether something accepts connections on the loopback
// port. It fails fast, unlike a driver ping, which waits out its timeout
// while the port is closed.
func listening(port int) bool {
	c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), pingTimeout)
	if err != nil {
		return false
	}
	_ = c.Close() // a probe: it connected, which is all that was asked
	return true
}

// primary reports whether the server says it is a writable primary.
func (h *Handle) primary(ctx context.Context) bool {
	ctx, cancel := context.WithTimeout(ctx, pingTimeout)
	defer cancel()
	ok, err := isPrimary(ctx, h.URI)
	return err == nil && ok
}
