package lab

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mongobench/mongobench/internal/htmlreport"
	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/textreport"
	"github.com/mongobench/mongobench/internal/within"
)

// WriteRunReport writes the run's Markdown report and its charts under
// dir, and the HTML report beside it, both rendered from the run's one
// view, and returns the Markdown report's path.
func WriteRunReport(d *result.Doc, dir string) (string, error) {
	v, err := report.NewRunView(d)
	if err != nil {
		return "", err
	}
	md, charts, err := textreport.RunMarkdown(v, "charts")
	if err != nil {
		return "", err
	}
	files := make([]file, 0, len(charts)+1)
	for _, rel := range slices.Sorted(maps.Keys(charts)) {
		files = append(files, file{path: rel, data: charts[rel]})
	}
	var page bytes.Buffer
	if err := htmlreport.Run(&page, v, nil); err != nil {
		return "", err
	}
	files = append(files, file{path: d.RunID + ".html", data: page.Bytes()})
	return writeReportFiles(dir, d.RunID, md, files)
}

// RunReports writes the run's report into dir (WriteRunReport) and
// returns its path; none without a directory.
func RunReports(d *result.Doc, dir string) ([]string, error) {
	if dir == "" {
		return nil, nil
	}
	path, err := WriteRunReport(d, dir)
	if err != nil {
		return nil, fmt.Errorf("write report: %w", err)
	}
	return []string{path}, nil
}

// WriteStudyReport writes a study's view as its Markdown report,
// dir/<name>.md, with the charts it links, and as its HTML page beside
// it, dir/<name>.html, both rendered from the one view; it returns the
// Markdown report's path.
func WriteStudyReport(dir string, v *report.StudyView) (string, error) {
	md, charts, err := textreport.StudyMarkdown(v)
	if err != nil {
		return "", err
	}
	var page bytes.Buffer
	if err := htmlreport.Study(&page, v, nil); err != nil {
		return "", err
	}
	files := make([]file, 0, len(charts)+1)
	for _, rel := range slices.Sorted(maps.Keys(charts)) {
		files = append(files, file{path: rel, data: charts[rel]})
	}
	files = append(files, file{path: v.Name + ".html", data: page.Bytes()})
	return writeReportFiles(dir, v.Name, md, files)
}

// WriteDocument writes a rendered Markdown document (a filled template)
// to path and, with html, its HTML page beside it (name.md → name.html).
func WriteDocument(path string, doc []byte, html bool) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("output: %w", err)
	}
	if err := os.WriteFile(path, doc, 0o644); err != nil {
		return fmt.Errorf("output: %w", err)
	}
	if !html {
		return nil
	}
	var b bytes.Buffer
	if err := htmlreport.TitledDocument(&b, strings.TrimSuffix(filepath.Base(path), filepath.Ext(path)), doc); err != nil {
		return err
	}
	if err := os.WriteFile(HTMLPath(path), b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("output: %w", err)
	}
	return nil
}

// WriteFile creates path and writes it with fn (a page), removing it
// when fn fails: no half-written file is left.
func WriteFile(path string, fn func(io.Writer) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := fn(f); err != nil {
		_ = f.Close()
		_ = os.Remove(path)
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}

// HTMLPath is the path of a Markdown document's HTML page.
func HTMLPath(path string) string { return strings.TrimSuffix(path, filepath.Ext(path)) + ".html" }

// file is a file a report links, by its path relative to the report.
type file struct {
	path string
	data []byte
}

// writeReportFiles writes dir/name.md and the files it links (paths
// relative to dir), and returns the report's path. Every file is joined
// to dir by within.Join: a name that would leave dir (a run id or a plan
// name such as "../x") writes nothing.
func writeReportFiles(dir, name string, md []byte, files []file) (string, error) {
	path, err := within.Join(dir, name+".md")
	if err != nil {
		return "", err
	}
	paths := make([]string, len(files))
	for i, f := range files {
		if paths[i], err = within.Join(dir, f.path); err != nil {
			return "", err
		}
	}
	for i, f := range files {
		if err := os.MkdirAll(filepath.Dir(paths[i]), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(paths[i], f.data, 0o644); err != nil {
			return "", err
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return path, os.WriteFile(path, md, 0o644)
}
