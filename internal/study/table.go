package study

import (
	"strconv"

	"github.com/mongobench/mongobench/internal/texttable"
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

// cellsFor returns the cell formatter of f.
func cellsFor(f Format) texttable.Cells {
	if f == Markdown {
		return texttable.MarkdownCells
	}
	return texttable.TextCells
}

// table is the shared text and Markdown table writer.
type table = texttable.Table

func newTable(cols ...string) *table { return texttable.New(cols...) }

// sig3 formats v to three significant figures (texttable.Sig3).
func sig3(v float64) string { return texttable.Sig3(v) }

// thousands formats v as a whole number with thousands separators
// (texttable.Thousands).
func thousands(v float64) string { return texttable.Thousands(v) }

// trimFloat formats v with as many decimals as it needs.
func trimFloat(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// count formats an integer count.
func count(n int64) string { return strconv.FormatInt(n, 10) }

// fraction formats k of n, as in "3/5".
func fraction(k, n int) string { return strconv.Itoa(k) + "/" + strconv.Itoa(n) }
