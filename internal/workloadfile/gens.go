package workloadfile

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/brianvoe/gofakeit/v7"
	"go.yaml.in/yaml/v3"

	"github.com/mongobench/mongobench/internal/datagen"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/ycsb"
)

// Distributions of !int, !float, lengths and !key.
const (
	distConstant   = "constant"
	distUniform    = "uniform"
	distZipfian    = "zipfian"
	distHotspot    = "hotspot"
	distSequential = "sequential"
	distNormal     = "normal"
)

var dists = []string{distUniform, distZipfian, distHotspot, distSequential, distNormal}

// distKeys are the keys of a distribution's mapping.
var distKeys = []string{"min", "max", "dist", "theta", "hot", "hotShare", "mean", "stddev", "quantiles"}

// zetaExact is how many terms of a zipfian's zeta are summed; the rest
// of a larger range is its integral (the midpoint rule over x^-θ, whose
// error there is below 1e-12 of the sum), so reading a file costs the
// same whatever its ranges.
const zetaExact = 100_000

// zeta is the zipfian's normalising sum over n values with skew theta.
func zeta(n int64, theta float64) float64 {
	if n <= zetaExact {
		return ycsb.Zeta(n, theta)
	}
	e := 1 - theta
	return ycsb.Zeta(zetaExact, theta) + (math.Pow(float64(n)+0.5, e)-math.Pow(zetaExact+0.5, e))/e
}

// Tags lists the generator tags.
var tags = []string{"!int", "!int32", "!float", "!seq", "!string", "!choice", "!fake", "!date", "!now", "!objectid", "!uuid",
	"!binary", "!array", "!object", "!maybe", "!bool", "!ref", "!key", "!ejson", "!sample", "!pad", "!expr"}

// generator compiles a tagged node.
func (p *parser) generator(n *yaml.Node, path string) node {
	tp := path + ": " + n.Tag
	switch n.Tag {
	case "!int", "!int32":
		if n.Kind == yaml.ScalarNode { // a constant of the type
			v, _ := p.int(n, tp)
			if n.Tag == "!int32" {
				if v < math.MinInt32 || v > math.MaxInt32 {
					p.errorf(n, tp, "%d does not fit in 32 bits", v)
				}
				return &literal{t: typeInt32, raw: appendInt32(nil, int32(v))}
			}
			return &literal{t: typeInt64, raw: appendInt64(nil, v)}
		}
		f := p.args(n, tp, distKeys)
		if f == nil {
			return nullNode
		}
		return &intGen{d: p.dist(n, f, tp, false), int32_: n.Tag == "!int32"}
	case "!float":
		return p.floatGen(n, tp)
	case "!seq":
		return p.seqGen(n, tp)
	case "!string":
		return p.stringGen(n, tp)
	case "!choice":
		return p.choiceGen(n, tp)
	case "!fake":
		f, ok := fakes[n.Value]
		if !ok || n.Kind != yaml.ScalarNode {
			p.unknownValue(n, tp, "fake kind", fakeKinds())
			return nullNode
		}
		return &fakeGen{f: f}
	case "!date":
		return p.dateGen(n, tp)
	case "!now":
		p.noArgs(n, tp)
		return &dateGen{min: instant{now: true}, max: instant{now: true}}
	case "!objectid":
		p.noArgs(n, tp)
		s := uint64(0)
		if p.coll != nil {
			s = p.coll.salt
		}
		return &oidGen{salt: s}
	case "!uuid":
		p.noArgs(n, tp)
		s := uint64(0)
		if p.coll != nil {
			s = p.coll.salt
		}
		return &uuidGen{salt: s}
	case "!binary":
		return p.binaryGen(n, tp)
	case "!array", "!object":
		f := p.args(n, tp, []string{"length", "of"})
		if f == nil {
			return nullNode
		}
		if f["length"] == nil || f["of"] == nil {
			p.errorf(n, tp, "want {length: N or {min, max}, of: a value}")
			return nullNode
		}
		l, of := p.length(f["length"], tp+".length", 0), p.value(f["of"], path+".of")
		if n.Tag == "!array" {
			return &arrayGen{length: l, of: of}
		}
		return &objectGen{length: l, of: of}
	case "!maybe":
		return p.maybeGen(n, tp, path)
	case "!bool":
		if resolve(n).Kind == yaml.ScalarNode && n.Value == "" {
			return &boolGen{p: 0.5}
		}
		f := p.args(n, tp, []string{"true"})
		if f == nil || f["true"] == nil {
			return &boolGen{p: 0.5}
		}
		return &boolGen{p: p.share(f["true"], tp+".true")}
	case "!ref":
		return p.refGen(n, tp)
	case "!key":
		return p.keyGen(n, tp)
	case "!ejson":
		return p.ejson(n, tp)
	case "!sample":
		return p.sampleGen(n, tp)
	case "!pad":
		return p.padGen(n, tp)
	case "!expr":
		fields := p.siblings
		p.siblings = nil
		return p.exprGen(n, tp, fields)
	}
	hint := ""
	if m := closestTag(n.Tag); m != "" {
		hint = " (did you mean " + m + "?)"
	}
	p.errorf(n, path, "unknown generator %s%s: want one of %s", n.Tag, hint, strings.Join(tags, " "))
	return nullNode
}

