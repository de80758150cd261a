package htmlreport

import (
	"io"
	"strings"
)

// Name is the file name of the HTML report written beside the Markdown
// report mdName ("run.md" → "run.html").
func Name(mdName string) string { return strings.TrimSuffix(mdName, ".md") + ".html" }

// Document writes a rendered Markdown document (the Performance Tables,
// or any template 'mongobench tables' rendered) as a page titled title.
func Document(w io.Writer, title string, md []byte) error {
	return (&page{title: title, markdown: md}).write(w)
}
