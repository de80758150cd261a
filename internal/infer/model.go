package infer

import (
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// values are the values one path took: how many, how many were null,
// and per BSON type what they were.
type values struct {
	n, nulls int
	types    map[bson.Type]*typed
	order    []bson.Type // types by first sight
}

// typed are the values of one BSON type at a path.
type typed struct {
	count   int
	nums    []float64      // numbers, dates (ms), string and binary lengths in bytes, array lengths
	strs    map[string]int // distinct strings, nil once there are more than maxDistinct
	many    bool           // more than maxDistinct distinct strings
	kinds   map[string]int // recognised string kinds
	dates   []string       // strings that are dates
	chars   charset
	trues   int
	uuids   int     // binaries of subtype 4 and 16 bytes
	fields  *object // documents' fields
	items   *values // arrays' items
	example bson.RawValue
}

// object is the fields of the documents at a path.
type object struct {
	docs   int
	order  []string
	fields map[string]*values
}

// maxDistinct is how many distinct strings a path may take to be
// written as a choice among them.
const maxDistinct = 24

func newObject() *object { return &object{fields: map[string]*values{}} }

func (o *object) add(doc bson.Raw) {
	o.docs++
	elems, err := doc.Elements()
	if err != nil {
		return
	}
	for _, e := range elems {
		k := e.Key()
		v := o.fields[k]
		if v == nil {
			v = &values{types: map[bson.Type]*typed{}}
			o.fields[k] = v
			o.order = append(o.order, k)
		}
		v.add(e.Value())
	}
}

func (v *values) add(rv bson.RawValue) {
	v.n++
	if rv.Type == bson.TypeNull || rv.Type == bson.TypeUndefined {
		v.nulls++
		return
	}
	t := v.types[rv.Type]
	if t == nil {
		t = &typed{chars: allChars, example: rv}
		v.types[rv.Type] = t
		v.order = append(v.order, rv.Type)
	}
	t.count++
	switch rv.Type {
	case bson.TypeInt32:
		t.nums = append(t.nums, float64(rv.Int32()))
	case bson.TypeInt64:
		t.nums = append(t.nums, float64(rv.Int64()))
	case bson.TypeDouble:
		t.nums = append(t.nums, rv.Double())
	case bson.TypeDateTime:
		t.nums = append(t.nums, float64(rv.DateTime()))
	case bson.TypeBoolean:
		if rv.Boolean() {
			t.trues++
		}
	case bson.TypeString:
		s := rv.StringValue()
		t.nums = append(t.nums, float64(len(s)))
		if t.kinds == nil {
			t.kinds = map[string]int{}
		}
		if t.strs == nil && !t.many {
			t.strs = map[string]int{}
		}
		if !t.many {
			t.strs[s]++
			if len(t.strs) > maxDistinct {
				t.strs, t.many = nil, true
			}
		}
		k := stringKind(s)
		t.kinds[k]++
		if k == kindDate || k == kindDateTime {
			t.dates = append(t.dates, s)
		}
		t.chars &= charsOf(s)
	case bson.TypeBinary:
		sub, data := rv.Binary()
		t.nums = append(t.nums, float64(len(data)))
		if sub == 4 && len(data) == 16 {
			t.uuids++
		}
	case bson.TypeEmbeddedDocument:
		if t.fields == nil {
			t.fields = newObject()
		}
		t.fields.add(rv.Document())
	case bson.TypeArray:
		if t.items == nil {
			t.items = &values{types: map[bson.Type]*typed{}}
		}
		vals, _ := rv.Array().Values()
		t.nums = append(t.nums, float64(len(vals)))
		for _, it := range vals {
			t.items.add(it)
		}
	}
}

// String kinds that workloadfile generates as such.
const (
	kindText     = ""
	kindEmail    = "email"
	kindUUID     = "uuid"
	kindObjectID = "objectid"
	kindDate     = "date"     // 2024-01-31
	kindDateTime = "datetime" // RFC 3339
	kindURL      = "url"
	kindIPv4     = "ipv4"
)

var (
	emailRE    = regexp.MustCompile(`^[^@\s]+@[^@\s]+\.[A-Za-z]{2,}$`)
	uuidRE     = regexp.MustCompile(`^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$`)
	oidRE      = regexp.MustCompile(`^[0-9a-f]{24}$`)
	dateRE     = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)
	dateTimeRE = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$`)
	urlRE      = regexp.MustCompile(`^https?://[^\s]+$`)
	ipv4RE     = regexp.MustCompile(`^(\d{1,3}\.){3}\d{1,3}$`)
)

