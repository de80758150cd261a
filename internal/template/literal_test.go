package template

import (
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/texttable"
)

// A value from the results is literal text in its cell, by the same rule
// as every other report's (texttable.Escape).
func TestCellsAreLiteral(t *testing.T) {
	for _, s := range []string{"insert_docsize", "<script>alert(1)</script>", "[x](javascript:alert(1))", "a|b\nc", "_em_ *b* ~d~ \\", "&lt; & x", "> q", "3 < 4 > 2", "é_é", "x_", "by _id, cached"} {
		if got, want := literal(s), texttable.Escape(s); got != want {
			t.Errorf("literal(%q) = %q, texttable.Escape gives %q", s, got, want)
		}
	}
	table := Table([]string{"label"}, []string{"Label"}, []map[string]any{{"label": "<script>alert(1)</script>"}, {"label": "[x](javascript:alert(1))"}})
	if strings.Contains(table, "<script") || strings.Contains(table, "[x](") {
		t.Errorf("got\n%s\nwant the labels as text", table)
	}
}
