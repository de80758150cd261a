// Package texttable writes tables for people: aligned columns for a
// terminal and GitHub-flavoured Markdown, with numeric columns
// right-aligned, and the number format the reports share.
package texttable

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Table is a header and rows of cells.
type Table struct {
	head  []string
	right []bool // right-aligned columns (numbers)
	rows  [][]string
}

// New returns a table with the given columns; a name starting with ">"
// is a right-aligned column, the ">" not shown.
func New(cols ...string) *Table {
	t := &Table{}
	for _, c := range cols {
		name, right := strings.CutPrefix(c, ">")
		t.head = append(t.head, name)
		t.right = append(t.right, right)
	}
	return t
}

// Add appends a row.
func (t *Table) Add(cells ...string) { t.rows = append(t.rows, cells) }

// WriteText writes the rows as aligned columns, after the header row when
// header is set.
func (t *Table) WriteText(w io.Writer, header bool) error {
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
			pad := strings.Repeat(" ", widths[i]-Width(c))
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

func (t *Table) widths() []int {
	w := make([]int, len(t.head))
	for _, row := range append([][]string{t.head}, t.rows...) {
		for i, c := range row {
			w[i] = max(w[i], Width(c))
		}
	}
	return w
}

// WriteMarkdown writes the table in Markdown, numeric columns
// right-aligned; an empty cell stays empty.
func (t *Table) WriteMarkdown(w io.Writer) error {
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
				b.WriteString(" " + Escape(c))
			}
			b.WriteString(" ")
		}
		if _, err := fmt.Fprintln(w, b.String()+"|"); err != nil {
			return err
		}
	}
	return nil
}

// Width is the columns s takes in a terminal: one a rune, two for the
// pass and fail marks.
func Width(s string) int {
	return utf8.RuneCountInString(s) + strings.Count(s, "✅") + strings.Count(s, "❌")
}

// Escape writes s as literal Markdown text, for a table cell or a line
// of prose: nothing in it is markup. A < that could open an HTML tag, a
// comment or an autolink becomes &lt; (and a leading > &gt;), and a &
// that could start an entity &amp;, so a viewer that passes HTML through
// shows a label such as "<script>" as text; Markdown's punctuation
// (\ ` * [ ] ~ | and a _ that could open or close emphasis) is
// backslash-escaped, so "[x](javascript:...)" is no link; line breaks
// become spaces, so a value stays in its cell. A < or > between numbers
// ("achieved 3,000/s < 95%") stays as written.
func Escape(s string) string {
	var b strings.Builder
	lone := edgeUnderscores(s) < 2 // one _ opens no emphasis: nothing closes it
	for i := 0; i < len(s); i++ {
		next := byte(0)
		if i+1 < len(s) {
			next = s[i+1]
		}
		switch c := s[i]; {
		case c == '<' && (isLetter(next) || next == '/' || next == '!' || next == '?'):
			b.WriteString("&lt;")
		case c == '>' && i == 0:
			b.WriteString("&gt;")
		case c == '&' && (isLetter(next) || next == '#'):
			b.WriteString("&amp;")
		case strings.IndexByte("\\`*[]~|", c) >= 0:
			b.WriteByte('\\')
			b.WriteByte(c)
		case c == '_':
			if !lone && edgeUnderscore(s, i) {
				b.WriteByte('\\')
			}
			b.WriteByte(c)
		case c == '\r' && next == '\n':
		case c == '\r' || c == '\n':
			b.WriteByte(' ')
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }

// edgeUnderscore reports whether s[i], an underscore, is not between two
// word bytes, where it could open or close emphasis.
func edgeUnderscore(s string, i int) bool {
	return i == 0 || i == len(s)-1 || !wordByte(s[i-1]) || !wordByte(s[i+1])
}

// edgeUnderscores counts the underscores of s that could open or close
// emphasis.
func edgeUnderscores(s string) int {
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] == '_' && edgeUnderscore(s, i) {
			n++
		}
	}
	return n
}

// wordByte reports whether c is an ASCII letter or digit, or a byte of
// a multi-byte character: an underscore between two of them opens no
// emphasis.
func wordByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}

// Sig3 formats v to three significant figures without an exponent; values
// of 1000 and more keep all their integer digits.
func Sig3(v float64) string {
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

// Thousands formats v as a whole number with thousands separators, as in
// "5,000".
func Thousands(v float64) string {
	s := strconv.FormatFloat(math.Abs(math.Round(v)), 'f', 0, 64)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if math.Round(v) < 0 {
		s = "-" + s
	}
	return s
}

// Plural formats a count and a noun, as in "1 run", "3 runs".
func Plural(n int64, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.FormatInt(n, 10) + " " + noun + "s"
}

// PerSec formats a rate: whole numbers from 1000 up, one decimal from 10
// up, three significant figures below.
func PerSec(v float64) string {
	switch a := math.Abs(v); {
	case a >= 1000:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return Sig3(v)
}

// Cells formats optional values as cells; the terminal and Markdown
// differ only in how they show a value that was not measured.
type Cells struct{ Missing string }

// The cell formats of the terminal ("—") and of Markdown (an empty cell).
var (
	TextCells     = Cells{Missing: "—"}
	MarkdownCells = Cells{Missing: ""}
)

// Num formats an optional number to three significant figures.
func (c Cells) Num(p *float64) string { return c.Opt(p, Sig3) }

// Opt formats an optional number with format.
func (c Cells) Opt(p *float64, format func(float64) string) string {
	if p == nil {
		return c.Missing
	}
	return format(*p)
}

// Text returns s, or the missing marker when s is empty.
func (c Cells) Text(s string) string {
	if s == "" {
		return c.Missing
	}
	return s
}

// Column is a table's column: its name, and whether it holds numbers
// (right-aligned).
type Column struct {
	Name  string
	Right bool
}

// Columns returns the table's columns.
func (t *Table) Columns() []Column {
	out := make([]Column, len(t.head))
	for i, h := range t.head {
		out[i] = Column{Name: h, Right: t.right[i]}
	}
	return out
}

// Rows returns the table's rows, as added.
func (t *Table) Rows() [][]string { return t.rows }
