package lab

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/result"
)

// Every file of a report (the Markdown, its charts, its HTML page) is
// joined to the report directory by within.Join: a run id, a plan name
// or a chart's path that would leave it writes nothing at all.
func TestReportFilesStayInTheirDirectory(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "reports")
	for _, c := range []struct {
		name  string
		files []file
	}{
		{"../escaped-by-runid", []file{{path: "../escaped-by-runid.html"}}},
		{"plan-x/../../escaped", nil},
		{"run", []file{{path: "charts/../../escaped.svg"}}},
		{"run", []file{{path: "/tmp/escaped.svg"}}},
	} {
		if path, err := writeReportFiles(dir, c.name, []byte("# x\n"), c.files); err == nil || !strings.Contains(err.Error(), "would leave directory") {
			t.Errorf("%q %v: got %q, %v, want it refused", c.name, c.files, path, err)
		}
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 0 {
		t.Errorf("%s holds %v, want nothing written", parent, entries)
	}

	d := &result.Doc{RunID: "../escaped-by-runid"}
	if _, err := WriteRunReport(d, dir); err == nil {
		t.Errorf("a run whose id is a path: its report was written")
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 0 {
		t.Errorf("%s holds %v, want nothing written", parent, entries)
	}

	path, err := writeReportFiles(dir, "20260102T030405Z-ab12cd", []byte("# x\n"), []file{{path: "charts/a.svg", data: []byte("<svg/>")}})
	if err != nil || path != filepath.Join(dir, "20260102T030405Z-ab12cd.md") {
		t.Errorf("a run id: got %q, %v", path, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "charts", "a.svg")); err != nil {
		t.Errorf("its chart: %v", err)
	}
}

// A rendered document is written where asked, its directory made, and
// with html its page beside it.
func TestWriteDocument(t *testing.T) {
	path := filepath.Join(t.TempDir(), "out", "tables.md")
	if err := WriteDocument(path, []byte("# Tables\n\n| a |\n|---|\n| 1 |\n"), true); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(path)
	if err != nil || !strings.HasPrefix(string(md), "# Tables") {
		t.Errorf("markdown %q, %v", md, err)
	}
	page, err := os.ReadFile(filepath.Join(filepath.Dir(path), "tables.html"))
	if err != nil || !strings.Contains(string(page), "<table") || HTMLPath(path) != filepath.Join(filepath.Dir(path), "tables.html") {
		t.Errorf("page: %v\n%.300s", err, page)
	}
	other := filepath.Join(t.TempDir(), "plain.md")
	if err := WriteDocument(other, []byte("x"), false); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(HTMLPath(other)); err == nil {
		t.Error("a page written without html")
	}
}

// A page whose writing fails leaves no file behind.
func TestWriteFileRemovesAFailedFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "page.html")
	if err := WriteFile(path, func(w io.Writer) error { _, err := w.Write([]byte("<html>")); return err }); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "<html>" {
		t.Errorf("written: %q, %v", b, err)
	}
	failed := filepath.Join(t.TempDir(), "failed.html")
	err := WriteFile(failed, func(w io.Writer) error { _, _ = w.Write([]byte("<ht")); return errors.New("no chart") })
	if err == nil || err.Error() != failed+": no chart" {
		t.Errorf("a failed page: %v", err)
	}
	if _, err := os.Stat(failed); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("a failed page was left: %v", err)
	}
}

// Without a report directory a run has no report, and nothing is written.
func TestRunReportsWithoutADirectory(t *testing.T) {
	if paths, err := RunReports(&result.Doc{RunID: "r1"}, ""); paths != nil || err != nil {
		t.Errorf("got %v, %v", paths, err)
	}
}
