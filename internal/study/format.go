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
