package bounded

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// A file larger than its bound is refused from its size, before a byte
// is read: a sparse file of 1GB is refused at once (infer --file read 615
// MB of such a file before refusing it).
func TestOpenAtMostRefusesFromTheSize(t *testing.T) {
	dir := t.TempDir()
	sparse := filepath.Join(dir, "sparse")
	f, err := os.Create(sparse)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(1 << 30); err != nil {
		t.Fatal(err)
	}
	_ = f.Close()
	if _, err := OpenAtMost(sparse, SampleFile); !errors.Is(err, ErrTooLarge) {
		t.Errorf("a 1GB file: %v, want ErrTooLarge", err)
	}
	fits := filepath.Join(dir, "fits")
	if err := os.WriteFile(fits, []byte("0123456789"), 0o600); err != nil {
		t.Fatal(err)
	}
	g, err := OpenAtMost(fits, small)
	if err != nil {
		t.Fatalf("a file at its bound: %v", err)
	}
	_ = g.Close()
	if _, err := OpenAtMost("/dev/zero", small); err == nil {
		t.Error("/dev/zero: opened, want refused")
	}
}
