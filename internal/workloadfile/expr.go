package workloadfile

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/expr-lang/expr"
	"github.com/expr-lang/expr/ast"
	exprparser "github.com/expr-lang/expr/parser"
	"github.com/expr-lang/expr/vm"
	"go.yaml.in/yaml/v3"
)

// !expr is a value derived from others with expr-lang/expr
// (github.com/expr-lang/expr): `!expr "qty * price"`. It may name the
// operation's values (values:, drawn before it) and the fields written
// before it in the same document. It is compiled once, when the file is
// read (a syntax error or an unknown name is a problem of the file, with
// its line and column), and evaluated by a virtual machine each worker
// reuses; the file's check evaluates every expression on generated
// values, so a type error shows before the run too.

// exprGen is !expr.
type exprGen struct {
	prog  *vm.Program
	n     *yaml.Node
	path  string
	names []string // the names it uses
	field []int    // per name: the field of the same document (-1: a value)
	value []int    // per name: the operation's value (-1: a field)
	slot  int      // its environment in a Gen's exprState
	err   error    // the first evaluation error while the file is checked
}

// exprState is a worker's state for the file's expressions: a reused
// virtual machine, one environment per expression, and the offsets of
// the fields of the documents being written.
type exprState struct {
	vm       vm.VM
	envs     []map[string]any
	offs     []int // per field of the open documents: where its element starts (-1: absent)
	base     int   // where the innermost open document's fields start in offs
	checking bool  // the file is being checked: evaluation errors are kept
}

func (g *Gen) exprs() *exprState {
	if g.x == nil {
		g.x = &exprState{envs: make([]map[string]any, g.f.exprs)}
	}
	return g.x
}

// exprGen compiles !expr; fields are the names of the fields before it
// in its document (nil when it is not a field's value).
func (p *parser) exprGen(n *yaml.Node, path string, fields []string) node {
	if n.Kind != yaml.ScalarNode || strings.TrimSpace(n.Value) == "" {
		p.errorf(n, path, "got %s: want an expression such as \"qty * price\"", kindOf(n))
		return nullNode
	}
	tree, err := exprparser.Parse(n.Value)
	if err != nil {
		p.errorf(n, path, "%s", exprProblem(err))
		return nullNode
	}
	var used identifiers
	ast.Walk(&tree.Node, &used)
	e := &exprGen{n: n, path: path, slot: p.f.exprs}
	for _, name := range used.names {
		if slices.Contains(used.own, name) {
			continue // a variable of the expression's own (let)
		}
		fi, vi := slices.Index(fields, name), -1
		if fi < 0 {
			vi = slices.Index(p.values, name)
		}
		if fi < 0 && vi < 0 {
			hint := ""
			if m := closestName(name, append(slices.Clone(fields), p.values...)); m != "" {
				hint = fmt.Sprintf(" (did you mean %q?)", m)
			}
			p.errorf(n, path, "unknown name %q%s: want one of %s", name, hint, namesText(fields, p.values))
			return nullNode
		}
		e.names, e.field, e.value = append(e.names, name), append(e.field, fi), append(e.value, vi)
	}
	// the names' types are known only when values are drawn: the
	// expression is checked for them then (checkDrawn)
	if e.prog, err = expr.Compile(n.Value, expr.AllowUndefinedVariables()); err != nil {
		p.errorf(n, path, "%s", exprProblem(err))
		return nullNode
	}
	p.f.exprs++
	p.exprs = append(p.exprs, e)
	return e
}

func namesText(fields, values []string) string {
	all := append(append([]string{}, fields...), values...)
	if len(all) == 0 {
		return "none: an expression names the operation's values and the fields before it in its document"
	}
	return strings.Join(all, ", ")
}

// exprProblem is the first line of expr's error, without its snippet.
func exprProblem(err error) string {
	s, _, _ := strings.Cut(err.Error(), "\n")
	return s
}

// identifiers are the names an expression uses, besides the functions
// it calls, and the variables it declares itself (let).
type identifiers struct{ names, callees, own []string }

func (ids *identifiers) Visit(n *ast.Node) {
	switch x := (*n).(type) {
	case *ast.IdentifierNode:
		if !slices.Contains(ids.names, x.Value) && !slices.Contains(ids.callees, x.Value) {
			ids.names = append(ids.names, x.Value)
		}
	case *ast.CallNode:
		if id, ok := x.Callee.(*ast.IdentifierNode); ok {
			ids.callees = append(ids.callees, id.Value)
			ids.names = slices.DeleteFunc(ids.names, func(s string) bool { return s == id.Value })
		}
	case *ast.VariableDeclaratorNode:
		ids.own = append(ids.own, x.Name)
	}
}

