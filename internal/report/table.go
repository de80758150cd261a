package report

import (
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// table is a grid of cells with a header, rendered as aligned text for the
// terminal or as a Markdown table.
type table struct {
	head  []string
	right []bool // right-aligned columns (numbers)
	rows  [][]string
}

// newTable returns a table with the given columns. A column name that
// starts with ">" is right-aligned; the ">" is not shown.
func newTable(cols ...string) *table {
	t := &table{}
	for _, c := range cols {
		name, right := strings.CutPrefix(c, ">")
		t.head = append(t.head, name)
		t.right = append(t.right, right)
	}
	return t
}

// add appends a row.
func (t *table) add(cells ...string) { t.rows = append(t.rows, cells) }

// widths returns each column's width in runes.
func (t *table) widths() []int {
	w := make([]int, len(t.head))
	for _, row := range append([][]string{t.head}, t.rows...) {
		for i, c := range row {
			w[i] = max(w[i], utf8.RuneCountInString(c))
		}
	}
	return w
}

// writeText writes the table as aligned columns, with or without its
// header row.
func (t *table) writeText(w io.Writer, header bool) error {
	widths := t.widths()
	lines := t.rows
	if header {
		lines = append([][]string{t.head}, t.rows...)
	}
	for _, row := range lines {
		var b strings.Builder
		for i, c := range row {
			if i > 0 {
				b.WriteString("  ")
			}
			pad := strings.Repeat(" ", widths[i]-utf8.RuneCountInString(c))
			if t.right[i] {
				b.WriteString(pad + c)
			} else {
				b.WriteString(c + pad)
			}
		}
		if _, err := fmt.Fprintln(w, strings.TrimRight(b.String(), " ")); err != nil {
			return err
		}
	}
	return nil
}

// writeMarkdown writes the table in GitHub-flavoured Markdown, numeric
// columns right-aligned.
func (t *table) writeMarkdown(w io.Writer) error {
	rule := make([]string, len(t.head))
	for i := range rule {
		rule[i] = "---"
		if t.right[i] {
			rule[i] = "---:"
		}
	}
	lines := append([][]string{t.head, rule}, t.rows...)
	for _, row := range lines {
		var b strings.Builder
		for _, c := range row {
			b.WriteString("|")
			if c != "" {
				b.WriteString(" " + mdEscape(c))
			}
			b.WriteString(" ")
		}
		if _, err := fmt.Fprintln(w, b.String()+"|"); err != nil {
			return err
		}
	}
	return nil
}

// mdEscape makes s safe inside a Markdown table cell.
func mdEscape(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}
