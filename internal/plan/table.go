package plan

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Format selects how a table renders.
type Format int

const (
	// Text is aligned columns for a terminal; a missing value is "—".
	Text Format = iota
	// Markdown is a GitHub-flavoured Markdown table; a missing value is an
	// empty cell.
	Markdown
)

// cells formats values as table cells; formats differ only in how they
// show a missing value.
type cells struct{ missing string }

// cellsFor returns the cell formatter of f.
func cellsFor(f Format) cells {
	if f == Markdown {
		return cells{missing: ""}
	}
	return cells{missing: "—"}
}

// num formats an optional latency to three significant figures.
func (c cells) num(p *float64) string {
	if p == nil {
		return c.missing
	}
	return sig3(*p)
}

// text returns s, or the missing marker when s is empty.
func (c cells) text(s string) string {
	if s == "" {
		return c.missing
	}
	return s
}

// table is a grid of cells with a header.
type table struct {
	head  []string
	right []bool // right-aligned columns (numbers)
	rows  [][]string
}

// newTable returns a table with the given columns; a name starting with
// ">" is a right-aligned column, the ">" not shown.
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

// write renders the table in format f.
func (t *table) write(w io.Writer, f Format) error {
	if f == Markdown {
		return t.writeMarkdown(w)
	}
	return t.writeText(w)
}

// writeText writes the header and rows as aligned columns.
func (t *table) writeText(w io.Writer) error {
	widths := make([]int, len(t.head))
	lines := append([][]string{t.head}, t.rows...)
	for _, row := range lines {
		for i, c := range row {
			widths[i] = max(widths[i], width(c))
		}
	}
	for _, row := range lines {
		var b strings.Builder
		for i, c := range row {
			if i > 0 {
				b.WriteString("  ")
			}
			pad := strings.Repeat(" ", widths[i]-width(c))
			if t.right[i] {
				c = pad + c
			} else {
				c += pad
			}
			b.WriteString(c)
		}
		if _, err := fmt.Fprintln(w, strings.TrimRight(b.String(), " ")); err != nil {
			return err
		}
	}
	return nil
}

// writeMarkdown writes the table in Markdown, numeric columns
// right-aligned.
func (t *table) writeMarkdown(w io.Writer) error {
	rule := make([]string, len(t.head))
	for i := range rule {
		rule[i] = "---"
		if t.right[i] {
			rule[i] = "---:"
		}
	}
	for _, row := range append([][]string{t.head, rule}, t.rows...) {
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

// width returns the columns s takes in a terminal; the pass and fail marks
// are double width.
func width(s string) int {
	return utf8.RuneCountInString(s) + strings.Count(s, markPass) + strings.Count(s, markFail)
}

// mdEscape makes s safe inside a Markdown table cell.
func mdEscape(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	return strings.ReplaceAll(s, "\n", " ")
}

// sig3 formats v to three significant figures without an exponent; values
// of 1000 and more keep all their integer digits.
func sig3(v float64) string {
	if v == 0 || math.IsNaN(v) || math.IsInf(v, 0) {
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	if math.Abs(v) >= 1000 {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'g', 3, 64), 64)
	prec := 2 - int(math.Floor(math.Log10(math.Abs(r))))
	return strconv.FormatFloat(r, 'f', max(prec, 0), 64)
}

// thousands formats v as a whole number with thousands separators, as in
// "5,000".
func thousands(v float64) string {
	s := strconv.FormatFloat(math.Abs(math.Round(v)), 'f', 0, 64)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if math.Round(v) < 0 {
		s = "-" + s
	}
	return s
}

// trimFloat formats v with as many decimals as it needs.
func trimFloat(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// count formats an integer count.
func count(n int64) string { return strconv.FormatInt(n, 10) }

// fraction formats k of n, as in "3/5".
func fraction(k, n int) string { return strconv.Itoa(k) + "/" + strconv.Itoa(n) }
