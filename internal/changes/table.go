package changes

import (
	"fmt"
	"math"
	"strings"

	"github.com/mongobench/mongobench/internal/significance"
	"github.com/mongobench/mongobench/internal/texttable"
)

// Table lists changes, one a row: id, stage, status, series, metric,
// before → after, change, p, suspect range and what changed across it.
func Table(cs []Change) *texttable.Table {
	t := texttable.New("id", "stage", "status", "series", "metric", ">before", ">after", ">change", ">p", "direction", "suspect runs", "configuration")
	for _, c := range cs {
		t.Add(c.ID, c.StageName(), string(c.Status), c.Series.String(), c.Metric,
			figure(c.Before, c.Unit), figure(c.After, c.Unit), Percent(c.Change), significance.PText2(c.P), c.Direction,
			c.LastStable.ID+" → "+c.FirstChanged.ID, strings.Join(c.ConfigChanges, "; "))
	}
	return t
}

func figure(v float64, unit string) string {
	if math.IsNaN(v) {
		return "—"
	}
	return texttable.Sig3(v) + " " + unit
}

// Percent writes a relative change as "+12.3%".
func Percent(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return "—"
	}
	return fmt.Sprintf("%+.1f%%", 100*v)
}
