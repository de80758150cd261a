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
