package workloadfile

import (
	"encoding/base64"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// maxNodes bounds the values a file compiles: a megabyte of YAML holds
// fewer, but aliases can repeat a value exponentially.
const maxNodes = 1_000_000

// literalValue compiles a value without generators (p.literal says what
// it is, for the message when one is given).
func (p *parser) literalValue(n *yaml.Node, path string) *literal {
	v := p.value(n, path)
	if l, ok := v.(*literal); ok {
		return l
	}
	return &literal{t: typeNull}
}

// template compiles a document, or an array when arrays are allowed.
func (p *parser) template(n *yaml.Node, path string, arrays bool) *Template {
	r := resolve(n)
	if !arrays && (r.Tag == "!choice" || r.Tag == "!sample") {
		return p.shapes(n, path)
	}
	if r.Kind != yaml.MappingNode && (!arrays || r.Kind != yaml.SequenceNode) {
		want := "a document (a mapping)"
		if arrays {
			want = "a document (a mapping) or a pipeline (a list)"
		}
		p.errorf(r, path, "got %s: want %s", kindOf(r), want)
		return &Template{n: &literal{t: typeDocument, raw: []byte{5, 0, 0, 0, 0}}}
	}
	return &Template{n: p.value(n, path), array: r.Kind == yaml.SequenceNode}
}

// value compiles a value: a generator (a tagged node), a document, an
// array, or a literal scalar.
func (p *parser) value(n *yaml.Node, path string) node {
	if p.nodes++; p.nodes > maxNodes {
		if p.nodes == maxNodes+1 {
			p.errorf(n, path, "the file's values make more than %d nodes (aliases of aliases?): want a smaller file", maxNodes)
		}
		return nullNode
	}
	n = resolve(n)
	if strings.HasPrefix(n.Tag, "!") && !strings.HasPrefix(n.Tag, "!!") {
		if p.literal != "" && !p.constant(n) {
			p.errorf(n, path, "%s takes no generator (%s): its values are sent as written", p.literal, n.Tag)
			return &literal{t: typeNull}
		}
		return p.generator(n, path)
	}
	switch n.Kind {
	case yaml.MappingNode:
		return p.document(n, path)
	case yaml.SequenceNode:
		return p.array(n, path)
	case yaml.ScalarNode:
		return p.scalar(n, path)
	}
	p.errorf(n, path, "got %s: want a value", kindOf(n))
	return &literal{t: typeNull}
}

func (p *parser) document(n *yaml.Node, path string) node {
	d := &docNode{}
	seen := map[string]bool{}
	allLit := true
	var names []string
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if k.Kind != yaml.ScalarNode {
			p.errorf(k, path, "got %s as a field name: want text", kindOf(k))
			continue
		}
		if seen[k.Value] {
			p.errorf(k, path, "field %q is given twice", k.Value)
			continue
		}
		seen[k.Value] = true
		if strings.ContainsRune(k.Value, 0) {
			p.errorf(k, path, "field name %q holds a NUL byte", k.Value)
			continue
		}
		var v node
		if k.Value == "_id" && p.coll != nil && p.coll.id != nil && p.isShapeRoot(path) {
			v = p.coll.id // compiled first (idOf), shared with !key
		} else {
			if resolve(n.Content[i+1]).Tag == "!expr" {
				p.siblings = names
			}
			v = p.value(n.Content[i+1], join2(path, k.Value))
			p.siblings = nil
		}
		names = append(names, k.Value)
		if e, ok := v.(*exprGen); ok && slices.ContainsFunc(e.field, func(f int) bool { return f >= 0 }) {
			d.exprs = true
		}
		if _, ok := v.(*literal); !ok {
			allLit = false
		}
		d.fields = append(d.fields, field{key: k.Value, v: v})
	}
	if allLit {
		return &literal{t: typeDocument, raw: d.appendValue(nil, nil)}
	}
	p.placePad(d, path, p.padRoot(path))
	return d
}

func (p *parser) array(n *yaml.Node, path string) node {
	a := &arrayNode{}
	allLit := true
	for i, it := range n.Content {
		v := p.value(it, path+"["+itoa(int64(i))+"]")
		if _, ok := v.(*literal); !ok {
			allLit = false
		}
		a.items = append(a.items, v)
	}
	if allLit {
		return &literal{t: typeArray, raw: a.appendValue(nil, nil)}
	}
	return a
}

