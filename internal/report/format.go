package report

import (
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/mongobench/mongobench/internal/texttable"

	"github.com/mongobench/mongobench/internal/result"
)

// cells formats optional values; textCells and mdCells are the terminal's
// and Markdown's.
type cells = texttable.Cells

var (
	textCells = texttable.TextCells
	mdCells   = texttable.MarkdownCells
)

// sig3 formats v to three significant figures (texttable.Sig3).
func sig3(v float64) string { return texttable.Sig3(v) }

// elapsed formats seconds to the millisecond, without trailing zeros.
func elapsed(secs float64) string {
	return strconv.FormatFloat(math.Round(secs*1000)/1000, 'f', -1, 64)
}

// perSec formats a rate (texttable.PerSec).
func perSec(v float64) string { return texttable.PerSec(v) }

// count formats an integer count.
func count(n int64) string { return strconv.FormatInt(n, 10) }

// seconds formats a duration given in milliseconds as seconds.
func seconds(ms float64) string { return sig3(ms/1000) + " s" }

// stamp formats a time in UTC to the second, or "" for the zero time.
func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format("2006-01-02 15:04:05 UTC")
}

// errorClasses lists the non-zero error classes, as in
// "2 timeout, 1 network".
func errorClasses(e result.Errors) string {
	classes := []struct {
		n    int64
		name string
	}{
		{e.Timeout, "timeout"}, {e.Network, "network"},
		{e.WriteConflict, "write conflict"}, {e.DuplicateKey, "duplicate key"},
		{e.Overload, "overload"}, {e.Other, "other"},
	}
	var parts []string
	for _, c := range classes {
		if c.n != 0 {
			parts = append(parts, count(c.n)+" "+c.name)
		}
	}
	return strings.Join(parts, ", ")
}
