package workloadfile

import (
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// A collection's document may be one of several shapes: `!choice` of
// documents (each its share of the seed, all with the first shape's
// _id), or `!sample`, documents copied as written with a fresh _id each
// (what `workload infer --clone` writes). A document's size may be set
// by `!pad`: a string field that fills the document to a target size.

// valuer is a node that can write its value alone (a document or an
// array), as a template's root does.
type valuer interface {
	appendValue(dst []byte, g *Gen) []byte
}

func (l *literal) appendValue(dst []byte, _ *Gen) []byte { return append(dst, l.raw...) }

// pick draws the index of one of the choice's values.
func (c *choiceGen) pick(g *Gen) int {
	u := g.r.Float64() * c.cum[len(c.cum)-1]
	lo, hi := 0, len(c.cum)
	for lo < hi {
		m := (lo + hi) / 2
		if c.cum[m] <= u {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return min(lo, len(c.items)-1)
}

// appendValue writes one of the documents of a choice of shapes.
func (c *choiceGen) appendValue(dst []byte, g *Gen) []byte {
	return c.items[c.pick(g)].(valuer).appendValue(dst, g)
}

// shapes compiles a collection's or an operation's document given as a
// generator of documents: `!choice` of documents or `!sample`.
func (p *parser) shapes(n *yaml.Node, path string) *Template {
	v := p.value(n, path)
	c, ok := v.(*choiceGen)
	if !ok {
		return &Template{n: v}
	}
	for i, it := range c.items {
		if _, doc := it.(*docNode); doc {
			continue
		}
		if l, lit := it.(*literal); lit && l.t == typeDocument {
			continue
		}
		p.errorf(n, path, "shape %d of the !choice is not a document: want a mapping for each shape", i)
		c.items[i] = &literal{t: typeDocument, raw: []byte{5, 0, 0, 0, 0}}
	}
	return &Template{n: c}
}

// shapeAlternatives returns the documents of a !choice of shapes (nil
// when n is not one).
func shapeAlternatives(n *yaml.Node) []*yaml.Node {
	n = resolve(n)
	if n.Tag != "!choice" {
		return nil
	}
	if n.Kind == yaml.SequenceNode {
		return n.Content
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "from" {
			if f := resolve(n.Content[i+1]); f.Kind == yaml.SequenceNode {
				return f.Content
			}
		}
	}
	return nil
}

// shapeID compiles the _id of a collection whose document is a choice of
// shapes (the first shape's: the others must write it the same) or a
// sample (its id).
func (p *parser) shapeID(c *Collection, doc *yaml.Node, path string) {
	doc = resolve(doc)
	if doc.Tag == "!sample" {
		if doc.Kind == yaml.MappingNode {
			for i := 0; i+1 < len(doc.Content); i += 2 {
				if doc.Content[i].Value == "id" {
					p.compileID(c, doc.Content[i+1], path+": !sample.id")
				}
			}
		}
		return
	}
	alts := shapeAlternatives(doc)
	var first *yaml.Node
	for i, a := range alts {
		a = resolve(a)
		id := fieldNode(a, "_id")
		switch {
		case i == 0:
			first = id
		case first == nil && id != nil:
			p.errorf(id, path+": !choice["+strconv.Itoa(i)+"]._id", "the shapes share the first shape's _id, and it has none: give it the first shape, or leave it out of all")
		case first != nil && (id == nil || !sameNode(first, id)):
			at := a
			if id != nil {
				at = id
			}
			p.errorf(at, path+": !choice["+strconv.Itoa(i)+"]._id", "the shapes share the first shape's _id: write it as the first shape does (%s)", strings.TrimSpace(first.Tag+" "+first.Value))
		}
	}
	if first != nil {
		p.compileID(c, first, path+": !choice[0]._id")
	}
}

// compileID compiles a collection's _id generator, ahead of its
// document, so that !key can name its seeded documents.
func (p *parser) compileID(c *Collection, n *yaml.Node, path string) {
	p.coll = c
	before := len(p.errs)
	v := p.value(n, path)
	p.coll = nil
	if len(p.errs) > before {
		p.errs = p.errs[:before] // the document's compile reports them
		return
	}
	if k, ok := v.(keyed); ok {
		c.id = k
	}
}

func fieldNode(m *yaml.Node, key string) *yaml.Node {
	if m.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(m.Content); i += 2 {
		if m.Content[i].Value == key {
			return m.Content[i+1]
		}
	}
	return nil
}

func sameNode(a, b *yaml.Node) bool {
	a, b = resolve(a), resolve(b)
	if a.Kind != b.Kind || a.Tag != b.Tag || a.Value != b.Value || len(a.Content) != len(b.Content) {
		return false
	}
	for i := range a.Content {
		if !sameNode(a.Content[i], b.Content[i]) {
			return false
		}
	}
	return true
}

// isShapeRoot says whether a document at path is the root of a
// collection's document: the document itself, or one shape of its
// !choice of shapes.
func (p *parser) isShapeRoot(path string) bool {
	if p.coll == nil {
		return false
	}
	base := "collections." + p.coll.Name + ".document"
	if path == base {
		return true
	}
	rest, ok := strings.CutPrefix(path, base+": !choice[")
	rest, closed := strings.CutSuffix(rest, "]")
	if !ok || !closed || rest == "" {
		return false
	}
	for _, r := range rest {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// sampleDocument is what a !sample's documents are, where generators
// are not allowed.
const sampleDocument = "a !sample document"

// sampleGen is !sample: documents copied as written, each with a fresh
// _id: seed document i is the (i mod n)th, with the id of index i; an
// insert at run time takes one at random.
type sampleGen struct {
	id     node
	docs   [][]byte // each document's elements, without its _id
	max    int64
	levels int // the most levels of documents and arrays one opens
}

func (p *parser) sampleGen(n *yaml.Node, path string) node {
	f := p.args(n, path, []string{"id", "from"})
	if f == nil {
		return nullNode
	}
	if f["id"] == nil || f["from"] == nil {
		p.errorf(n, path, "want {id: the fresh _id (!objectid, !seq or !uuid), from: [the documents]}")
		return nullNode
	}
	s := &sampleGen{}
	if p.coll != nil && p.coll.id != nil {
		s.id = p.coll.id
	} else {
		s.id = p.value(f["id"], path+".id")
	}
	from := resolve(f["from"])
	if from.Kind != yaml.SequenceNode || len(from.Content) == 0 {
		got := kindOf(from)
		if from.Kind == yaml.SequenceNode {
			got = "an empty list"
		}
		p.errorf(from, path+".from", "got %s: want a non-empty list of documents", got)
		return nullNode
	}
	lit := p.literal
	p.literal = sampleDocument
	for i, d := range from.Content {
		dpath := path + ".from[" + strconv.Itoa(i) + "]"
		if resolve(d).Kind != yaml.MappingNode {
			p.errorf(resolve(d), dpath, "got %s: want a document", kindOf(resolve(d)))
			continue
		}
		l := p.literalValue(d, dpath)
		if l.t != typeDocument {
			continue
		}
		body := withoutID(&Template{n: l}).n.(*literal).raw
		body = body[4 : len(body)-1]
		s.docs = append(s.docs, body)
		s.max = max(s.max, int64(len(body)))
		s.levels = max(s.levels, l.depth())
	}
	p.literal = lit
	if len(s.docs) == 0 {
		return nullNode
	}
	return s
}

func (s *sampleGen) appendValue(dst []byte, g *Gen) []byte {
	at, dst := startDoc(dst)
	var i int
	if g.index >= 0 {
		i = int(g.index % int64(len(s.docs)))
	} else {
		i = g.r.IntN(len(s.docs))
	}
	if s.id != nil {
		dst = s.id.element(dst, "_id", g)
	}
	dst = append(dst, s.docs[i]...)
	return endDoc(dst, at)
}

func (s *sampleGen) element(dst []byte, key string, g *Gen) []byte {
	return s.appendValue(header(dst, typeDocument, key), g)
}

func (s *sampleGen) size() int64 { return add(add(5, s.max), elementSize("_id", s.id)) }

// shapesWithoutID is a choice of shapes or a sample without the _id, as
// a replacement writes them.
func shapesWithoutID(n node) node {
	switch n := n.(type) {
	case *choiceGen:
		c := &choiceGen{cum: n.cum}
		for _, it := range n.items {
			c.items = append(c.items, withoutID(&Template{n: it}).n)
		}
		return c
	case *sampleGen:
		return &sampleGen{docs: n.docs, max: n.max, levels: n.levels}
	}
	return n
}

// padGen is !pad: a string that fills the document holding it to a
// target size in bytes (a document whose other fields take more is left
// as it is).
type padGen struct {
	target int64
	n      *yaml.Node
	path   string
	placed bool
	doc    *docNode // the document it fills
}

// padText is what a pad is cut from: letters and digits.
var padText = func() []byte {
	b := make([]byte, 1<<16)
	x := uint64(0x9e3779b97f4a7c15)
	for i := range b {
		x = splitmix(x)
		b[i] = alnum[x%uint64(len(alnum))]
	}
	return b
}()

func (p *parser) padGen(n *yaml.Node, path string) node {
	size := n
	if n.Kind == yaml.MappingNode {
		f := p.args(n, path, []string{"size"})
		if f == nil || f["size"] == nil {
			p.errorf(n, path, "want the document's size, such as !pad 2KB or {size: 2KB}")
			return nullNode
		}
		size = resolve(f["size"])
	}
	v, ok := ParseSize(size.Value)
	if !ok || size.Kind != yaml.ScalarNode || v < 16 || v > maxDocument {
		p.errorf(size, path, "got %s: want a document size from 16 bytes to 16MB, such as 512, 2KB or 1.5MB (KB = 1,024 bytes)", kindOf(size))
		return nullNode
	}
	g := &padGen{target: v, n: n, path: path}
	p.pads = append(p.pads, g)
	return g
}

// ParseSize reads a size in bytes: 512, 512B, 2KB (2,048), 1.5MB; KB and
// kB (and KiB) are 1,024 bytes, MB 1,048,576.
func ParseSize(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	mult := 1.0
	for _, u := range []struct {
		suffix string
		m      float64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"KB", 1 << 10}, {"kB", 1 << 10}, {"MB", 1 << 20}, {"B", 1}} {
		if rest, ok := strings.CutSuffix(s, u.suffix); ok {
			s, mult = strings.TrimSpace(rest), u.m
			break
		}
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f < 0 || f*mult > 1<<40 {
		return 0, false
	}
	return int64(f*mult + 0.5), true
}

func (*padGen) element(dst []byte, key string, _ *Gen) []byte {
	return appendString(header(dst, typeString, key), "")
}

func (g *padGen) size() int64 { return g.target }

// padded is a document's pad: its field and its target size, and what
// the file's check drew of the document.
type padded struct {
	field  int
	target int64
	// drawn documents, the sum of their sizes padded and not, the
	// largest unpadded
	drawn        int
	sum, natural float64
	most         int
}

// placePad records a document's !pad field (one a document, at its
// root).
func (p *parser) placePad(d *docNode, path string, root bool) {
	for i, f := range d.fields {
		pg, ok := f.v.(*padGen)
		if !ok {
			continue
		}
		pg.placed = true
		switch {
		case !root:
			p.errorf(pg.n, join2(path, f.key), "!pad fills a whole document: give it as a field of a collection's document (or of a shape), or of an operation's document or replacement, not of a sub-document")
		case d.pad != nil:
			p.errorf(pg.n, join2(path, f.key), "a second !pad in the document: one field fills it")
		default:
			d.pad = &padded{field: i, target: pg.target}
			pg.doc = d
		}
	}
}

// padRoot says whether a document at path is one a !pad may fill: a
// collection's document (or one of its shapes), or an operation's
// document or replacement.
func (p *parser) padRoot(path string) bool {
	if p.isShapeRoot(path) {
		return true
	}
	parts := strings.Split(path, ".")
	if parts[0] != "operations" || len(parts) < 3 {
		return false
	}
	for _, part := range parts[2 : len(parts)-1] {
		switch part {
		case "document", "replacement", "filter", "update", "pipeline", "values":
			return false
		}
	}
	last := parts[len(parts)-1]
	return last == "document" || last == "replacement"
}

// unplacedPads refuses a !pad that is not a document's field.
func (p *parser) unplacedPads() {
	for _, pg := range p.pads {
		if !pg.placed {
			p.errorf(pg.n, "", "!pad fills the document that holds it: give it as a field's value (not in a list, !maybe, !choice or values)")
		}
	}
}
