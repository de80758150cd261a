package lab

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/server"
)

// A machine with only the binary (a release download, the container
// image) and no server is told what it can do, not to run a script it
// does not have.
func TestNoServerSaysWhatToDo(t *testing.T) {
	dir := t.TempDir()
	srv := Servers{Dir: filepath.Join(dir, "server"), Env: server.Env{Path: filepath.Join(dir, "bin"), Cache: filepath.Join(dir, "cache"), UserHome: dir}}
	_, err := Embedded(t.Context(), srv, true, func(string, ...any) {})
	if err == nil {
		t.Fatal("Embedded: no error without a server binary")
	}
	for _, want := range []string{"--uri", "mongod on PATH", "$MONGOBENCH_SERVER_BIN"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "scripts/install-server.sh") {
		t.Errorf("error %q names a script a user with only the binary does not have", err)
	}
}

// version on a machine with no server says the tool's, Go's and the
// driver's versions, and what to do for a server, not a script to run.
func TestVersionsWithoutAServer(t *testing.T) {
	dir := t.TempDir()
	srv := Servers{Dir: filepath.Join(dir, "server"), Env: server.Env{Path: filepath.Join(dir, "bin"), Cache: filepath.Join(dir, "cache"), UserHome: dir}}
	v := VersionsOf(t.Context(), srv, "1.2.3")
	if v.Version != "1.2.3" || !strings.HasPrefix(v.Go, "go1.") || !strings.HasPrefix(v.Driver, "v2.") || v.Server != nil {
		t.Fatalf("versions %+v", v)
	}
	var b strings.Builder
	if err := v.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if len(lines) != 4 || lines[0] != "mongobench 1.2.3" || !strings.HasPrefix(lines[2], "driver     go.mongodb.org/mongo-driver/v2 v2.") {
		t.Fatalf("text:\n%s", b.String())
	}
	if !strings.HasPrefix(lines[3], "server     none installed: give --uri ") || !strings.Contains(lines[3], "mongod on PATH") || strings.Contains(lines[3], "install-server.sh") {
		t.Errorf("no server: %q", lines[3])
	}
	srv.Env.ServerBin = filepath.Join(dir, "nosuch")
	if v := VersionsOf(t.Context(), srv, "1.2.3"); v.Server == nil || !strings.Contains(v.Server.Error, "MONGOBENCH_SERVER_BIN="+srv.Env.ServerBin+" is not an executable file") {
		t.Errorf("a server binary named that is not there: %+v", v.Server)
	}
}
