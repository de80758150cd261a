package workloadfile

import (
	"encoding/binary"
	"math"
	"sort"
	"sync/atomic"
	"time"

	"github.com/brianvoe/gofakeit/v7"

	"github.com/mongobench/mongobench/internal/ycsb"
)

// A node makes one value of a document: it appends the element key:
// value to dst, or nothing when the value is absent.
type node interface {
	element(dst []byte, key string, g *Gen) []byte
}

// literal is a value without generators, encoded once.
type literal struct {
	t   byte
	raw []byte
}

func (l *literal) element(dst []byte, key string, _ *Gen) []byte {
	return append(header(dst, l.t, key), l.raw...)
}

type field struct {
	key string
	v   node
}

// docNode is a sub-document with generated values.
type docNode struct {
	fields []field
	pad    *padded // a !pad field fills it to a size (nil: none)
	exprs  bool    // an !expr field names the fields before it
}

func (d *docNode) element(dst []byte, key string, g *Gen) []byte {
	return d.appendValue(header(dst, typeDocument, key), g)
}

func (d *docNode) appendValue(dst []byte, g *Gen) []byte {
	if d.pad != nil || d.exprs {
		return d.appendSlow(dst, g)
	}
	at, dst := startDoc(dst)
	for _, f := range d.fields {
		dst = f.v.element(dst, f.key, g)
	}
	return endDoc(dst, at)
}

// arrayNode is an array with generated values; an absent item leaves no
// hole.
type arrayNode struct{ items []node }

func (a *arrayNode) element(dst []byte, key string, g *Gen) []byte {
	return a.appendValue(header(dst, typeArray, key), g)
}

func (a *arrayNode) appendValue(dst []byte, g *Gen) []byte {
	at, dst := startDoc(dst)
	n := 0
	for _, it := range a.items {
		before := len(dst)
		if dst = it.element(dst, arrayKey(n), g); len(dst) > before {
			n++
		}
	}
	return endDoc(dst, at)
}

// A Template is a document (or, for a pipeline or an update pipeline,
// an array) whose values may be generated.
type Template struct {
	n     node
	array bool
	// guard: it is a pipeline with generated values, which passes the
	// rule of where a pipeline may write each time (guard.go); path names
	// it
	guard bool
	path  string
}

// Append appends the template's value (a BSON document or array) to dst.
// A pipeline that would write outside the data database is replaced by
// an empty one, and g.Refused says why.
func (t *Template) Append(dst []byte, g *Gen) []byte {
	if !t.guard {
		return t.append(dst, g)
	}
	start := len(dst)
	return t.guarded(t.append(dst, g), start, g)
}

func (t *Template) append(dst []byte, g *Gen) []byte {
	switch n := t.n.(type) {
	case *literal:
		return append(dst, n.raw...)
	case *docNode:
		return n.appendValue(dst, g)
	case *arrayNode:
		return n.appendValue(dst, g)
	case valuer:
		return n.appendValue(dst, g)
	}
	return dst
}

// IsArray says whether the template is an array (a pipeline).
func (t *Template) IsArray() bool { return t.array }

// dist draws integers: uniform, zipfian (min the most frequent),
// hotspot, sequential or normal, over [min, max].
type dist struct {
	kind     string
	min, max int64
	bounded  bool // max is set (sequential may run unbounded)
	zipf     int  // the Gen's zipfian slot
	hot      ycsb.Hotspot
	mean, sd float64
	seq      *atomic.Int64 // sequential at run time, shared by the workers
	base     int64         // sequential at run time starts after base values (the seed's)
	q        []float64     // quantiles: equally spaced quantiles, drawn between
}

func (d *dist) next(g *Gen) int64 {
	switch d.kind {
	case distConstant:
		return d.min
	case distUniform:
		// the span counted unsigned: the full int64 range is 2^64 values
		span := uint64(d.max) - uint64(d.min)
		if span == math.MaxUint64 {
			return int64(g.r.Uint64())
		}
		return int64(uint64(d.min) + g.r.Uint64N(span+1))
	case distZipfian:
		return g.zipf[d.zipf].Next(g.r)
	case distHotspot:
		return d.hot.Next(g.r)
	case distNormal:
		return clampInt(d.mean+d.sd*g.r.NormFloat64(), d.min, d.max)
	case distQuantiles:
		return clampInt(d.quantile(g), d.min, d.max)
	}
	// sequential (its range, and its start, are below 2^62 apart from
	// the largest int64: it never wraps)
	// sequential: the seed's documents by their index, then one shared
	// sequence after them
	n := g.index
	if n < 0 {
		n = d.base + d.seq.Add(1) - 1
	}
	if d.bounded {
		return d.min + n%(d.max-d.min+1)
	}
	return d.min + n
}

// clampInt rounds v to the nearest integer of [lo, hi].
func clampInt(v float64, lo, hi int64) int64 {
	v = math.Round(v)
	switch {
	case !(v > float64(lo)): // NaN too
		return lo
	case v >= float64(hi): // float64(hi) may round above hi
		return hi
	}
	return int64(v)
}