func stringKind(s string) string {
	switch {
	case uuidRE.MatchString(s):
		return kindUUID
	case oidRE.MatchString(s):
		return kindObjectID
	case dateTimeRE.MatchString(s):
		return kindDateTime
	case dateRE.MatchString(s):
		return kindDate
	case emailRE.MatchString(s):
		return kindEmail
	case urlRE.MatchString(s):
		return kindURL
	case ipv4RE.MatchString(s):
		return kindIPv4
	}
	return kindText
}

// charset is which character sets a path's strings all fall in.
type charset uint8

const (
	csDigits charset = 1 << iota
	csHex
	csLower
	csUpper
	csLetters
	csAlnum
	allChars = csDigits | csHex | csLower | csUpper | csLetters | csAlnum
)

func charsOf(s string) charset {
	c := allChars
	for _, r := range s {
		isDigit := r >= '0' && r <= '9'
		isLower := r >= 'a' && r <= 'z'
		isUpper := r >= 'A' && r <= 'Z'
		if !isDigit {
			c &^= csDigits
		}
		if !isDigit && (r < 'a' || r > 'f') {
			c &^= csHex
		}
		if !isLower {
			c &^= csLower
		}
		if !isUpper {
			c &^= csUpper
		}
		if !isLower && !isUpper {
			c &^= csLetters
		}
		if !isLower && !isUpper && !isDigit {
			c &^= csAlnum
		}
	}
	if !utf8.ValidString(s) {
		c = 0
	}
	return c
}

// name is the workloadfile character set of strings of this charset.
func (c charset) name() string {
	for _, x := range []struct {
		c    charset
		name string
	}{{csDigits, "digits"}, {csHex, "hex"}, {csLower, "lower"}, {csUpper, "upper"}, {csLetters, "letters"}} {
		if c&x.c != 0 {
			return x.name
		}
	}
	return "alnum"
}

// A shape is the documents of one set of top-level fields.
type shape struct {
	keys []string
	docs []bson.Raw
}

// shapes splits documents by their top-level fields (the _id aside):
// every set held by at least minShare of them (at most maxShapes) is a
// shape, and the other documents go to the shape whose fields are the
// most like theirs.
func shapes(docs []bson.Raw) []*shape {
	byKeys := map[string]*shape{}
	var all []*shape
	for _, d := range docs {
		keys := topKeys(d)
		id := strings.Join(keys, "\x00")
		s := byKeys[id]
		if s == nil {
			s = &shape{keys: keys}
			byKeys[id] = s
			all = append(all, s)
		}
		s.docs = append(s.docs, d)
	}
	slices.SortStableFunc(all, func(a, b *shape) int { return len(b.docs) - len(a.docs) })
	var major []*shape
	for i, s := range all {
		if i == 0 || len(major) < maxShapes && float64(len(s.docs)) >= minShare*float64(len(docs)) {
			major = append(major, s)
			continue
		}
		best, sim := major[0], -1.0
		for _, m := range major {
			if j := jaccard(s.keys, m.keys); j > sim {
				best, sim = m, j
			}
		}
		best.docs = append(best.docs, s.docs...)
	}
	return major
}

const (
	minShare  = 0.05
	maxShapes = 8
)

func topKeys(d bson.Raw) []string {
	elems, _ := d.Elements()
	keys := make([]string, 0, len(elems))
	for _, e := range elems {
		if k := e.Key(); k != "_id" {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

func jaccard(a, b []string) float64 {
	inter := 0
	for _, k := range a {
		if _, ok := slices.BinarySearch(b, k); ok {
			inter++
		}
	}
	union := len(a) + len(b) - inter
	if union == 0 {
		return 1
	}
	return float64(inter) / float64(union)
}