func (e *exprGen) element(dst []byte, key string, g *Gen) []byte {
	x := g.exprs()
	env := x.envs[e.slot]
	if env == nil {
		env = make(map[string]any, len(e.names))
		x.envs[e.slot] = env
	}
	for i, name := range e.names {
		var el []byte
		if f := e.field[i]; f >= 0 {
			if at := x.base + f; at < len(x.offs) && x.offs[at] >= 0 {
				el = dst[x.offs[at]:]
			}
		} else {
			el = g.vals[e.value[i]]
		}
		env[name] = nil
		if el != nil {
			env[name] = decodeElement(el)
		}
	}
	v, err := x.vm.Run(e.prog, env)
	if err == nil {
		var ok bool
		if dst, ok = appendAny(dst, key, v); ok {
			return dst
		}
		err = fmt.Errorf("the result is %T: want a number, text, a bool, a date, nil, or a list or map of them", v)
	}
	if x.checking && e.err == nil {
		e.err = err
	}
	return header(dst, typeNull, key)
}

func (*exprGen) size() int64 { return 1 << 10 }

// decodeElement reads a BSON element as a Go value for an expression.
func decodeElement(el []byte) any {
	t := el[0]
	i := 1
	for i < len(el) && el[i] != 0 {
		i++
	}
	return decodeValue(t, el[i+1:])
}

func decodeValue(t byte, v []byte) any {
	switch t {
	case typeDouble:
		return math.Float64frombits(binary.LittleEndian.Uint64(v))
	case typeString:
		n := int(binary.LittleEndian.Uint32(v))
		return string(v[4 : 4+n-1])
	case typeInt32:
		return int(int32(binary.LittleEndian.Uint32(v)))
	case typeInt64:
		return int(int64(binary.LittleEndian.Uint64(v)))
	case typeBool:
		return v[0] == 1
	case typeDateTime:
		return time.UnixMilli(int64(binary.LittleEndian.Uint64(v))).UTC()
	case typeObjectID:
		return hex.EncodeToString(v[:12])
	case typeBinary:
		n := int(binary.LittleEndian.Uint32(v))
		return v[5 : 5+n]
	case typeDocument, typeArray:
		n := int(binary.LittleEndian.Uint32(v))
		body := v[4 : n-1]
		m, a := map[string]any{}, []any{}
		for len(body) > 0 {
			et := body[0]
			k := 1
			for body[k] != 0 {
				k++
			}
			key := string(body[1:k])
			size := valueLen(et, body[k+1:])
			if size < 0 {
				break
			}
			val := decodeValue(et, body[k+1:k+1+size])
			m[key], a = val, append(a, val)
			body = body[k+1+size:]
		}
		if t == typeArray {
			return a
		}
		return m
	}
	return nil
}

// appendAny writes an expression's result as the element key.
func appendAny(dst []byte, key string, v any) ([]byte, bool) {
	switch v := v.(type) {
	case nil:
		return header(dst, typeNull, key), true
	case int:
		return appendInt64(header(dst, typeInt64, key), int64(v)), true
	case int64:
		return appendInt64(header(dst, typeInt64, key), v), true
	case int32:
		return appendInt32(header(dst, typeInt32, key), v), true
	case float64:
		return appendDouble(header(dst, typeDouble, key), v), true
	case float32:
		return appendDouble(header(dst, typeDouble, key), float64(v)), true
	case string:
		return appendString(header(dst, typeString, key), v), true
	case bool:
		return appendBool(header(dst, typeBool, key), v), true
	case time.Time:
		return appendInt64(header(dst, typeDateTime, key), v.UnixMilli()), true
	case []any:
		at, d := startDoc(header(dst, typeArray, key))
		for i, it := range v {
			var ok bool
			if d, ok = appendAny(d, arrayKey(i), it); !ok {
				return dst, false
			}
		}
		return endDoc(d, at), true
	case map[string]any:
		at, d := startDoc(header(dst, typeDocument, key))
		for k, it := range v {
			var ok bool
			if d, ok = appendAny(d, k, it); !ok {
				return dst, false
			}
		}
		return endDoc(d, at), true
	}
	return dst, false
}