type intGen struct {
	d      *dist
	int32_ bool
}

func (i *intGen) element(dst []byte, key string, g *Gen) []byte {
	v := i.d.next(g)
	if i.int32_ {
		return appendInt32(header(dst, typeInt32, key), int32(v))
	}
	return appendInt64(header(dst, typeInt64, key), v)
}

// floatSteps is how finely the non-uniform float distributions divide
// their range.
const floatSteps = 1_000_000

type floatGen struct {
	d        *dist // over [0, floatSteps], or the normal's mean and sd
	min, max float64
}

func (f *floatGen) element(dst []byte, key string, g *Gen) []byte {
	var v float64
	switch f.d.kind {
	case distUniform:
		v = lerp(f.min, f.max, g.r.Float64())
	case distNormal:
		v = f.d.mean + f.d.sd*g.r.NormFloat64()
	case distQuantiles:
		v = f.d.quantile(g)
	default:
		v = lerp(f.min, f.max, float64(f.d.next(g))/floatSteps)
	}
	return appendDouble(header(dst, typeDouble, key), min(max(v, f.min), f.max))
}

// lerp is the value a share t of the way from lo to hi, finite for any
// finite bounds (hi - lo itself may overflow).
func lerp(lo, hi, t float64) float64 { return lo*(1-t) + hi*t }

// keyed is a collection's _id generator whose seeded values follow from
// the document's index, so !key can name a seeded document.
type keyed interface {
	node
	byIndex(dst []byte, key string, index int64, g *Gen) []byte
}

// seqGen is !seq: start, start+1, … (the seed's documents by index, then
// a shared sequence), as int64 or as text after a prefix.
type seqGen struct {
	d      *dist
	prefix string
	text   bool
}

func (s *seqGen) element(dst []byte, key string, g *Gen) []byte {
	return s.value(dst, key, s.d.next(g))
}

func (s *seqGen) byIndex(dst []byte, key string, index int64, _ *Gen) []byte {
	return s.value(dst, key, s.d.min+index)
}

func (s *seqGen) value(dst []byte, key string, v int64) []byte {
	if !s.text {
		return appendInt64(header(dst, typeInt64, key), v)
	}
	dst = header(dst, typeString, key)
	at := len(dst)
	dst = append(dst, 0, 0, 0, 0)
	dst = append(dst, s.prefix...)
	dst = appendItoa(dst, v)
	dst = append(dst, 0)
	binary.LittleEndian.PutUint32(dst[at:], uint32(len(dst)-at-4))
	return dst
}

const alnum = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// stringGen is !string: random characters of an alphabet of at most 64,
// six bits of a random word a character.
type stringGen struct {
	length *dist
	chars  string
	bits   uint
}

func (s *stringGen) element(dst []byte, key string, g *Gen) []byte {
	n := int(s.length.next(g))
	return appendStringFill(header(dst, typeString, key), n, func(b []byte) {
		mask := uint64(1)<<s.bits - 1
		var u uint64
		left := uint(0)
		for i := 0; i < len(b); {
			if left < s.bits {
				u, left = g.r.Uint64(), 64
			}
			c := u & mask
			u >>= s.bits
			left -= s.bits
			if int(c) < len(s.chars) {
				b[i] = s.chars[c]
				i++
			}
		}
	})
}

// choiceGen is !choice: one of its values, by weight.
type choiceGen struct {
	items []node
	cum   []float64 // cumulative weights
}

func (c *choiceGen) element(dst []byte, key string, g *Gen) []byte {
	u := g.r.Float64() * c.cum[len(c.cum)-1]
	i := sort.SearchFloat64s(c.cum, u)
	if i < len(c.cum) && c.cum[i] == u {
		i++
	}
	return c.items[min(i, len(c.items)-1)].element(dst, key, g)
}

// fakeGen is !fake: a value of the fake-data library.
type fakeGen struct{ f func(*gofakeit.Faker) string }

func (f *fakeGen) element(dst []byte, key string, g *Gen) []byte {
	return appendString(header(dst, typeString, key), f.f(g.fake))
}

// instant is a date bound: a fixed time, or now plus an offset.
type instant struct {
	at     time.Time
	now    bool
	offset time.Duration
}

func (i instant) ms(now time.Time) int64 {
	if i.now {
		return now.Add(i.offset).UnixMilli()
	}
	return i.at.UnixMilli()
}

// dateGen is !date: a date uniform in [min, max]; !now is min = max = now.
// With a layout, it is written as text in that layout.
type dateGen struct {
	min, max instant
	layout   string
}

func (d *dateGen) element(dst []byte, key string, g *Gen) []byte {
	now := g.now()
	lo, hi := d.min.ms(now), d.max.ms(now)
	v := lo
	if hi > lo {
		v += g.r.Int64N(hi - lo + 1)
	}
	if d.layout != "" {
		return appendString(header(dst, typeString, key), time.UnixMilli(v).UTC().Format(d.layout))
	}
	return appendInt64(header(dst, typeDateTime, key), v)
}

