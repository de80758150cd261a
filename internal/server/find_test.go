package server

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// itoa formats an int.
func itoa(n int) string { return strconv.Itoa(n) }

// emptyEnv points every place Find looks at empty directories under dir.
func emptyEnv(dir string) Env {
	return Env{Path: filepath.Join(dir, "bin"), Cache: filepath.Join(dir, "cache"), UserHome: dir}
}

// fakeExe writes an executable script at path.
func fakeExe(t *testing.T, path string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte("#!/bin/sh\nexit 0\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

func TestFindNothing(t *testing.T) {
	_, err := emptyEnv(t.TempDir()).Find()
	if !errors.Is(err, ErrNotFound) {
		t.Fatalf("Find: got %v, want ErrNotFound", err)
	}
	for _, want := range []string{"mongod", "MONGOBENCH_SERVER_BIN"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Find error %q does not mention %q", err, want)
		}
	}
}

func TestFindOrder(t *testing.T) {
	pinned := func(dir string) string {
		return filepath.Join(dir, "cache", "secantus-"+SecantusVersion, "bin", "secantusd-rs")
	}
	tests := []struct {
		name     string
		setup    func(t *testing.T, dir string, env *Env) string
		wantKind string
	}{
		{"MONGOBENCH_SERVER_BIN wins over mongod on PATH", func(t *testing.T, dir string, env *Env) string {
			p := filepath.Join(dir, "custom", "my-secantus")
			fakeExe(t, p)
			fakeExe(t, filepath.Join(dir, "bin", "mongod"))
			fakeExe(t, filepath.Join(dir, "bin", "secantusd-rs"))
			env.ServerBin = p
			return p
		}, KindSecantus},
		{"MONGOBENCH_SERVER_BIN naming a mongod", func(t *testing.T, dir string, env *Env) string {
			p := filepath.Join(dir, "custom", "mongod-8.0")
			fakeExe(t, p)
			env.ServerBin = p
			return p
		}, KindMongod},
		{"mongod on PATH wins over the cache", func(t *testing.T, dir string, _ *Env) string {
			fakeExe(t, pinned(dir))
			p := filepath.Join(dir, "bin", "mongod")
			fakeExe(t, p)
			return p
		}, KindMongod},
		{"pinned cache build", func(t *testing.T, dir string, _ *Env) string {
			p := pinned(dir)
			fakeExe(t, p)
			fakeExe(t, filepath.Join(dir, "bin", "secantusd-rs"))
			return p
		}, KindSecantus},
		{"cache under the home directory", func(t *testing.T, dir string, env *Env) string {
			env.Cache = ""
			p := filepath.Join(dir, ".cache", "mongobench", "secantus-"+SecantusVersion, "bin", "secantusd-rs")
			fakeExe(t, p)
			return p
		}, KindSecantus},
		{"secantusd-rs on PATH", func(t *testing.T, dir string, _ *Env) string {
			p := filepath.Join(dir, "bin", "secantusd-rs")
			fakeExe(t, p)
			return p
		}, KindSecantus},
		{"a relative PATH entry is not searched", func(t *testing.T, dir string, env *Env) string {
			fakeExe(t, filepath.Join(dir, "bin", "secantusd-rs"))
			t.Chdir(dir)
			env.Path = "bin"
			fakeExe(t, pinned(dir))
			return pinned(dir)
		}, KindSecantus},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			env := emptyEnv(dir)
			want := tt.setup(t, dir, &env)
			got, err := env.Find()
			if err != nil {
				t.Fatalf("Find: %v", err)
			}
			if got.Path != want || got.Kind != tt.wantKind {
				t.Errorf("Find = %+v, want {%s %s}", got, want, tt.wantKind)
			}
		})
	}
}

