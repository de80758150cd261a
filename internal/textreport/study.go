package textreport

import (
	"bytes"
	"io"

	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/texttable"
)

// StudyMarkdown renders the view as a Markdown report. The charts map holds
// each chart's SVG under the path the report links it by (ChartPath);
// the caller writes them beside the report.
func StudyMarkdown(v *report.StudyView) (md []byte, charts map[string][]byte, err error) {
	var buf bytes.Buffer
	ew := &errWriter{w: &buf}
	charts = map[string][]byte{}
	ew.line("# %s", texttable.Escape(v.Title))
	mdBlocks(ew, v.Intro)
	if v.VerdictTitle != "" {
		ew.line("\n## %s", texttable.Escape(v.VerdictTitle))
	}
	mdBlocks(ew, v.Verdict)
	heading := false
	for _, c := range v.Charts {
		svg, err := c.SVG()
		if err != nil {
			return nil, nil, err
		}
		if svg == nil {
			continue
		}
		if !heading {
			ew.line("\n## Charts")
			heading = true
		}
		file := v.ChartPath(c)
		charts[file] = svg
		ew.line("\n![%s](%s)", texttable.Escape(c.Name), file)
		if c.Caption != "" {
			ew.line("\n*%s*", texttable.Escape(c.Caption))
		}
	}
	for _, s := range v.Sections {
		ew.line("\n## %s", texttable.Escape(s.Title))
		mdBlocks(ew, s.Blocks)
	}
	if len(v.Runs) > 0 {
		ew.line("\n## Runs\n")
		for _, r := range v.Runs {
			line := "- [" + texttable.Escape(r.Text) + "](" + r.Href + ")"
			if r.Note != "" {
				line += ": " + texttable.Escape(r.Note)
			}
			ew.line("%s", line)
		}
	}
	return buf.Bytes(), charts, ew.err
}

// mdBlocks writes blocks, a blank line before each.
func mdBlocks(ew *errWriter, bs []report.Block) {
	for _, b := range bs {
		ew.line("")
		mdBlock(ew, b)
	}
}

// Study renders the view for a terminal: the verdict, then the details,
// each section under its title; a missing figure is "—". What was asked,
// the charts and the links to the runs are the reports'.
func Study(w io.Writer, v *report.StudyView) error {
	ew := &errWriter{w: w}
	for i, b := range v.Verdict {
		if i > 0 {
			ew.line("")
		}
		textBlock(ew, b)
	}
	for i, s := range v.Sections {
		if i > 0 || len(v.Verdict) > 0 {
			ew.line("")
		}
		ew.line("%s\n", s.Title)
		for j, b := range s.Blocks {
			if j > 0 {
				ew.line("")
			}
			textBlock(ew, b)
		}
	}
	return ew.err
}

// textBlock writes one block for a terminal.
func textBlock(ew *errWriter, b report.Block) {
	switch {
	case b.Table != nil:
		if ew.err == nil {
			ew.err = TextTable(b.Table).WriteText(ew.w, true)
		}
	case b.Items != nil:
		for _, it := range b.Items {
			ew.line("- %s", it)
		}
	default:
		ew.line("%s", b.Text)
	}
}

// TextTable is t as a terminal shows it: an empty cell, a figure that
// was not measured, is "—".
func TextTable(t *texttable.Table) *texttable.Table {
	var cols []string
	for _, c := range t.Columns() {
		name := c.Name
		if c.Right {
			name = ">" + name
		}
		cols = append(cols, name)
	}
	out := texttable.New(cols...)
	for _, row := range t.Rows() {
		cells := make([]string, len(row))
		for i, c := range row {
			cells[i] = texttable.TextCells.Text(c)
		}
		out.Add(cells...)
	}
	return out
}