// oidGen is !objectid: at run time the time now and random bytes; a
// seeded _id the run's epoch and the document's index, so !key finds it.
type oidGen struct{ salt uint64 }

func (o *oidGen) element(dst []byte, key string, g *Gen) []byte {
	if g.index >= 0 {
		return o.byIndex(dst, key, g.index, g)
	}
	dst = binary.BigEndian.AppendUint32(header(dst, typeObjectID, key), uint32(g.now().Unix()))
	return binary.BigEndian.AppendUint64(dst, g.r.Uint64())
}

func (o *oidGen) byIndex(dst []byte, key string, index int64, g *Gen) []byte {
	dst = binary.BigEndian.AppendUint32(header(dst, typeObjectID, key), g.f.epoch)
	return binary.BigEndian.AppendUint64(dst, uint64(index)^o.salt)
}

// uuidGen is !uuid: a random (version 4) UUID; a seeded _id's follows
// from the document's index, so !key finds it.
type uuidGen struct{ salt uint64 }

func (u *uuidGen) element(dst []byte, key string, g *Gen) []byte {
	if g.index >= 0 {
		return u.byIndex(dst, key, g.index, g)
	}
	return u.value(dst, key, g.r.Uint64(), g.r.Uint64())
}

func (u *uuidGen) byIndex(dst []byte, key string, index int64, _ *Gen) []byte {
	a := splitmix(u.salt ^ uint64(index))
	return u.value(dst, key, a, splitmix(a))
}

func (u *uuidGen) value(dst []byte, key string, hi, lo uint64) []byte {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], hi)
	binary.BigEndian.PutUint64(b[8:], lo)
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return appendBinary(header(dst, typeBinary, key), 4, b[:])
}

func splitmix(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// binaryGen is !binary: bytes of a size, sliced from random bytes made
// once.
type binaryGen struct {
	size_   *dist
	payload []byte
}

// payloadSlack is how far into the payload a value may start.
const payloadSlack = 4096

func (b *binaryGen) element(dst []byte, key string, g *Gen) []byte {
	n := int(b.size_.next(g))
	off := g.r.IntN(payloadSlack)
	return appendBinary(header(dst, typeBinary, key), 0, b.payload[off:off+n])
}

// arrayGen is !array: an array of a drawn length of values made by of.
type arrayGen struct {
	length *dist
	of     node
}

func (a *arrayGen) element(dst []byte, key string, g *Gen) []byte {
	n := int(a.length.next(g))
	at, dst := startDoc(header(dst, typeArray, key))
	k := 0
	for range n {
		before := len(dst)
		if dst = a.of.element(dst, arrayKey(k), g); len(dst) > before {
			k++
		}
	}
	return endDoc(dst, at)
}

// objectGen is !object: a sub-document of a drawn number of fields f0,
// f1, … made by of.
type objectGen struct {
	length *dist
	of     node
}

func (o *objectGen) element(dst []byte, key string, g *Gen) []byte {
	n := int(o.length.next(g))
	at, dst := startDoc(header(dst, typeDocument, key))
	for i := range n {
		dst = o.of.element(dst, objectKey(i), g)
	}
	return endDoc(dst, at)
}

var objectKeys = func() []string {
	k := make([]string, 256)
	for i := range k {
		k[i] = "f" + itoa(int64(i))
	}
	return k
}()

func objectKey(i int) string {
	if i < len(objectKeys) {
		return objectKeys[i]
	}
	return "f" + itoa(int64(i))
}

// maybeGen is !maybe: the value, or a null, or no field at all, in the
// shares given.
type maybeGen struct {
	v            node
	null, absent float64
}

func (m *maybeGen) element(dst []byte, key string, g *Gen) []byte {
	u := g.r.Float64()
	switch {
	case u < m.absent:
		return dst
	case u < m.absent+m.null:
		return header(dst, typeNull, key)
	}
	return m.v.element(dst, key, g)
}

// boolGen is !bool: true in the share given.
type boolGen struct{ p float64 }

func (b *boolGen) element(dst []byte, key string, g *Gen) []byte {
	return appendBool(header(dst, typeBool, key), g.r.Float64() < b.p)
}

// refGen is !ref: a value of the iteration, drawn once for all its steps.
type refGen struct {
	i   int
	max int64 // the most bytes of the value it names
}

func (r *refGen) element(dst []byte, key string, g *Gen) []byte {
	v := g.vals[r.i]
	if v == nil {
		return dst
	}
	dst = append(dst, v[0])
	dst = append(dst, key...)
	return append(dst, v[1:]...) // v[1] is the empty key's terminator
}

// keyGen is !key: the _id of a document the seed wrote, its index drawn
// by a distribution over the seeded documents.
type keyGen struct {
	d  *dist
	id keyed
}

func (k *keyGen) element(dst []byte, key string, g *Gen) []byte {
	return k.id.byIndex(dst, key, k.d.next(g), g)
}
