package htmlreport

import (
	"io"
	"strings"
)

// TitledDocument writes a rendered Markdown document as Document does,
// titled by its first top-level heading, else by name (its file's name
// without the extension).
func TitledDocument(w io.Writer, name string, md []byte) error {
	title := name
	for _, line := range strings.Split(string(md), "\n") {
		if h, ok := strings.CutPrefix(line, "# "); ok {
			title = strings.TrimSpace(h)
			break
		}
	}
	return Document(w, title, md)
}
