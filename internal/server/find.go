package server

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Server kinds a Binary can be.
const (
	KindMongod   = "mongod"
	KindSecantus = "secantus"
)

// SecantusVersion is the SecantusDB release scripts/install-server.sh pins.
const SecantusVersion = "0.5.3-beta.193"

// secantusBinName is the name of the SecantusDB server executable.
const secantusBinName = "secantusd-rs"

// ErrNotFound reports that no server binary is installed.
var ErrNotFound = errors.New("no server binary found")

// Binary is a server executable and the kind of server it is.
type Binary struct {
	Path string
	Kind string
}

// Env is the part of the process environment this package depends on. The
// package never reads the environment itself: cli fills an Env (EnvFrom)
// and hands it over in Options or calls its methods.
type Env struct {
	// ServerBin ($MONGOBENCH_SERVER_BIN) is the server executable to run,
	// chosen explicitly; it wins over every binary Find would look for.
	ServerBin string
	// Cache ($MONGOBENCH_CACHE) is where installed servers live;
	// UserHome/.cache/mongobench when empty.
	Cache string
	// Home ($MONGOBENCH_HOME) holds the default server directory;
	// UserHome/.local/share/mongobench when empty.
	Home string
	// UserHome ($HOME) is the user's home directory.
	UserHome string
	// Path ($PATH) is the list of directories searched for mongod and
	// secantusd-rs.
	Path string
}

// EnvFrom reads an Env through getenv, such as os.Getenv.
func EnvFrom(getenv func(string) string) Env {
	return Env{
		ServerBin: getenv("MONGOBENCH_SERVER_BIN"),
		Cache:     getenv("MONGOBENCH_CACHE"),
		Home:      getenv("MONGOBENCH_HOME"),
		UserHome:  getenv("HOME"),
		Path:      getenv("PATH"),
	}
}

// Find returns the server binary to run: $MONGOBENCH_SERVER_BIN when set,
// then mongod on PATH, then the pinned SecantusDB build in the cache, then
// secantusd-rs on PATH.
func (e Env) Find() (Binary, error) {
	if e.ServerBin != "" {
		return fromEnv(e.ServerBin)
	}
	if p, ok := e.lookPath("mongod"); ok {
		return Binary{Path: p, Kind: KindMongod}, nil
	}
	if p := e.SecantusPath(); isExecutable(p) {
		return Binary{Path: p, Kind: KindSecantus}, nil
	}
	if p, ok := e.lookPath(secantusBinName); ok {
		return Binary{Path: p, Kind: KindSecantus}, nil
	}
	return Binary{}, fmt.Errorf("%w: no mongod or %s on PATH, MONGOBENCH_SERVER_BIN unset, nothing at %s",
		ErrNotFound, secantusBinName, e.SecantusPath())
}

// lookPath returns the first executable called name in the directories of
// e.Path, the way a shell finds a command.
func (e Env) lookPath(name string) (string, bool) {
	for _, dir := range filepath.SplitList(e.Path) {
		if !filepath.IsAbs(dir) {
			continue // as exec.LookPath, which refuses a command found relative to "."
		}
		if p := filepath.Join(dir, name); isExecutable(p) {
			return p, true
		}
	}
	return "", false
}

// fromEnv checks the binary named by $MONGOBENCH_SERVER_BIN and infers its kind.
func fromEnv(p string) (Binary, error) {
	if !isExecutable(p) {
		return Binary{}, fmt.Errorf("%w: MONGOBENCH_SERVER_BIN=%s is not an executable file", ErrNotFound, p)
	}
	return Binary{Path: p, Kind: kindOf(p)}, nil
}

// kindOf infers a server kind from an executable's file name.
func kindOf(path string) string {
	if strings.HasPrefix(filepath.Base(path), "mongod") {
		return KindMongod
	}
	return KindSecantus
}

// CacheDir is where installed servers live: $MONGOBENCH_CACHE or
// ~/.cache/mongobench.
func (e Env) CacheDir() string {
	if e.Cache != "" {
		return e.Cache
	}
	return filepath.Join(e.UserHome, ".cache", "mongobench")
}

// SecantusPath is where scripts/install-server.sh installs the pinned
// SecantusDB binary.
func (e Env) SecantusPath() string {
	return filepath.Join(e.CacheDir(), "secantus-"+SecantusVersion, "bin", secantusBinName)
}

// DefaultDir is the server directory used when none is given:
// $MONGOBENCH_HOME/server or ~/.local/share/mongobench/server.
func (e Env) DefaultDir() string {
	if e.Home != "" {
		return filepath.Join(e.Home, "server")
	}
	return filepath.Join(e.UserHome, ".local", "share", "mongobench", "server")
}

// isExecutable reports whether path is a regular file with an execute bit.
func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}
