// Package golden compares rendered output with files under testdata, for
// tests; `go test -update` rewrites the files.
package golden

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// Check compares got with testdata/name, or rewrites it with -update.
func Check(t testing.TB, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s: got\n%s\nwant\n%s", name, clip(got), clip(want))
	}
}

// clip keeps failure messages readable for long renderings.
func clip(b []byte) []byte {
	if len(b) > 4000 {
		return append(b[:4000:4000], "\n…"...)
	}
	return b
}
