package within

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestJoin(t *testing.T) {
	dir := filepath.Join("reports", "x")
	for name, want := range map[string]string{
		"run.md":                       filepath.Join(dir, "run.md"),
		"charts/run-a.svg":             filepath.Join(dir, "charts", "run-a.svg"),
		"20260102T030405Z-ab12cd.html": filepath.Join(dir, "20260102T030405Z-ab12cd.html"),
		"..x.md":                       filepath.Join(dir, "..x.md"),
	} {
		got, err := Join(dir, name)
		if err != nil || got != want {
			t.Errorf("%q: got %q, %v, want %q", name, got, err, want)
		}
	}
	for _, name := range []string{"", "../escaped-by-runid.md", "..", "a/../../b", "/etc/passwd", "a//b", "a\\..\\b", "a\x00b", "charts/../../x.svg", strings.Repeat("../", 200) + "x"} {
		if got, err := Join(dir, name); err == nil || !strings.Contains(err.Error(), "would leave directory "+dir) {
			t.Errorf("%q: got %q, %v, want it refused", name, got, err)
		}
	}
}
