package study

import (
	"strconv"

	"github.com/mongobench/mongobench/internal/texttable"
)

// The number formats of the studies' verdict lines, as their views'
// tables show numbers (texttable).

// sig3 formats v to three significant figures (texttable.Sig3).
func sig3(v float64) string { return texttable.Sig3(v) }

// thousands formats v as a whole number with thousands separators
// (texttable.Thousands).
func thousands(v float64) string { return texttable.Thousands(v) }

// trimFloat formats v with as many decimals as it needs.
func trimFloat(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// count formats an integer count.
func count(n int64) string { return strconv.FormatInt(n, 10) }

// The number formats the views share with the verdict lines.

// Percent formats a fraction as a percentage without trailing zeros.
func Percent(f float64) string { return percent(f) }

// Plural formats a count and a noun, as in "1 run", "3 runs".
func Plural(n int64, noun string) string { return plural(n, noun) }

// Compact formats v to three significant figures with k or M, as in
// "12.3k".
func Compact(v float64) string { return compact(v) }

// SignedPercent formats r − 1 as a signed percentage, as in "+117%", or
// from three times up as a multiple ("31×").
func SignedPercent(r float64) string { return signedPercent(r) }

// Times formats a ratio as a multiple, as in "2.7×".
func Times(r float64) string { return times(r) }

// MsText formats milliseconds to three significant figures, whole
// milliseconds with thousands separators from 1,000 up.
func MsText(v float64) string { return msText(v) }

// SignedGain formats a calibration step's gain, as in "+2.1%".
func SignedGain(g float64) string { return signedGain(g) }
