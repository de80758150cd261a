package ftdc

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// scanErr scans path (a file or a directory) and returns its error.
func scanErr(t *testing.T, path string) error {
	t.Helper()
	files, err := Files(path)
	if err != nil {
		return err
	}
	_, err = Scan{Files: files}.Run(func(*Chunk, Document) error { return nil })
	return err
}

// Hostile input ends in one line naming the file and the offset of the
// document at fault, and nothing is read beyond a document's bound.
func TestReaderHostileInput(t *testing.T) {
	dir := t.TempDir()
	writeDir(t, dir)
	good := filepath.Join(dir, "metrics.2026-03-01T12-00-00Z-00000")
	data, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	docs, err := Parse(data, good)
	if err != nil {
		t.Fatal(err)
	}
	last := docs[len(docs)-1]

	cut := filepath.Join(t.TempDir(), "metrics.2026-03-01T12-00-00Z-00000")
	if err := os.WriteFile(cut, data[:len(data)-7], 0o644); err != nil {
		t.Fatal(err)
	}
	huge := filepath.Join(t.TempDir(), "metrics.huge")
	f, err := os.Create(huge)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.Write([]byte{0xff, 0xff, 0xff, 0x7f}); err != nil { // a 2 GB document
		t.Fatal(err)
	}
	if err := f.Truncate(4 << 30); err != nil { // sparse: 4 GB on no disk
		t.Fatal(err)
	}
	_ = f.Close()
	text := filepath.Join(t.TempDir(), "notes")
	if err := os.WriteFile(filepath.Join(text), []byte("hello"), 0o644); err != nil {
		t.Fatal(err)
	}
	notFTDC := t.TempDir()
	if err := os.WriteFile(filepath.Join(notFTDC, "mongod.log"), []byte("{}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		path string
		want string
	}{
		{huge, huge + ": byte 0: document length 2147483647: a document is 5 bytes to 16MB"},
		{text, text + ": byte 0: document length 1819043176"},
		{"/dev/zero", "/dev/zero: a device, not a regular file; give a file"},
		{notFTDC, notFTDC + ": no metrics.* files (an FTDC directory is a server's diagnostic.data)"},
	} {
		err := scanErr(t, c.path)
		if err == nil || !strings.HasPrefix(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: error %v, want one line starting %q", c.path, err, c.want)
		}
	}

	// A file torn inside its last document (copied while the server
	// wrote it): every whole document before it is read, and the scan
	// says at which byte the file ends early.
	chunks := 0
	for _, d := range docs[:len(docs)-1] {
		if d.Kind == KindMetricChunk {
			chunks++
		}
	}
	info, err := Scan{Files: []string{cut}}.Run(func(*Chunk, Document) error { return nil })
	want := cut + ": ends early at byte " + strconv.FormatInt(last.Offset, 10) + ": its last document of " + strconv.Itoa(len(data)-int(last.Offset)) + " bytes is cut after " + strconv.Itoa(len(data)-int(last.Offset)-7)
	if err != nil || info.Chunks != chunks || len(info.Torn) != 1 || !strings.HasPrefix(info.Torn[0], want) {
		t.Errorf("torn file: %+v, %v: want its %d whole chunks read and %q", info, err, chunks, want)
	}
}