// scalar compiles a plain YAML scalar as BSON: integers as int32 when
// they fit, else int64 (as Extended JSON reads them); floats as doubles;
// timestamps as dates; !!binary as binary.
func (p *parser) scalar(n *yaml.Node, path string) node {
	switch n.Tag {
	case "!!null":
		return &literal{t: typeNull}
	case "!!bool":
		return &literal{t: typeBool, raw: appendBool(nil, p.bool(n, path))}
	case "!!int":
		v, _ := p.int(n, path)
		if v >= math.MinInt32 && v <= math.MaxInt32 {
			return &literal{t: typeInt32, raw: appendInt32(nil, int32(v))}
		}
		return &literal{t: typeInt64, raw: appendInt64(nil, v)}
	case "!!float":
		v, _ := p.float(n, path)
		return &literal{t: typeDouble, raw: appendDouble(nil, v)}
	case "!!timestamp":
		t, ok := parseTime(n.Value)
		if !ok {
			p.errorf(n, path, "%q is not a date: want 2024-01-31 or 2024-01-31T12:00:00Z", n.Value)
		}
		return &literal{t: typeDateTime, raw: appendInt64(nil, t.UnixMilli())}
	case "!!binary":
		b, err := base64.StdEncoding.DecodeString(strings.Join(strings.Fields(n.Value), ""))
		if err != nil {
			p.errorf(n, path, "!!binary: %v: want base64", err)
		}
		return &literal{t: typeBinary, raw: appendBinary(nil, 0, b)}
	case "!!str", "":
		return &literal{t: typeString, raw: appendString(nil, n.Value)}
	}
	p.errorf(n, path, "unknown YAML tag %s: want a generator tag such as !int or !fake, or a plain value", n.Tag)
	return &literal{t: typeNull}
}

var timeLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02"}

func parseTime(s string) (time.Time, bool) {
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

func (p *parser) int(n *yaml.Node, path string) (int64, bool) {
	n = resolve(n)
	if n.Kind == yaml.ScalarNode && numeric(n) {
		if v, err := strconv.ParseInt(strings.ReplaceAll(n.Value, "_", ""), 0, 64); err == nil {
			return v, true
		}
		if f, err := strconv.ParseFloat(n.Value, 64); err == nil && f == math.Trunc(f) && math.Abs(f) < 1<<62 {
			return int64(f), true
		}
	}
	p.errorf(n, path, "got %s: want an integer", kindOf(n))
	return 0, false
}

func (p *parser) float(n *yaml.Node, path string) (float64, bool) {
	n = resolve(n)
	if n.Kind == yaml.ScalarNode && numeric(n) {
		s := strings.ToLower(strings.ReplaceAll(n.Value, "_", ""))
		if v, err := strconv.ParseFloat(s, 64); err == nil && !math.IsInf(v, 0) && !math.IsNaN(v) {
			return v, true
		}
		if v, err := strconv.ParseInt(s, 0, 64); err == nil {
			return float64(v), true
		}
	}
	p.errorf(n, path, "got %s: want a number", kindOf(n))
	return 0, false
}

func (p *parser) bool(n *yaml.Node, path string) bool {
	n = resolve(n)
	if n.Kind == yaml.ScalarNode && n.Tag == "!!bool" {
		if b, err := strconv.ParseBool(strings.ToLower(n.Value)); err == nil {
			return b
		}
	}
	p.errorf(n, path, "got %s: want true or false", kindOf(n))
	return false
}

func (p *parser) text(n *yaml.Node, path string) string {
	n = resolve(n)
	if n.Kind != yaml.ScalarNode || n.Tag != "!!str" || n.Value == "" {
		p.errorf(n, path, "got %s: want text", kindOf(n))
		return ""
	}
	return n.Value
}

// share reads a share of the whole: 0.25 or "25%".
func (p *parser) share(n *yaml.Node, path string) float64 {
	n = resolve(n)
	v, ok := 0.0, false
	if n.Kind == yaml.ScalarNode {
		if s, pct := strings.CutSuffix(n.Value, "%"); pct {
			if f, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil {
				v, ok = f/100, true
			}
		} else if n.Tag == "!!int" || n.Tag == "!!float" {
			v, ok = p.float(n, path)
		}
	}
	if !ok || v < 0 || v > 1 || math.IsNaN(v) {
		p.errorf(n, path, "got %s: want a share from 0 to 1, or a percentage such as 25%%", kindOf(n))
		return 0
	}
	return v
}

// numeric says whether a scalar may be read as a number: YAML resolved
// it as one, or a generator's tag (!int 5) took its place.
func numeric(n *yaml.Node) bool {
	return n.Tag == "!!int" || n.Tag == "!!float" || !strings.HasPrefix(n.Tag, "!!")
}

// constant says whether a tagged node is a value a literal may hold:
// !ejson, and in a !sample document a constant of a type (!int 5).
func (p *parser) constant(n *yaml.Node) bool {
	return n.Tag == "!ejson" || p.literal == sampleDocument && (n.Tag == "!int" || n.Tag == "!int32") && n.Kind == yaml.ScalarNode
}
