package server

import (
	"encoding/json"
	"strings"
	"testing"
)

// A directory where no server was started: not running, said so, and as
// JSON a null server.
func TestStatusOfNoServer(t *testing.T) {
	dir := t.TempDir()
	st, err := StatusOf(dir)
	if err != nil || st.Running || st.Server != nil {
		t.Fatalf("got %+v, %v", st, err)
	}
	var b strings.Builder
	if err := st.WriteText(&b); err != nil || b.String() != "not running (directory "+dir+")\n" {
		t.Errorf("text %q, %v", b.String(), err)
	}
	if j, err := json.Marshal(st); err != nil || string(j) != `{"running":false,"server":null}` {
		t.Errorf("json %s, %v", j, err)
	}
	// A handle whose process is gone is not running.
	st = Status{Server: &Handle{PID: 0, URI: "mongodb://127.0.0.1:1/"}, Dir: dir}
	b.Reset()
	if err := st.WriteText(&b); err != nil || !strings.HasPrefix(b.String(), "not running") {
		t.Errorf("text %q, %v", b.String(), err)
	}
}