var nullNode = &literal{t: typeNull}

// counter makes a sequence's shared counter, which Reset sets back.
func (p *parser) counter() *atomic.Int64 {
	c := new(atomic.Int64)
	p.f.seqs = append(p.f.seqs, c)
	return c
}

func closestTag(tag string) string {
	for _, t := range tags {
		if strings.EqualFold(t, tag) {
			return t
		}
	}
	for _, t := range tags {
		if strings.HasPrefix(t, tag) || strings.HasPrefix(tag, t) {
			return t
		}
	}
	return ""
}

// args returns a generator's mapping of arguments (nil, after saying
// why, when n is not a mapping).
func (p *parser) args(n *yaml.Node, path string, valid []string) map[string]*yaml.Node {
	if n.Kind != yaml.MappingNode {
		p.errorf(n, path, "got %s: want a mapping of %s", kindOf(n), strings.Join(valid, ", "))
		return nil
	}
	return p.mapping(n, path, n.Tag+" key", valid)
}

func (p *parser) noArgs(n *yaml.Node, path string) {
	if n.Kind != yaml.ScalarNode || n.Value != "" {
		p.errorf(n, path, "takes no arguments: got %s", kindOf(n))
	}
}

// dist reads a distribution over [min, max]: max is required but for a
// sequence; lengths default their min to 0.
func (p *parser) dist(n *yaml.Node, f map[string]*yaml.Node, path string, unbounded bool) *dist {
	if f["quantiles"] != nil {
		return p.quantiles(f, path, true)
	}
	d := &dist{kind: distUniform}
	if k := f["dist"]; k != nil {
		k = resolve(k)
		if !slices.Contains(dists, k.Value) {
			p.unknownValue(k, path+".dist", "distribution", dists)
			return &dist{kind: distConstant}
		}
		d.kind = k.Value
	}
	if m := f["min"]; m != nil {
		d.min, _ = p.int(m, path+".min")
	}
	if m := f["max"]; m != nil {
		d.max, _ = p.int(m, path+".max")
		d.bounded = true
	}
	unbounded = unbounded || d.kind == distSequential
	if !d.bounded && !unbounded {
		p.errorf(n, path, "missing key \"max\": want the largest value (min defaults to 0)")
		return &dist{kind: distConstant}
	}
	if d.bounded && d.min > d.max {
		p.errorf(f["min"], path, "min %d is above max %d", d.min, d.max)
		return &dist{kind: distConstant, min: d.min}
	}
	if why := spanProblem(d); why != "" {
		at := f["max"]
		if at == nil {
			at = f["min"]
		}
		if at == nil {
			at = n
		}
		p.errorf(at, path, "%s", why)
		return &dist{kind: distConstant, min: d.min, max: d.min, bounded: true}
	}
	p.distOptions(d, f, path)
	return d
}

// maxSpan bounds the range of the distributions that count their values
// (zipfian, hotspot, sequential) and how far a sequence may run: 2^62
// values, so no count or step overflows an int64. A uniform or normal
// draw takes the whole int64 range.
const maxSpan = 1 << 62

// spanProblem says why a distribution's range is not valid ("" when it
// is).
func spanProblem(d *dist) string {
	span := uint64(d.max) - uint64(d.min) // unsigned: never overflows
	switch d.kind {
	case distZipfian, distHotspot:
		if span >= maxSpan {
			return fmt.Sprintf("a %s from %d to %d: want a range of fewer than 2^62 values", d.kind, d.min, d.max)
		}
	case distSequential:
		if d.bounded && span >= maxSpan {
			return fmt.Sprintf("a sequence from %d to %d: want a range of fewer than 2^62 values", d.min, d.max)
		}
		return seqStartProblem(d.min)
	}
	return ""
}

