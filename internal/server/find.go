package server

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
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

// Find returns the server binary to run: mongod on PATH, then
// $MONGOBENCH_SERVER_BIN, then the pinned SecantusDB build in the cache,
// then secantusd-rs on PATH.
func Find() (Binary, error) {
	if p, err := exec.LookPath("mongod"); err == nil {
		return Binary{Path: p, Kind: KindMongod}, nil
	}
	if p := os.Getenv("MONGOBENCH_SERVER_BIN"); p != "" {
		return fromEnv(p)
	}
	if p := SecantusPath(); isExecutable(p) {
		return Binary{Path: p, Kind: KindSecantus}, nil
	}
	if p, err := exec.LookPath(secantusBinName); err == nil {
		return Binary{Path: p, Kind: KindSecantus}, nil
	}
	return Binary{}, fmt.Errorf("%w: no mongod or %s on PATH, MONGOBENCH_SERVER_BIN unset, nothing at %s; run scripts/install-server.sh (or make setup)",
		ErrNotFound, secantusBinName, SecantusPath())
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
func CacheDir() string {
	if d := os.Getenv("MONGOBENCH_CACHE"); d != "" {
		return d
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".cache", "mongobench")
}

// SecantusPath is where scripts/install-server.sh installs the pinned
// SecantusDB binary.
func SecantusPath() string {
	return filepath.Join(CacheDir(), "secantus-"+SecantusVersion, "bin", secantusBinName)
}

// DefaultDir is the server directory used when none is given:
// $MONGOBENCH_HOME/server or ~/.local/share/mongobench/server.
func DefaultDir() string {
	if d := os.Getenv("MONGOBENCH_HOME"); d != "" {
		return filepath.Join(d, "server")
	}
	home, _ := os.UserHomeDir()
	return filepath.Join(home, ".local", "share", "mongobench", "server")
}

// isExecutable reports whether path is a regular file with an execute bit.
func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}
