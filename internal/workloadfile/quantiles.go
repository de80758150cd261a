package workloadfile

import (
	"math"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// distQuantiles draws between equally spaced quantiles of a measured
// distribution (`quantiles: [3, 5, 8, 13, 40]`: the minimum, the
// quartiles, the maximum), linearly within each step: what `workload
// infer` writes for the lengths, sizes and numbers it measured.
const distQuantiles = "quantiles"

// maxQuantiles bounds a quantiles list.
const maxQuantiles = 1001

// quantiles reads a distribution given by its quantiles; min, max and
// dist do not go with them.
func (p *parser) quantiles(f map[string]*yaml.Node, path string, ints bool) *dist {
	for _, k := range []string{"min", "max", "dist", "theta", "hot", "hotShare", "mean", "stddev"} {
		if n := f[k]; n != nil {
			p.errorf(n, path+"."+k, "does not go with quantiles: the quantiles give the distribution and its range")
		}
	}
	n := resolve(f["quantiles"])
	qpath := path + ".quantiles"
	if n.Kind != yaml.SequenceNode || len(n.Content) < 2 || len(n.Content) > maxQuantiles {
		p.errorf(n, qpath, "got %s: want from 2 to %d equally spaced quantiles, the first the minimum and the last the maximum, such as [3, 5, 8, 13, 40]", kindOf(n), maxQuantiles)
		return &dist{kind: distConstant}
	}
	d := &dist{kind: distQuantiles, bounded: true}
	for i, it := range n.Content {
		ipath := qpath + "[" + strconv.Itoa(i) + "]"
		var v float64
		if ints {
			x, ok := p.int(it, ipath)
			if !ok {
				return &dist{kind: distConstant}
			}
			v = float64(x)
		} else if x, ok := p.float(it, ipath); ok {
			v = x
		} else {
			return &dist{kind: distConstant}
		}
		if i > 0 && v < d.q[i-1] {
			p.errorf(it, ipath, "%v is below the quantile before it (%v): want them in ascending order", v, d.q[i-1])
			return &dist{kind: distConstant}
		}
		d.q = append(d.q, v)
	}
	d.min, d.max = int64(math.Floor(d.q[0])), int64(math.Ceil(d.q[len(d.q)-1]))
	return d
}

// quantile draws between the quantiles.
func (d *dist) quantile(g *Gen) float64 {
	u := g.r.Float64() * float64(len(d.q)-1)
	i := int(u)
	if i >= len(d.q)-1 {
		return d.q[len(d.q)-1]
	}
	return lerp(d.q[i], d.q[i+1], u-float64(i))
}

// dateLayouts are the named layouts of a date written as text.
var dateLayouts = map[string]string{
	"rfc3339":   "2006-01-02T15:04:05Z07:00",
	"rfc3339ms": "2006-01-02T15:04:05.000Z07:00",
	"date":      "2006-01-02",
	"datetime":  "2006-01-02 15:04:05",
}

// dateLayout reads a !date's format: a named layout or a Go layout.
func (p *parser) dateLayout(n *yaml.Node, path string) string {
	n = resolve(n)
	if l, ok := dateLayouts[n.Value]; ok {
		return l
	}
	if n.Kind == yaml.ScalarNode && n.Value != "" {
		if showsYear(n.Value) {
			return n.Value
		}
	}
	p.errorf(n, path, "got %s: want rfc3339, rfc3339ms, date, datetime or a Go time layout such as \"02/01/2006 15:04\"", kindOf(n))
	return ""
}

// showsYear says whether a Go layout shows a date's year (2006 or 06).
func showsYear(layout string) bool {
	return strings.Contains(time.Date(2031, 7, 9, 13, 45, 56, 0, time.UTC).Format(layout), "31")
}