// seqStartProblem says why a sequence's start is not valid: it leaves
// fewer than 2^62 values before the largest int64, where it would wrap
// to negative numbers.
func seqStartProblem(start int64) string {
	if start > math.MaxInt64-maxSpan {
		return fmt.Sprintf("a sequence starting at %d could pass the largest int64 and wrap to negative numbers: want a start of at most %d", start, int64(math.MaxInt64-maxSpan))
	}
	return ""
}

// distOptions reads a distribution's own keys and makes its state.
func (p *parser) distOptions(d *dist, f map[string]*yaml.Node, path string) {
	only := func(key, kind string) {
		if n := f[key]; n != nil && d.kind != kind {
			p.errorf(n, path+"."+key, "applies to dist: %s only (this one is %s)", kind, d.kind)
		}
	}
	only("theta", distZipfian)
	only("hot", distHotspot)
	only("hotShare", distHotspot)
	only("mean", distNormal)
	only("stddev", distNormal)
	switch d.kind {
	case distSequential:
		d.seq = p.counter()
		if p.coll != nil && !p.inValues {
			d.base = p.coll.Seed
		}
	case distZipfian:
		theta := ycsb.ZipfianConstant
		if t := f["theta"]; t != nil {
			theta, _ = p.float(t, path+".theta")
			if theta <= 0 || theta >= 1 {
				p.errorf(t, path+".theta", "%v is not valid: want a skew between 0 and 1 (exclusive), such as 0.99", theta)
				theta = ycsb.ZipfianConstant
			}
		}
		d.zipf = len(p.f.zipfs)
		p.f.zipfs = append(p.f.zipfs, ycsb.NewZipfianZeta(d.min, d.max, theta, zeta(d.max-d.min+1, theta)))
	case distHotspot:
		hot, share := 0.2, 0.8
		if h := f["hot"]; h != nil {
			hot = p.share(h, path+".hot")
		}
		if h := f["hotShare"]; h != nil {
			share = p.share(h, path+".hotShare")
		}
		d.hot = ycsb.NewHotspot(d.min, d.max, hot, share)
	case distNormal:
		d.mean, d.sd = float64(d.min)/2+float64(d.max)/2, float64(d.max)/6-float64(d.min)/6
		if m := f["mean"]; m != nil {
			d.mean, _ = p.float(m, path+".mean")
		}
		if s := f["stddev"]; s != nil {
			d.sd, _ = p.float(s, path+".stddev")
		}
		if d.sd <= 0 {
			n := f["stddev"]
			if n == nil {
				n = f["max"]
			}
			p.errorf(n, path, "the normal's standard deviation is %v: want it above 0", d.sd)
		}
	}
}

// length reads a length or count: an integer, or a distribution
// {min, max, dist}; least is its smallest valid value.
func (p *parser) length(n *yaml.Node, path string, least int64) *dist {
	return p.ranged(n, path, least, maxLength, fmt.Sprintf("lengths from %d to %d", least, int64(maxLength)))
}

// ranged reads a length or count from least to most (want says what is
// valid, for the message).
func (p *parser) ranged(n *yaml.Node, path string, least, most int64, want string) *dist {
	n = resolve(n)
	var d *dist
	if n.Kind == yaml.ScalarNode {
		v, ok := p.int(n, path)
		if !ok {
			return &dist{kind: distConstant, min: least}
		}
		d = &dist{kind: distConstant, min: v, max: v, bounded: true}
	} else {
		f := p.mapping(n, path, "length key", distKeys)
		if f == nil {
			return &dist{kind: distConstant, min: least}
		}
		if f["dist"] != nil && resolve(f["dist"]).Value == distSequential {
			p.errorf(f["dist"], path+".dist", "a length is not a sequence: want uniform, zipfian, hotspot or normal")
			return &dist{kind: distConstant, min: least}
		}
		d = p.dist(n, f, path, false)
	}
	if d.min < least || d.max > most {
		got := fmt.Sprintf("from %d to %d", d.min, d.max)
		if d.min == d.max {
			got = strconv.FormatInt(d.min, 10)
		}
		p.errorf(n, path, "%s is not valid: want %s", got, want)
		return &dist{kind: distConstant, min: least, max: least}
	}
	return d
}

// maxLength bounds a generated length (a string's, an array's, a
// binary's): a document is at most 16 MB.
const maxLength = 16 << 20

