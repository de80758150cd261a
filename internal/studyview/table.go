package studyview

import (
	"strconv"
	"time"

	"github.com/mongobench/mongobench/internal/texttable"
)

// cells formats the cells of the views' tables: a value that was not
// measured is an empty cell, which each renderer shows its own way (the
// terminal "—", Markdown an empty cell).
var cells = texttable.MarkdownCells

// table is the shared text and Markdown table writer.
type table = texttable.Table

func newTable(cols ...string) *table { return texttable.New(cols...) }

// sig3 formats v to three significant figures (texttable.Sig3).
func sig3(v float64) string { return texttable.Sig3(v) }

// thousands formats v as a whole number with thousands separators
// (texttable.Thousands).
func thousands(v float64) string { return texttable.Thousands(v) }

// count formats an integer count.
func count(n int64) string { return strconv.FormatInt(n, 10) }

// fraction formats k of n, as in "3/5".
func fraction(k, n int) string { return strconv.Itoa(k) + "/" + strconv.Itoa(n) }

// ms is d in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