// appendSlow writes a document that has a !pad or an !expr field: the
// offsets of its fields are kept for the expressions, and the pad is
// widened in place once the other fields are written.
func (d *docNode) appendSlow(dst []byte, g *Gen) []byte {
	var x *exprState
	base, prev := 0, 0
	if d.exprs {
		x = g.exprs()
		base, prev = len(x.offs), x.base
		x.base = base
	}
	at, dst := startDoc(dst)
	ins := -1
	for i, f := range d.fields {
		start := len(dst)
		if x != nil {
			x.offs = append(x.offs[:base+i], start)
		}
		if d.pad != nil && i == d.pad.field {
			dst = append(header(dst, typeString, f.key), 1, 0, 0, 0)
			ins = len(dst)
			dst = append(dst, 0)
			continue
		}
		dst = f.v.element(dst, f.key, g)
		if x != nil {
			x.offs = x.offs[:base+i+1]
			if len(dst) == start {
				x.offs[base+i] = -1
			}
		}
	}
	if x != nil {
		x.offs, x.base = x.offs[:base], prev
	}
	dst = endDoc(dst, at)
	if d.pad != nil {
		dst = d.fill(dst, at, ins, g)
	}
	return dst
}

// fill widens a document's empty pad at ins to reach its target size.
func (d *docNode) fill(dst []byte, at, ins int, g *Gen) []byte {
	natural := len(dst) - at
	if g.x != nil && g.x.checking { // the check needs the natural sizes alone: it widens nothing
		d.pad.drawn++
		d.pad.sum += float64(max(natural, int(d.pad.target)))
		d.pad.natural += float64(natural)
		d.pad.most = max(d.pad.most, natural)
		return dst
	}
	need := int(d.pad.target) - natural
	if need <= 0 {
		return dst
	}
	end := len(dst)
	dst = append(dst, make([]byte, need)...)
	copy(dst[ins+need:], dst[ins:end])
	for w := ins; w < ins+need; {
		off := g.r.IntN(len(padText) / 2)
		w += copy(dst[w:ins+need], padText[off:])
	}
	binary.LittleEndian.PutUint32(dst[ins-4:], uint32(need+1))
	binary.LittleEndian.PutUint32(dst[at:], uint32(len(dst)-at))
	return dst
}

// checkDrawn generates the file's documents and operation parts, when
// it has expressions or pads, and refuses an expression that fails to
// evaluate on the values drawn and a pad whose document, on average,
// outgrows its target by more than 2%.
func (p *parser) checkDrawn() {
	if len(p.exprs) == 0 && len(p.pads) == 0 {
		return
	}
	defer func() { // the draws leave no trace on the run's sequences
		for _, c := range p.f.seqs {
			c.Store(0)
		}
	}()
	g := p.f.NewGen(1, 0)
	g.exprs().checking = true
	var buf []byte
	for _, c := range p.f.Collections {
		if c.Doc == nil {
			continue
		}
		drawn := 0
		for i := range int64(checkDraws) {
			if p.ctx.Err() != nil || drawn > drawBudget {
				break
			}
			buf = g.Seed(buf[:0], c, 1, i)
			drawn += len(buf)
			buf = g.Doc(buf[:0], c)
			drawn += len(buf)
		}
	}
	for _, o := range p.f.Ops {
		drawn := 0
		for range checkDraws / 4 {
			if p.ctx.Err() != nil || drawn > drawBudget {
				break
			}
			g.Begin(o)
			for _, t := range []*Template{o.Filter, o.Update, o.Replacement, o.Document, o.Pipeline} {
				if t != nil {
					buf = t.Append(buf[:0], g)
					drawn += len(buf)
				}
			}
		}
	}
	for _, e := range p.exprs {
		if e.err != nil {
			var fe interface{ Unwrap() error }
			err := e.err
			if errors.As(err, &fe) && fe.Unwrap() != nil {
				err = fe.Unwrap()
			}
			p.errorf(e.n, e.path, "%s, on values drawn (%s)", exprProblem(err), sampleOf(e))
		}
	}
	for _, pg := range p.pads {
		d := pg.doc
		if d == nil || d.pad.drawn == 0 {
			continue
		}
		avg := d.pad.sum / float64(d.pad.drawn)
		if avg > float64(d.pad.target)*1.02 {
			p.errorf(pg.n, pg.path, "the document's other fields take %.0f bytes on average (up to %d) of %d documents drawn: padded, they average %.0f bytes, over the target %d by more than 2%%: raise the size, or narrow the other fields",
				d.pad.natural/float64(d.pad.drawn), d.pad.most, d.pad.drawn, avg, d.pad.target)
		}
	}
}

// checkDraws is how many documents the check draws of each collection,
// and drawBudget the bytes after which it draws no more of one (a few
// documents of 16 MB): the check's time grows with the file, not with
// the sizes it names.
const (
	checkDraws = 200
	drawBudget = 64 << 20
)

func sampleOf(e *exprGen) string {
	if len(e.names) == 0 {
		return "it names no value"
	}
	return "it names " + strings.Join(e.names, ", ")
}