func TestFindBadEnvBin(t *testing.T) {
	dir := t.TempDir()
	env := emptyEnv(dir)
	fakeExe(t, filepath.Join(dir, "bin", "mongod"))
	env.ServerBin = filepath.Join(dir, "missing")
	if _, err := env.Find(); !errors.Is(err, ErrNotFound) || !strings.Contains(err.Error(), "MONGOBENCH_SERVER_BIN") {
		t.Errorf("Find: got %v, want ErrNotFound naming MONGOBENCH_SERVER_BIN", err)
	}
}

func TestEnvFrom(t *testing.T) {
	vars := map[string]string{
		"MONGOBENCH_SERVER_BIN": "/b/mongod", "MONGOBENCH_CACHE": "/c", "MONGOBENCH_HOME": "/m",
		"HOME": "/h", "PATH": "/usr/bin:/bin",
	}
	got := EnvFrom(func(k string) string { return vars[k] })
	want := Env{ServerBin: "/b/mongod", Cache: "/c", Home: "/m", UserHome: "/h", Path: "/usr/bin:/bin"}
	if got != want {
		t.Errorf("EnvFrom = %+v, want %+v", got, want)
	}
}

func TestDefaultDir(t *testing.T) {
	if got, want := (Env{Home: "/x/home", UserHome: "/h"}).DefaultDir(), "/x/home/server"; got != want {
		t.Errorf("DefaultDir = %q, want %q", got, want)
	}
	if got, want := (Env{UserHome: "/h"}).DefaultDir(), "/h/.local/share/mongobench/server"; got != want {
		t.Errorf("DefaultDir = %q, want %q", got, want)
	}
}

func TestSizeGB(t *testing.T) {
	tests := []struct {
		in   string
		want float64
	}{
		{"256M", 0.25}, {"1G", 1}, {"1.5GB", 1.5}, {"512mb", 0.5}, {"1T", 1024}, {"1048576K", 1},
	}
	for _, tt := range tests {
		got, err := sizeGB(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("sizeGB(%q) = %v, %v; want %v", tt.in, got, err, tt.want)
		}
	}
	if _, err := sizeGB("lots"); err == nil {
		t.Error(`sizeGB("lots") succeeded, want an error`)
	}
}

func TestEffectiveCacheSize(t *testing.T) {
	tests := []struct {
		kind string
		o    Options
		want string
	}{
		{KindSecantus, Options{}, "4G"},
		{KindSecantus, Options{Test: true}, "256M"},
		{KindSecantus, Options{CacheSize: "1G"}, "1G"},
		{KindMongod, Options{}, ""},
		{KindMongod, Options{Test: true}, "256M"},
	}
	for _, tt := range tests {
		if got := effectiveCacheSize(tt.kind, tt.o); got != tt.want {
			t.Errorf("effectiveCacheSize(%s, %+v) = %q, want %q", tt.kind, tt.o, got, tt.want)
		}
	}
	if got, err := CacheBytes("256M"); err != nil || got != 256<<20 {
		t.Errorf("CacheBytes(256M) = %d, %v; want %d", got, err, 256<<20)
	}
}

func TestServerArgs(t *testing.T) {
	o := Options{Test: true, SyncOnCommit: true}
	sec, _ := serverArgs(KindSecantus, o, 5000, "/d")
	want := "--host 127.0.0.1 --port 5000 --storage-path /d/data --config /d/secantusd.toml --cache-size 256M --log-file-max 16MB --sync-on-commit"
	if got := strings.Join(sec, " "); got != want {
		t.Errorf("secantus args:\n got %s\nwant %s", got, want)
	}
	mon, err := serverArgs(KindMongod, o, 5000, "/d")
	want = "--replSet rs0 --bind_ip 127.0.0.1 --port 5000 --dbpath /d/data --logpath /d/mongod.log --logappend --wiredTigerCacheSizeGB 0.25"
	if got := strings.Join(mon, " "); err != nil || got != want {
		t.Errorf("mongod args:\n got %s (%v)\nwant %s", got, err, want)
	}
}