func (p *parser) floatGen(n *yaml.Node, path string) node {
	f := p.args(n, path, distKeys)
	if f == nil {
		return nullNode
	}
	g := &floatGen{}
	if f["quantiles"] != nil {
		if g.d = p.quantiles(f, path, false); g.d.kind != distQuantiles {
			return nullNode
		}
		g.min, g.max = g.d.q[0], g.d.q[len(g.d.q)-1]
		return g
	}
	if f["min"] == nil || f["max"] == nil {
		p.errorf(n, path, "want min and max")
		return nullNode
	}
	g.min, _ = p.float(f["min"], path+".min")
	g.max, _ = p.float(f["max"], path+".max")
	if g.min > g.max {
		p.errorf(f["min"], path, "min %v is above max %v", g.min, g.max)
		return nullNode
	}
	d := &dist{kind: distUniform, max: floatSteps, bounded: true}
	if k := f["dist"]; k != nil {
		k = resolve(k)
		if !slices.Contains(dists, k.Value) {
			p.unknownValue(k, path+".dist", "distribution", dists)
			return nullNode
		}
		d.kind = k.Value
	}
	p.distOptions(d, f, path) // a normal's mean and sd default over [0, floatSteps]: set below
	if d.kind == distNormal {
		if f["mean"] == nil {
			d.mean = g.min/2 + g.max/2
		}
		if f["stddev"] == nil {
			d.sd = g.max/6 - g.min/6
			if d.sd <= 0 {
				p.errorf(f["max"], path, "the normal's standard deviation is %v (min = max): want max above min, or a stddev", d.sd)
			}
		}
	}
	g.d = d
	return g
}

func (p *parser) seqGen(n *yaml.Node, path string) node {
	s := &seqGen{d: &dist{kind: distSequential, seq: p.counter()}}
	if p.coll != nil && !p.inValues {
		s.d.base = p.coll.Seed
	}
	switch {
	case n.Kind == yaml.ScalarNode && n.Value == "":
	case n.Kind == yaml.ScalarNode:
		s.d.min, _ = p.int(n, path)
		if why := seqStartProblem(s.d.min); why != "" {
			p.errorf(n, path, "%s", why)
		}
	default:
		f := p.args(n, path, []string{"start", "prefix"})
		if f == nil {
			return nullNode
		}
		if st := f["start"]; st != nil {
			s.d.min, _ = p.int(st, path+".start")
			if why := seqStartProblem(s.d.min); why != "" {
				p.errorf(st, path+".start", "%s", why)
			}
		}
		if pr := f["prefix"]; pr != nil {
			s.prefix, s.text = resolve(pr).Value, true
		}
	}
	return s
}

var charsets = map[string]string{
	"alnum": alnum, "letters": alnum[:52], "lower": alnum[:26], "upper": alnum[26:52], "digits": "0123456789", "hex": "0123456789abcdef",
}

func (p *parser) stringGen(n *yaml.Node, path string) node {
	s := &stringGen{chars: alnum}
	if n.Kind == yaml.ScalarNode {
		s.length = p.length(n, path, 0)
	} else {
		f := p.args(n, path, []string{"length", "chars"})
		if f == nil {
			return nullNode
		}
		if f["length"] == nil {
			p.errorf(n, path, "missing key \"length\": want a length such as 12 or {min: 4, max: 20}")
			return nullNode
		}
		s.length = p.length(f["length"], path+".length", 0)
		if c := f["chars"]; c != nil {
			cs, ok := charsets[resolve(c).Value]
			if !ok {
				p.unknownValue(resolve(c), path+".chars", "character set", slices.Sorted(mapKeys(charsets)))
			} else {
				s.chars = cs
			}
		}
	}
	s.bits = uint(math.Ceil(math.Log2(float64(len(s.chars)))))
	return s
}

