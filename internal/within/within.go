// Package within joins the names of files the tool writes (a report named
// after a run id, its charts, a rescue file) to their directory, refusing
// any name that would leave it: a run id, a label or a plan's name is
// never a path.
package within

import (
	"fmt"
	"path/filepath"
	"strings"
)

// Join returns dir joined with name, a slash-separated path relative to
// dir, and refuses a name that would leave dir or is no file name: empty,
// absolute, with a ".." element, a backslash or a NUL byte. The check is
// on the name's text; the directory is the caller's to trust.
func Join(dir, name string) (string, error) {
	if name == "" || strings.ContainsAny(name, "\\\x00") || !filepath.IsLocal(filepath.FromSlash(name)) {
		return "", fmt.Errorf("file name %q would leave directory %s; want a name inside it (no '..', no leading '/', no '\\')", cut(name), dir)
	}
	for _, el := range strings.Split(name, "/") {
		if el == ".." || el == "" {
			return "", fmt.Errorf("file name %q would leave directory %s; want a name inside it (no '..', no empty element)", cut(name), dir)
		}
	}
	return filepath.Join(dir, filepath.FromSlash(name)), nil
}

// cut keeps an echoed name short.
func cut(s string) string {
	const max = 100
	if len(s) <= max {
		return s
	}
	return s[:max] + "…"
}
