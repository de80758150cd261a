package lab

import (
	"bytes"
	"io"
	"os"
	"path/filepath"

	"github.com/mongobench/mongobench/internal/htmlreport"
	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/study"
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
	md, charts, err := v.Markdown("charts")
	if err != nil {
		return "", err
	}
	files := make([]study.File, 0, len(charts)+1)
	for rel, svg := range charts {
		files = append(files, study.File{Path: rel, Data: svg})
	}
	var page bytes.Buffer
	if err := htmlreport.Run(&page, v, nil); err != nil {
		return "", err
	}
	files = append(files, study.File{Path: d.RunID + ".html", Data: page.Bytes()})
	return writeReportFiles(dir, d.RunID, md, files)
}

// WriteReport writes the Markdown report render writes, dir/name.md, the
// files it links, and the HTML report page writes, dir/name.html, and
// returns the Markdown report's path.
func WriteReport(dir, name string, render func(io.Writer) ([]study.File, error), page func(io.Writer) error) (string, error) {
	var b, h bytes.Buffer
	files, err := render(&b)
	if err != nil {
		return "", err
	}
	if err := page(&h); err != nil {
		return "", err
	}
	files = append(files, study.File{Path: name + ".html", Data: h.Bytes()})
	return writeReportFiles(dir, name, b.Bytes(), files)
}

// WriteStudyReport writes a study's report, name.md and name.html, into
// the report directory; render and page are handed the file names of the
// runs' Markdown reports. "" and no error without a report directory.
func (l *Lab) WriteStudyReport(name string, render func(w io.Writer, runs []string) ([]study.File, error), page func(w io.Writer, runs []string) error) (string, error) {
	if l.opts.ReportDir == "" {
		return "", nil
	}
	runs := make([]string, len(l.reports))
	for i, p := range l.reports {
		runs[i] = filepath.Base(p)
	}
	return WriteReport(l.opts.ReportDir, name,
		func(w io.Writer) ([]study.File, error) { return render(w, runs) },
		func(w io.Writer) error { return page(w, runs) })
}

// writeReportFiles writes dir/name.md and the files it links (paths
// relative to dir), and returns the report's path. Every file is joined
// to dir by within.Join: a name that would leave dir (a run id or a plan
// name such as "../x") writes nothing.
func writeReportFiles(dir, name string, md []byte, files []study.File) (string, error) {
	path, err := within.Join(dir, name+".md")
	if err != nil {
		return "", err
	}
	paths := make([]string, len(files))
	for i, f := range files {
		if paths[i], err = within.Join(dir, f.Path); err != nil {
			return "", err
		}
	}
	for i, f := range files {
		if err := os.MkdirAll(filepath.Dir(paths[i]), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(paths[i], f.Data, 0o644); err != nil {
			return "", err
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return path, os.WriteFile(path, md, 0o644)
}
