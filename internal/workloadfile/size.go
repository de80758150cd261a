package workloadfile

import (
	"math"

	"go.yaml.in/yaml/v3"
)

// A document is at most 16 MB (the server's maxBsonObjectSize), a
// message 48 MB.
const (
	maxDocument = 16 << 20
	maxMessage  = 48 << 20
)

// sized is a node that knows the most bytes its value can take, so a
// file whose documents could outgrow what the server takes is refused
// before anything runs (and nothing generates without bound).
type sized interface {
	size() int64
}

// sizeOf is the most bytes a node's value can take.
func sizeOf(n node) int64 {
	if s, ok := n.(sized); ok {
		return s.size()
	}
	return 0
}

// add sums sizes, saturating instead of overflowing.
func add(a, b int64) int64 {
	if a > math.MaxInt64/4 || b > math.MaxInt64/4 {
		return math.MaxInt64 / 4
	}
	return a + b
}

// times multiplies sizes, saturating.
func times(n, each int64) int64 {
	if n != 0 && each > (math.MaxInt64/4)/n {
		return math.MaxInt64 / 4
	}
	return n * each
}

func elementSize(key string, v node) int64 { return add(int64(2+len(key)), sizeOf(v)) }

func (l *literal) size() int64 { return int64(len(l.raw)) }

func (d *docNode) size() int64 {
	s := int64(5)
	for i, f := range d.fields {
		if d.pad != nil && i == d.pad.field {
			s = add(s, int64(2+len(f.key)+5)) // the pad's empty string: widened to the target below
			continue
		}
		s = add(s, elementSize(f.key, f.v))
	}
	if d.pad != nil {
		return max(s, d.pad.target) // a pad fills the document to its target, and no further
	}
	return s
}

func (a *arrayNode) size() int64 {
	s := int64(5)
	for i, it := range a.items {
		s = add(s, elementSize(arrayKey(i), it))
	}
	return s
}

func (i *intGen) size() int64 {
	if i.int32_ {
		return 4
	}
	return 8
}

func (*floatGen) size() int64 { return 8 }

func (s *seqGen) size() int64 {
	if s.text {
		return int64(4 + len(s.prefix) + 20 + 1)
	}
	return 8
}

func (s *stringGen) size() int64 { return add(5, s.length.max) }

func (c *choiceGen) size() int64 {
	var m int64
	for _, it := range c.items {
		m = max(m, sizeOf(it))
	}
	return m
}

// maxFake bounds a fake value (a paragraph is the longest, about 1 kB).
const maxFake = 4096

func (*fakeGen) size() int64     { return maxFake }
func (*dateGen) size() int64     { return 8 }
func (*oidGen) size() int64      { return 12 }
func (*uuidGen) size() int64     { return 21 }
func (b *binaryGen) size() int64 { return add(5, b.size_.max) }
func (m *maybeGen) size() int64  { return sizeOf(m.v) }
func (*boolGen) size() int64     { return 1 }
func (r *refGen) size() int64    { return r.max }
func (k *keyGen) size() int64    { return sizeOf(k.id) }

func (a *arrayGen) size() int64 {
	return add(5, times(max(a.length.max, 0), add(2+8, sizeOf(a.of))))
}

func (o *objectGen) size() int64 {
	return add(5, times(max(o.length.max, 0), add(2+9, sizeOf(o.of))))
}

// Size is the most bytes the template's value can take.
func (t *Template) size() int64 { return sizeOf(t.n) }

// maxDepth is how deeply a stored document may nest: MongoDB takes no
// more than 100 levels of documents and arrays, the document itself the
// first.
const maxDepth = 100

// nested is a node that knows how many levels of documents and arrays
// its value can open.
type nested interface {
	depth() int
}

// depthOf is the most levels of documents and arrays a node's value can
// open (0: a scalar, or a value whose depth is known only when it is
// drawn, as an !expr's).
func depthOf(n node) int {
	if d, ok := n.(nested); ok {
		return d.depth()
	}
	return 0
}

func (l *literal) depth() int {
	if l.t != typeDocument && l.t != typeArray {
		return 0
	}
	return bsonDepth(l.raw, 0)
}

// bsonDepth is the levels a BSON document or array opens, counted up to
// just past maxDepth.
func bsonDepth(doc []byte, level int) int {
	if level > maxDepth || len(doc) < 5 {
		return level + 1
	}
	deepest := level + 1
	body := doc[4 : len(doc)-1]
	for len(body) > 0 {
		t := body[0]
		end := 1
		for end < len(body) && body[end] != 0 {
			end++
		}
		if end >= len(body) {
			break
		}
		n := valueLen(t, body[end+1:])
		if n < 0 {
			break
		}
		if t == typeDocument || t == typeArray {
			deepest = max(deepest, bsonDepth(body[end+1:end+1+n], level+1))
		}
		body = body[end+1+n:]
	}
	return deepest
}

func (d *docNode) depth() int {
	m := 0
	for _, f := range d.fields {
		m = max(m, depthOf(f.v))
	}
	return 1 + m
}

func (a *arrayNode) depth() int {
	m := 0
	for _, it := range a.items {
		m = max(m, depthOf(it))
	}
	return 1 + m
}

func (c *choiceGen) depth() int {
	m := 0
	for _, it := range c.items {
		m = max(m, depthOf(it))
	}
	return m
}

func (m *maybeGen) depth() int  { return depthOf(m.v) }
func (a *arrayGen) depth() int  { return 1 + depthOf(a.of) }
func (o *objectGen) depth() int { return 1 + depthOf(o.of) }
func (s *sampleGen) depth() int { return s.levels }
func (t *Template) depth() int  { return depthOf(t.n) }

// deep refuses a stored document that nests more than MongoDB takes.
func (p *parser) deep(n *yaml.Node, path string, t *Template) {
	if t != nil && t.depth() > maxDepth {
		p.errorf(resolve(n), path, "a document nested more than %d levels deep (documents and arrays, the document itself the first): want at most %d", maxDepth, maxDepth)
	}
}
