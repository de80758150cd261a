package server

import (
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// testCacheSize is the storage cache a test server gets when none is set.
const testCacheSize = "256M"

// EmbeddedCacheSize is the storage cache of the embedded server mongobench
// starts for itself when none is asked for: a quarter of SecantusDB's own
// default, so the catalog's uncached query tests (a dataset twice the
// cache) load 2 GB rather than 8 on a small machine.
const EmbeddedCacheSize = "1G"

// secantusDefaultCache is SecantusDB's cache when --cache-size is not
// given (its --help: "default: 4G"; the empty --config keeps a
// secantusd.toml from changing it).
const secantusDefaultCache = "4G"

// serverArgs returns the command-line arguments for a server of the given
// kind listening on port, with its files under dir.
func serverArgs(kind string, o Options, port int, dir string) ([]string, error) {
	if kind == KindMongod {
		args, err := mongodArgs(o, port, dir)
		return append(args, o.ExtraArgs...), err
	}
	return append(secantusArgs(o, port, dir), o.ExtraArgs...), nil
}

// secantusArgs returns SecantusDB flags. An explicit --config pointing to
// an empty file stops it from picking up a secantusd.toml from the user's
// home or /etc.
func secantusArgs(o Options, port int, dir string) []string {
	args := []string{
		"--host", "127.0.0.1",
		"--port", strconv.Itoa(port),
		"--storage-path", filepath.Join(dir, "data"),
		"--config", filepath.Join(dir, secantusConfig),
	}
	if c := cacheSize(o); c != "" {
		args = append(args, "--cache-size", c)
	}
	if o.Test {
		args = append(args, "--log-file-max", "16MB")
	}
	if o.SyncOnCommit {
		args = append(args, "--sync-on-commit")
	}
	return args
}

// mongodArgs returns mongod flags for a one-node replica set. mongod has no
// sync-on-commit switch: with a replica set the default write concern is
// majority, which waits for the journal.
func mongodArgs(o Options, port int, dir string) ([]string, error) {
	args := []string{
		"--replSet", replSetName,
		"--bind_ip", "127.0.0.1",
		"--port", strconv.Itoa(port),
		"--dbpath", filepath.Join(dir, "data"),
		"--logpath", filepath.Join(dir, mongodLog),
		"--logappend",
	}
	c := cacheSize(o)
	if c == "" {
		return args, nil
	}
	gb, err := sizeGB(c)
	if err != nil {
		return nil, err
	}
	return append(args, "--wiredTigerCacheSizeGB", strconv.FormatFloat(gb, 'f', -1, 64)), nil
}

// cacheSize is the requested cache size, defaulting for test servers.
func cacheSize(o Options) string {
	if o.CacheSize == "" && o.Test {
		return testCacheSize
	}
	return o.CacheSize
}

// effectiveCacheSize is the cache a server of the given kind runs with:
// the one asked for, SecantusDB's default, or "" for a mongod left to size
// its own.
func effectiveCacheSize(kind string, o Options) string {
	if c := cacheSize(o); c != "" || kind == KindMongod {
		return c
	}
	return secantusDefaultCache
}

// CacheBytes converts a cache size such as "256M" or "1.5GB" to bytes.
func CacheBytes(s string) (int64, error) {
	gb, err := sizeGB(s)
	return int64(gb * (1 << 30)), err
}

var sizeRE = regexp.MustCompile(`^([0-9]+(?:\.[0-9]+)?)\s*([KMGT]?)(?:I?B)?$`)

// sizeGB converts a size such as "256M" or "1.5GB" to gigabytes.
func sizeGB(s string) (float64, error) {
	m := sizeRE.FindStringSubmatch(strings.ToUpper(strings.TrimSpace(s)))
	if m == nil {
		return 0, fmt.Errorf("invalid cache size %q: want a number with K, M, G or T", s)
	}
	n, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, fmt.Errorf("invalid cache size %q: %w", s, err)
	}
	unit := map[string]float64{"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}[m[2]]
	return n * unit / (1 << 30), nil
}

var cpusRE = regexp.MustCompile(`^[0-9]+(-[0-9]+)?(,[0-9]+(-[0-9]+)?)*$`)

// pinned wraps a command in `taskset -c cpus` when cpus is set.
func pinned(cpus, path string, args []string) (string, []string, error) {
	if cpus == "" {
		return path, args, nil
	}
	if !cpusRE.MatchString(cpus) {
		return "", nil, fmt.Errorf("invalid cpu list %q: want a list such as 0, 0-1 or 0,2", cpus)
	}
	ts, err := exec.LookPath("taskset")
	if err != nil {
		return "", nil, fmt.Errorf("pin server to cpus %s: %w", cpus, err)
	}
	return ts, append([]string{"-c", cpus, path}, args...), nil
}