func mapKeys[V any](m map[string]V) func(func(string) bool) {
	return func(yield func(string) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

func (p *parser) choiceGen(n *yaml.Node, path string) node {
	var from, weights *yaml.Node
	switch n.Kind {
	case yaml.SequenceNode:
		from = n
	case yaml.MappingNode:
		f := p.mapping(n, path, "!choice key", []string{"from", "weights"})
		if f == nil {
			return nullNode
		}
		from, weights = f["from"], f["weights"]
		if from == nil {
			p.errorf(n, path, "missing key \"from\": want the values to choose from")
			return nullNode
		}
		from = resolve(from)
	default:
		p.errorf(n, path, "got %s: want a list of values, or {from: [...], weights: [...]}", kindOf(n))
		return nullNode
	}
	if from.Kind != yaml.SequenceNode || len(from.Content) == 0 {
		p.errorf(from, path, "got %s: want a non-empty list of values to choose from", kindOf(from))
		return nullNode
	}
	c := &choiceGen{}
	for i, it := range from.Content {
		c.items = append(c.items, p.value(it, path+"["+itoa(int64(i))+"]"))
	}
	ws := make([]float64, len(c.items))
	for i := range ws {
		ws[i] = 1
	}
	if weights != nil {
		w := resolve(weights)
		if w.Kind != yaml.SequenceNode || len(w.Content) != len(c.items) {
			p.errorf(w, path+".weights", "got %s: want a list of %d weights, one a value", kindOf(w), len(c.items))
			return nullNode
		}
		for i, x := range w.Content {
			v, _ := p.float(x, path+".weights["+itoa(int64(i))+"]")
			if v < 0 {
				p.errorf(x, path+".weights", "%v is not valid: want weights >= 0", v)
			}
			ws[i] = max(v, 0)
		}
	}
	c.cum = cumulative(ws)
	if c.cum[len(c.cum)-1] <= 0 {
		p.errorf(weights, path+".weights", "every weight is 0: want at least one above 0")
		return nullNode
	}
	return c
}

// fakes are the kinds of !fake, each a function of the fake-data
// library (github.com/brianvoe/gofakeit).
var fakes = map[string]func(*gofakeit.Faker) string{
	"name": (*gofakeit.Faker).Name, "firstName": (*gofakeit.Faker).FirstName, "lastName": (*gofakeit.Faker).LastName,
	"email": (*gofakeit.Faker).Email, "phone": (*gofakeit.Faker).Phone, "username": (*gofakeit.Faker).Username,
	"street": (*gofakeit.Faker).Street, "city": (*gofakeit.Faker).City, "state": (*gofakeit.Faker).State,
	"zip": (*gofakeit.Faker).Zip, "country": (*gofakeit.Faker).Country,
	"address": func(f *gofakeit.Faker) string { return f.Address().Address },
	"company": (*gofakeit.Faker).Company, "jobTitle": (*gofakeit.Faker).JobTitle, "word": (*gofakeit.Faker).Word,
	"sentence":  func(f *gofakeit.Faker) string { return f.Sentence() },
	"paragraph": func(f *gofakeit.Faker) string { return f.Paragraph() },
	"url":       (*gofakeit.Faker).URL, "ipv4": (*gofakeit.Faker).IPv4Address, "color": (*gofakeit.Faker).Color,
	"uuid": (*gofakeit.Faker).UUID,
}

func fakeKinds() []string { return slices.Sorted(mapKeys(fakes)) }

func (p *parser) dateGen(n *yaml.Node, path string) node {
	f := p.args(n, path, []string{"min", "max", "format"})
	if f == nil {
		return nullNode
	}
	d := &dateGen{max: instant{now: true}}
	if x := f["format"]; x != nil {
		d.layout = p.dateLayout(x, path+".format")
	}
	if f["min"] == nil {
		p.errorf(n, path, "missing key \"min\": want the earliest date, such as 2024-01-01 or now-30d")
		return nullNode
	}
	d.min = p.instant(f["min"], path+".min")
	if m := f["max"]; m != nil {
		d.max = p.instant(m, path+".max")
	}
	now := time.Now()
	if d.min.ms(now) > d.max.ms(now) {
		p.errorf(f["min"], path, "min is after max")
	}
	return d
}

// instant reads a date bound: a date, now, or now plus or minus an
// offset in s, m, h or d (now-30d).
func (p *parser) instant(n *yaml.Node, path string) instant {
	n = resolve(n)
	if t, ok := parseTime(n.Value); ok && n.Kind == yaml.ScalarNode {
		return instant{at: t}
	}
	if rest, ok := strings.CutPrefix(n.Value, "now"); ok && n.Kind == yaml.ScalarNode {
		if rest == "" {
			return instant{now: true}
		}
		if off, ok := offset(rest); ok {
			return instant{now: true, offset: off}
		}
	}
	p.errorf(n, path, "got %s: want a date such as 2024-01-31, now, or now-30d (s, m, h or d)", kindOf(n))
	return instant{now: true}
}

func offset(s string) (time.Duration, bool) {
	if len(s) < 3 || s[0] != '-' && s[0] != '+' {
		return 0, false
	}
	units := map[byte]time.Duration{'s': time.Second, 'm': time.Minute, 'h': time.Hour, 'd': 24 * time.Hour}
	u, ok := units[s[len(s)-1]]
	v, err := strconv.ParseInt(s[1:len(s)-1], 10, 64)
	if !ok || err != nil || v < 0 || v > 1e6 || v > int64(math.MaxInt64/u) { // a Duration holds ±292 years
		return 0, false
	}
	if s[0] == '-' {
		v = -v
	}
	return time.Duration(v) * u, true
}

func (p *parser) binaryGen(n *yaml.Node, path string) node {
	var size *dist
	if n.Kind == yaml.ScalarNode {
		size = p.length(n, path, 0)
	} else {
		f := p.args(n, path, []string{"size"})
		if f == nil || f["size"] == nil {
			p.errorf(n, path, "want {size: N or {min, max}}")
			return nullNode
		}
		size = p.length(f["size"], path+".size", 0)
	}
	return &binaryGen{size_: size, payload: datagen.Payload(int(size.max)+payloadSlack, salt(path))}
}

func (p *parser) maybeGen(n *yaml.Node, path, vpath string) node {
	f := p.args(n, path, []string{"value", "null", "absent"})
	if f == nil {
		return nullNode
	}
	if f["value"] == nil {
		p.errorf(n, path, "missing key \"value\": want the value when it is there")
		return nullNode
	}
	m := &maybeGen{v: p.value(f["value"], vpath)}
	if x := f["null"]; x != nil {
		m.null = p.share(x, path+".null")
	}
	if x := f["absent"]; x != nil {
		m.absent = p.share(x, path+".absent")
	}
	if m.null+m.absent > 1 {
		p.errorf(n, path, "null and absent add up to %v: want at most 1", m.null+m.absent)
	}
	return m
}

func (p *parser) refGen(n *yaml.Node, path string) node {
	if p.values == nil {
		p.errorf(n, path, "!ref names a value of an operation's values, and there are none here")
		return nullNode
	}
	i := slices.Index(p.values, n.Value)
	if i < 0 {
		defined := "none defined"
		if len(p.values) > 0 {
			defined = "defined: " + strings.Join(p.values, ", ")
		}
		hint := ""
		if m := closestName(n.Value, p.values); m != "" {
			hint = " (did you mean " + `"` + m + `"?)`
		}
		p.errorf(n, path, "undefined value %q%s: %s (an operation's values are defined under values:, before their use)", n.Value, hint, defined)
		return nullNode
	}
	return &refGen{i: i, max: p.valueSizes[i]}
}

func (p *parser) keyGen(n *yaml.Node, path string) node {
	var name *yaml.Node
	f := map[string]*yaml.Node{}
	if n.Kind == yaml.ScalarNode {
		name = n
	} else {
		f = p.args(n, path, append([]string{"collection"}, slices.DeleteFunc(slices.Clone(distKeys), func(k string) bool { return k == "min" || k == "max" || k == "quantiles" })...))
		if f == nil {
			return nullNode
		}
		if name = f["collection"]; name == nil {
			p.errorf(n, path, "missing key \"collection\": want the collection whose seeded documents' _id to draw")
			return nullNode
		}
		name = resolve(name)
	}
	c := p.f.Collection(name.Value)
	switch {
	case c == nil:
		p.unknownValue(name, path, "collection", p.collNames())
		return nullNode
	case c.broken:
		return nullNode // its own problems are reported
	case c.Seed == 0:
		p.errorf(name, path, "collection %q seeds no documents: !key has none to draw", c.Name)
		return nullNode
	case c.id == nil:
		p.errorf(name, path, "collection %q's _id does not follow from the seeded document's index: give it _id: !seq, !objectid or !uuid", c.Name)
		return nullNode
	}
	if f["dist"] != nil && resolve(f["dist"]).Value == distSequential {
		d := &dist{kind: distSequential, max: c.Seed - 1, bounded: true, seq: p.counter()}
		return &keyGen{d: d, id: c.id}
	}
	d := &dist{kind: distUniform, max: c.Seed - 1, bounded: true}
	if k := f["dist"]; k != nil {
		k = resolve(k)
		if !slices.Contains(dists, k.Value) {
			p.unknownValue(k, path+".dist", "distribution", dists)
			return nullNode
		}
		d.kind = k.Value
	}
	coll := p.coll
	p.coll = nil // a key's sequence does not continue after a seed
	p.distOptions(d, f, path)
	p.coll = coll
	return &keyGen{d: d, id: c.id}
}

func closestName(word string, names []string) string { return spec.Closest(word, names, 3) }
