package changes

import (
	"fmt"
	"math"
	"strings"

	"github.com/mongobench/mongobench/internal/significance"
	"github.com/mongobench/mongobench/internal/texttable"
)

// Table lists changes, one a row: id, stage, status, series, metric,
// before → after, change, p, suspect range, what changed across it in
// the configuration, and whether the client host moved across it
// (steady, moved, "—" without canaries on both sides).
func Table(cs []Change) *texttable.Table {
	t := texttable.New("id", "stage", "status", "series", "metric", ">before", ">after", ">change", ">p", "direction", "suspect runs", "configuration", "client host")
	for _, c := range cs {
		host := "—"
		switch c.ClientHost {
		case "":
		case Steady:
			host = Steady
		default:
			host = "moved"
		}
		t.Add(c.ID, c.StageName(), string(c.Status), c.Series.String(), c.Metric,
			figure(c.Before, c.Unit), figure(c.After, c.Unit), Percent(c.Change), significance.PText2(c.P), c.Direction,
			c.LastStable.ID+" → "+c.FirstChanged.ID, strings.Join(c.ConfigChanges, "; "), host)
	}
	return t
}

// HostNotes are the changes across which the client host moved, one line
// each: the change's id and what moved.
func HostNotes(cs []Change) []string {
	var out []string
	for _, c := range cs {
		if c.ClientHost != "" && c.ClientHost != Steady {
			out = append(out, c.ID+": "+c.ClientHost)
		}
	}
	return out
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
