package workloadfile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mongobench/mongobench/internal/spec"
)

// parser walks a workload file's YAML nodes, compiling what is valid and
// recording every problem.
type parser struct {
	ctx  context.Context // the check's draws stop when it ends
	file string
	f    *File
	errs []*Error
	// While compiling values: the collection whose documents they build
	// (a sequence continues after its seed), the operation's shared
	// values visible to !ref (nil: none may be named), and what the
	// values are, when generators are not allowed there ("" allows them).
	coll       *Collection
	values     []string
	valueSizes []int64
	valueNodes []*yaml.Node
	inValues   bool
	literal    string
	nodes      int // values compiled
	// the file's !pad and !expr, and the fields before an !expr that is
	// a field's value (nil otherwise)
	pads     []*padGen
	exprs    []*exprGen
	siblings []string
}

var (
	topKeys        = []string{"name", "description", "collections", "operations", "audit"}
	collectionKeys = []string{"seed", "document", "indexes"}
	indexKeys      = []string{"keys", "name", "unique", "sparse", "partialFilterExpression", "expireAfterSeconds", "hidden",
		"collation", "weights", "default_language", "language_override", "textIndexVersion", "2dsphereIndexVersion",
		"bits", "min", "max", "wildcardProjection", "storageEngine"}
	commonOpKeys = []string{"op", "collection", "weight", "values"}
	opKeys       = map[string][]string{
		"find":              {"filter", "projection", "sort", "limit", "skip", "hint", "readConcern", "readPreference"},
		"findOne":           {"filter", "projection", "sort", "skip", "hint", "readConcern", "readPreference"},
		"aggregate":         {"pipeline", "allowDiskUse", "hint", "readConcern", "readPreference"},
		"count":             {"filter", "skip", "limit", "hint", "readConcern", "readPreference"},
		"distinct":          {"key", "filter", "hint", "readConcern", "readPreference"},
		"insertOne":         {"document", "writeConcern"},
		"insertMany":        {"document", "count", "ordered", "writeConcern"},
		"updateOne":         {"filter", "update", "upsert", "hint", "writeConcern"},
		"updateMany":        {"filter", "update", "upsert", "hint", "writeConcern"},
		"replaceOne":        {"filter", "replacement", "upsert", "hint", "writeConcern"},
		"deleteOne":         {"filter", "hint", "writeConcern"},
		"deleteMany":        {"filter", "hint", "writeConcern"},
		"findOneAndUpdate":  {"filter", "update", "sort", "projection", "upsert", "returnDocument", "hint", "writeConcern"},
		"findOneAndReplace": {"filter", "replacement", "sort", "projection", "upsert", "returnDocument", "hint", "writeConcern"},
		"findOneAndDelete":  {"filter", "sort", "projection", "hint", "writeConcern"},
		"bulkWrite":         {"writes", "ordered", "writeConcern"},
		"transaction":       {"steps", "readConcern", "writeConcern", "maxCommitTime", "maxRetries"},
	}
	opKinds = []string{"find", "findOne", "aggregate", "count", "distinct", "insertOne", "insertMany", "updateOne", "updateMany",
		"replaceOne", "deleteOne", "deleteMany", "findOneAndUpdate", "findOneAndReplace", "findOneAndDelete", "bulkWrite", "transaction"}
	reads = map[string]bool{"find": true, "findOne": true, "aggregate": true, "count": true, "distinct": true}
	// required keys of each kind (document and replacement default to
	// the collection's document)
	opRequired = map[string][]string{"aggregate": {"pipeline"}, "updateOne": {"update"}, "updateMany": {"update"},
		"findOneAndUpdate": {"update"}, "distinct": {"key"}, "bulkWrite": {"writes"}, "transaction": {"steps"}}

	opName         = regexp.MustCompile(`^[A-Za-z][A-Za-z0-9_-]{0,63}$`)
	readLevels     = []string{"local", "majority", "available", "linearizable", "snapshot"}
	writeConcernKs = []string{"w", "j"}
)

func (p *parser) parse(data []byte) {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			p.errorf(nil, "", "the file is empty: want a mapping with collections and operations")
		} else {
			p.syntax(err)
		}
		return
	}
	var extra yaml.Node
	if err := dec.Decode(&extra); err == nil {
		p.errorf(&extra, "", "a second YAML document: a workload file holds one")
		return
	}
	if len(doc.Content) == 0 {
		p.errorf(nil, "", "the file is empty: want a mapping with collections and operations")
		return
	}
	root := doc.Content[0]
	top := p.mapping(root, "", "key", topKeys)
	if top == nil {
		return
	}
	if n := top["name"]; n != nil {
		p.f.Name = p.text(n, "name")
	}
	if n := top["description"]; n != nil {
		p.f.Description = p.text(n, "description")
	}
	colls := top["collections"]
	if colls == nil {
		p.errorf(root, "", `missing key "collections": want the collections the workload uses, such as {orders: {seed: 1000, document: {...}}}`)
		return
	}
	p.collections(colls)
	ops := top["operations"]
	if ops == nil {
		p.errorf(root, "", `missing key "operations": want the named operations of the mix, such as {read: {op: findOne, collection: orders, filter: {...}}}`)
		return
	}
	p.operations(ops)
	if a := top["audit"]; a != nil {
		p.f.Audit = p.audit(a, "audit")
	}
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)

// syntax records a YAML syntax error at its line.
func (p *parser) syntax(err error) {
	e := &Error{File: p.file, Problem: "invalid YAML: " + strings.TrimPrefix(err.Error(), "yaml: ")}
	if m := yamlLine.FindStringSubmatch(err.Error()); m != nil {
		e.Line, _ = strconv.Atoi(m[1])
		e.Problem = "invalid YAML: " + m[2]
	}
	p.errs = append(p.errs, e)
}

// mapping checks that n is a mapping whose keys are valid (each once)
// and returns its values by key; nil when n is not a mapping.
func (p *parser) mapping(n *yaml.Node, path, what string, valid []string) map[string]*yaml.Node {
	n = resolve(n)
	if n.Kind != yaml.MappingNode {
		p.errorf(n, path, "got %s: want a mapping with keys %s", kindOf(n), strings.Join(valid, ", "))
		return nil
	}
	out := map[string]*yaml.Node{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch {
		case !slices.Contains(valid, k.Value):
			p.unknown(k, path, what, valid)
		case out[k.Value] != nil:
			p.errorf(k, path, "key %q is given twice", k.Value)
		default:
			out[k.Value] = v
		}
	}
	return out
}

// pairs returns a mapping's keys and values in order (names defined by
// the user: collections, operations, values).
func (p *parser) pairs(n *yaml.Node, path, want string) (keys, vals []*yaml.Node) {
	n = resolve(n)
	if n.Kind != yaml.MappingNode {
		p.errorf(n, path, "got %s: want %s", kindOf(n), want)
		return nil, nil
	}
	seen := map[string]bool{}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if seen[k.Value] {
			p.errorf(k, path, "%q is defined twice", k.Value)
			continue
		}
		seen[k.Value] = true
		keys, vals = append(keys, k), append(vals, n.Content[i+1])
	}
	return keys, vals
}

func resolve(n *yaml.Node) *yaml.Node {
	for n.Kind == yaml.AliasNode && n.Alias != nil {
		n = n.Alias
	}
	if n.Kind == yaml.DocumentNode && len(n.Content) == 1 {
		return resolve(n.Content[0])
	}
	return n
}

func (p *parser) collections(n *yaml.Node) {
	keys, vals := p.pairs(n, "collections", "a mapping of collection names to {seed, document, indexes}")
	if len(keys) == 0 && len(p.errs) == 0 {
		p.errorf(n, "collections", "no collections: want at least one")
	}
	fields := make([]map[string]*yaml.Node, len(keys))
	for i, k := range keys {
		before := len(p.errs)
		path := "collections." + k.Value
		c := &Collection{Name: k.Value, salt: salt(k.Value)}
		if why := badCollection(k.Value); why != "" {
			p.errorf(k, "collections", "collection %q: %s", k.Value, why)
		}
		p.f.Collections = append(p.f.Collections, c)
		fields[i] = p.mapping(vals[i], path, "collection key", collectionKeys)
		if fields[i] == nil {
			continue
		}
		if s := fields[i]["seed"]; s != nil {
			if v, ok := p.int(s, path+".seed"); ok {
				if v < 0 || v > maxSeed {
					p.errorf(s, path+".seed", "%d is not valid: want a number of documents from 0 to %d", v, int64(maxSeed))
				} else {
					c.Seed = v
				}
			}
		}
		c.broken = len(p.errs) > before
	}
	// _ids first, so !key can name any collection's seeded documents
	for i, c := range p.f.Collections {
		if d := fields[i]; d != nil && d["document"] != nil {
			if t := resolve(d["document"]).Tag; t == "!choice" || t == "!sample" {
				p.shapeID(c, d["document"], "collections."+c.Name+".document")
			} else {
				p.idOf(c, d["document"], "collections."+c.Name+".document")
			}
		}
	}
	for i, c := range p.f.Collections {
		if fields[i] == nil {
			continue
		}
		before := len(p.errs)
		path := "collections." + c.Name
		if d := fields[i]["document"]; d != nil {
			p.coll = c
			c.Doc = p.template(d, path+".document", false)
			c.noID = withoutID(c.Doc)
			p.bounded(d, path+".document", c.Doc.size(), maxDocument, "a document")
			p.deep(d, path+".document", c.Doc)
			p.coll = nil
		} else if c.Seed > 0 && !c.broken { // an unknown key may be the document
			p.errorf(keys[i], path, "seeds %d documents but has no document: want document: {...}, the shape of its documents", c.Seed)
		}
		if ix := fields[i]["indexes"]; ix != nil {
			c.Indexes = p.indexes(ix, path+".indexes")
		}
		c.broken = c.broken || len(p.errs) > before
	}
}

// maxInsertMany bounds an insertMany's documents: they go in one
// command, of at most 48 MB.
const maxInsertMany = 10_000

// maxSeed bounds a collection's seed.
const maxSeed = 1 << 40

// badCollection says why a collection name is not valid ("" when it is).
func badCollection(name string) string {
	switch {
	case name == "":
		return "a name is needed"
	case strings.ContainsAny(name, "$\x00"):
		return "a name without $ or NUL"
	case strings.HasPrefix(name, "system."):
		return "system collections are the server's"
	case name == markerCollection:
		return "the name of mongobench's ownership marker is reserved"
	case len(name) > 120:
		return "a name of at most 120 bytes"
	case strings.HasPrefix(name, ".") || strings.Contains(name, ".."):
		return "a name that neither starts with a dot nor holds two dots together (MongoDB refuses the namespace)"
	}
	return ""
}

// markerCollection is the collection that marks the data database as
// mongobench's (workload.MarkerCollection).
const markerCollection = "_mongobench"

// idOf compiles the _id of a collection's document first, so that !key
// elsewhere can name its seeded documents.
func (p *parser) idOf(c *Collection, doc *yaml.Node, path string) {
	doc = resolve(doc)
	if doc.Kind != yaml.MappingNode {
		return
	}
	for i := 0; i+1 < len(doc.Content); i += 2 {
		if doc.Content[i].Value != "_id" {
			continue
		}
		p.coll = c
		before := len(p.errs)
		n := p.value(doc.Content[i+1], path+"._id")
		p.coll = nil
		if len(p.errs) > before {
			p.errs = p.errs[:before] // the document's compile reports them
			return
		}
		if k, ok := n.(keyed); ok {
			c.id = k
		}
	}
}

func (p *parser) indexes(n *yaml.Node, path string) [][]byte {
	n = resolve(n)
	if n.Kind != yaml.SequenceNode {
		p.errorf(n, path, "got %s: want a list of indexes such as [{keys: {customer: 1}}]", kindOf(n))
		return nil
	}
	var out [][]byte
	for i, ix := range n.Content {
		ipath := path + "[" + itoa(int64(i)) + "]"
		f := p.mapping(ix, ipath, "index option", indexKeys)
		if f == nil {
			continue
		}
		keys := f["keys"]
		if keys == nil {
			p.errorf(ix, ipath, `missing key "keys": want the index's key pattern such as {customer: 1, created: -1}`)
			continue
		}
		name := ""
		if nn := f["name"]; nn != nil {
			name = p.text(nn, ipath+".name")
		} else {
			name = indexName(resolve(keys))
		}
		p.literal = "an index"
		at, doc := startDoc(nil)
		doc = p.literalValue(keys, ipath+".keys").element(doc, "key", nil)
		doc = appendString(header(doc, typeString, "name"), name)
		r := resolve(ix)
		for j := 0; j+1 < len(r.Content); j += 2 {
			k := r.Content[j].Value
			if k == "keys" || k == "name" || !slices.Contains(indexKeys, k) {
				continue
			}
			doc = p.literalValue(r.Content[j+1], ipath+"."+k).element(doc, k, nil)
		}
		p.literal = ""
		if resolve(keys).Kind != yaml.MappingNode || len(resolve(keys).Content) == 0 {
			p.errorf(keys, ipath+".keys", "got %s: want a key pattern such as {customer: 1, created: -1}", kindOf(resolve(keys)))
		}
		out = append(out, endDoc(doc, at))
	}
	return out
}

// indexName is the server's default index name: field_direction joined
// by underscores.
func indexName(keys *yaml.Node) string {
	var parts []string
	for i := 0; i+1 < len(keys.Content); i += 2 {
		parts = append(parts, keys.Content[i].Value, resolve(keys.Content[i+1]).Value)
	}
	return strings.Join(parts, "_")
}

func (p *parser) operations(n *yaml.Node) {
	keys, vals := p.pairs(n, "operations", "a mapping of operation names to {op, collection, weight, ...}")
	if len(keys) == 0 && len(p.errs) == 0 {
		p.errorf(n, "operations", "no operations: want at least one")
	}
	total, before := 0.0, len(p.errs)
	for i, k := range keys {
		if op := p.operation(k, vals[i]); op != nil {
			p.f.Ops = append(p.f.Ops, op)
			total += op.Weight
		}
	}
	if len(p.f.Ops) > 0 && total <= 0 && len(p.errs) == before {
		p.errorf(n, "operations", "every weight is 0: want at least one operation with a positive weight")
	}
}

func (p *parser) operation(k, v *yaml.Node) *Op {
	path := "operations." + k.Value
	if !opName.MatchString(k.Value) {
		p.errorf(k, "operations", "operation name %q is not valid: want a letter then letters, digits, _ or - (at most 64), such as byCustomer", k.Value)
	}
	p.values, p.valueSizes, p.valueNodes = []string{}, nil, nil
	op := p.op(v, path, k.Value, nil)
	p.coll, p.values = nil, nil
	if op != nil {
		p.f.maxValues = max(p.f.maxValues, len(op.values))
	}
	return op
}

// op compiles an operation of the mix, or a step of the transaction in
// (nil: an operation of the mix).
func (p *parser) op(v *yaml.Node, path, name string, in *Op) *Op {
	v = resolve(v)
	if v.Kind != yaml.MappingNode {
		p.errorf(v, path, "got %s: want a mapping such as {op: findOne, collection: orders, filter: {...}}", kindOf(v))
		return nil
	}
	op := &Op{Name: name, Weight: 1, Ordered: true, MaxRetries: defaultMaxRetries}
	// the kind decides the valid keys
	var kindNode *yaml.Node
	for i := 0; i+1 < len(v.Content); i += 2 {
		if v.Content[i].Value == "op" {
			kindNode = resolve(v.Content[i+1])
		}
	}
	kinds := opKinds
	if in != nil {
		kinds = stepKinds
	}
	if kindNode == nil {
		p.errorf(v, path, `missing key "op": want one of %s`, strings.Join(kinds, ", "))
		return nil
	}
	if in != nil && kindNode.Value == "transaction" {
		p.errorf(kindNode, path+".op", "a transaction's step cannot be a transaction: want one of %s", strings.Join(kinds, ", "))
		return nil
	}
	if !slices.Contains(kinds, kindNode.Value) {
		p.unknownValue(kindNode, path+".op", "operation", kinds)
		return nil
	}
	op.Kind = kindNode.Value
	f := p.mapping(v, path, op.Kind+" key", p.validKeys(v, path, op.Kind, in != nil))
	if f == nil {
		return nil
	}
	if op.Kind != "transaction" {
		if c := f["collection"]; c == nil {
			p.errorf(v, path, `missing key "collection": want one of the collections: %s`, strings.Join(p.collNames(), ", "))
		} else if name := p.text(c, path+".collection"); name != "" {
			if op.Coll = p.f.Collection(name); op.Coll == nil {
				p.unknownValue(resolve(c), path+".collection", "collection", p.collNames())
			}
		}
	}
	for _, req := range opRequired[op.Kind] {
		if f[req] == nil {
			p.errorf(v, path, "missing key %q: %s needs it", req, op.Kind)
		}
	}
	if in == nil {
		if w := f["weight"]; w != nil {
			if x, ok := p.float(w, path+".weight"); ok {
				if x < 0 {
					p.errorf(w, path+".weight", "%v is not valid: want a weight >= 0 (its share is weight / the sum of the weights)", x)
				}
				op.Weight = x
			}
		}
		if vs := f["values"]; vs != nil {
			p.opValues(op, vs, path+".values")
		}
	}
	if op.Kind == "transaction" {
		p.transaction(op, f, path)
		return op
	}
	p.coll = op.Coll
	p.opParts(op, f, path)
	p.coll = nil
	return op
}

func (p *parser) collNames() []string {
	names := make([]string, len(p.f.Collections))
	for i, c := range p.f.Collections {
		names[i] = c.Name
	}
	return names
}

// unknownValue records a value that is not one of the valid ones.
func (p *parser) unknownValue(n *yaml.Node, path, what string, valid []string) {
	hint := ""
	if m := spec.Closest(n.Value, valid, 4); m != "" {
		hint = " (did you mean " + `"` + m + `"?)`
	}
	p.errorf(n, path, "unknown %s %q%s: want one of %s", what, n.Value, hint, strings.Join(valid, ", "))
}

// opValues compiles an operation's shared values, each visible to the
// later ones and to the operation's parts.
func (p *parser) opValues(op *Op, n *yaml.Node, path string) {
	keys, vals := p.pairs(n, path, "a mapping of value names to generators, such as {from: !key accounts}")
	p.inValues = true
	for i, k := range keys {
		g := p.value(vals[i], path+"."+k.Value)
		op.values = append(op.values, namedValue{name: k.Value, gen: g})
		p.values = append(p.values, k.Value)
		p.valueSizes = append(p.valueSizes, sizeOf(g))
		p.valueNodes = append(p.valueNodes, vals[i])
	}
	p.inValues = false
}

func (p *parser) opParts(op *Op, f map[string]*yaml.Node, path string) {
	doc := func(key string) *Template {
		if n := f[key]; n != nil {
			return p.template(n, path+"."+key, false)
		}
		return nil
	}
	lit := func(key, what string) *Template {
		n := f[key]
		if n == nil {
			return nil
		}
		p.literal = what
		defer func() { p.literal = "" }()
		return p.template(n, path+"."+key, false)
	}
	defer p.opSize(op, f, path)
	op.Filter = doc("filter")
	if op.Filter == nil && !noFilter[op.Kind] {
		op.Filter = &Template{n: &literal{t: typeDocument, raw: []byte{5, 0, 0, 0, 0}}}
	}
	op.Projection = lit("projection", "a projection")
	op.Sort = lit("sort", "a sort")
	if n := f["update"]; n != nil {
		op.Update = p.template(n, path+".update", true)
	}
	op.Replacement = doc("replacement")
	op.Document = doc("document")
	if n := f["pipeline"]; n != nil {
		if r := resolve(n); r.Kind != yaml.SequenceNode || isGenerator(r) {
			p.errorf(r, path+".pipeline", "got %s: want a list of stages such as [{$match: {...}}, {$group: {...}}]", kindOf(r))
		} else {
			before := len(p.errs)
			p.stages(r, path+".pipeline")
			op.Pipeline = p.template(n, path+".pipeline", true)
			op.Pipeline.path = path + ".pipeline"
			if l, ok := op.Pipeline.n.(*literal); ok {
				if why := writeProblem(l.raw); why != "" && len(p.errs) == before {
					p.errorf(r, path+".pipeline", "%s", why)
				}
			} else {
				op.Pipeline.guard = true
			}
		}
	}
	if (op.Kind == "insertOne" || op.Kind == "insertMany") && op.Document == nil ||
		op.replaces() && op.Replacement == nil {
		if op.Coll != nil && op.Coll.Doc == nil {
			p.errorf(resolve(f["collection"]), path, "%s writes the collection's document, and collection %q has none: give it a document, or give the operation one", op.Kind, op.Coll.Name)
		}
	}
	if n := f["hint"]; n != nil {
		p.literal = "a hint"
		l := p.literalValue(n, path+".hint")
		p.literal = ""
		if l.t != typeString && l.t != typeDocument {
			p.errorf(n, path+".hint", "got %s: want an index name or key pattern", kindOf(resolve(n)))
		}
		op.Hint, op.HintType = l.raw, l.t
	}
	for key, dst := range map[string]*int64{"limit": &op.Limit, "skip": &op.Skip} {
		if n := f[key]; n != nil {
			if v, ok := p.int(n, path+"."+key); ok {
				if v < 0 {
					p.errorf(n, path+"."+key, "%d is not valid: want an integer >= 0", v)
				}
				*dst = v
			}
		}
	}
	for key, dst := range map[string]*bool{"upsert": &op.Upsert, "ordered": &op.Ordered, "allowDiskUse": &op.AllowDiskUse} {
		if n := f[key]; n != nil {
			*dst = p.bool(n, path+"."+key)
		}
	}
	if n := f["count"]; n != nil {
		op.Count = p.ranged(n, path+".count", 1, maxInsertMany, fmt.Sprintf("a count of documents from 1 to %d (an insertMany is one command)", maxInsertMany))
	}
	if n := f["readConcern"]; n != nil {
		op.ReadConcern = p.readConcern(n, path+".readConcern")
	}
	if n := f["writeConcern"]; n != nil {
		op.WriteConcern = p.writeConcern(n, path+".writeConcern")
	}
	p.moreParts(op, f, path)
}

// bounded refuses a value that could outgrow what the server takes.
func (p *parser) bounded(n *yaml.Node, path string, size, limit int64, what string) {
	if size > limit {
		got, want := bytesText(size), bytesText(limit)
		if got == want { // too close to tell apart in MB
			got, want = strconv.FormatInt(size, 10)+" bytes", strconv.FormatInt(limit, 10)+" bytes"
		}
		p.errorf(resolve(n), path, "%s of up to %s: want at most %s (narrow the lengths and sizes)", what, got, want)
	}
}

func bytesText(n int64) string {
	switch {
	case n >= 1<<40:
		return ">1 TB"
	case n >= 1<<20:
		return strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64) + " MB"
	case n >= 1<<10:
		return strconv.FormatFloat(float64(n)/(1<<10), 'f', 1, 64) + " kB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// opSize refuses an operation whose command could outgrow a message.
func (p *parser) opSize(op *Op, f map[string]*yaml.Node, path string) {
	for _, part := range []struct {
		key string
		t   *Template
	}{{"filter", op.Filter}, {"update", op.Update}, {"replacement", op.Replacement}, {"document", op.Document}, {"pipeline", op.Pipeline}} {
		if part.t != nil && f[part.key] != nil {
			p.bounded(f[part.key], path+"."+part.key, part.t.size(), maxDocument, "a "+part.key)
			p.deep(f[part.key], path+"."+part.key, part.t)
		}
	}
	if op.Kind == "insertMany" && f["count"] != nil && op.Coll != nil {
		doc := int64(0)
		switch {
		case op.Document != nil:
			doc = op.Document.size()
		case op.Coll.Doc != nil:
			doc = op.Coll.Doc.size()
		}
		p.bounded(f["count"], path+".count", times(op.Count.max, doc), maxMessage, "an insertMany")
	}
}

// stages checks a pipeline's stages: each a mapping of one key, written
// as such (generators go in its values), and one that writes names a
// collection of the data database (stageTargets).
func (p *parser) stages(n *yaml.Node, path string) {
	for i, st := range n.Content {
		st = resolve(st)
		spath := path + "[" + itoa(int64(i)) + "]"
		if st.Kind != yaml.MappingNode || len(st.Content) != 2 || isGenerator(st) {
			p.errorf(st, spath, "got %s: want a stage, a mapping of one key such as {$match: {...}} (generators go in its values)", kindOf(st))
			continue
		}
		p.stageTargets(st.Content[0].Value, st.Content[1], spath)
	}
}

func (p *parser) readConcern(n *yaml.Node, path string) string {
	n = resolve(n)
	if n.Kind == yaml.MappingNode {
		f := p.mapping(n, path, "read concern key", []string{"level"})
		if f == nil || f["level"] == nil {
			return ""
		}
		n = resolve(f["level"])
	}
	if !slices.Contains(readLevels, n.Value) || n.Kind != yaml.ScalarNode {
		p.unknownValue(n, path, "read concern level", readLevels)
		return ""
	}
	return n.Value
}

func (p *parser) writeConcern(n *yaml.Node, path string) *WriteConcern {
	n = resolve(n)
	wc := &WriteConcern{}
	w := n
	if n.Kind == yaml.MappingNode {
		f := p.mapping(n, path, "write concern key", writeConcernKs)
		if f == nil {
			return nil
		}
		if j := f["j"]; j != nil {
			b := p.bool(j, path+".j")
			wc.J = &b
		}
		w = f["w"]
		if w == nil {
			return wc
		}
		w = resolve(w)
	}
	if w.Kind != yaml.ScalarNode {
		p.errorf(w, path, "got %s: want w: a number of members, majority or a tag set's name, or a mapping {w, j}", kindOf(w))
		return nil
	}
	if w.Tag == "!!int" {
		v, ok := p.int(w, path)
		if ok && (v < 1 || v > 50) {
			p.errorf(w, path, "%d is not valid: want w from 1 to 50 members, or majority (w: 0, unacknowledged, is not measured)", v)
		}
		wc.W = v
	} else {
		wc.W = w.Value
	}
	return wc
}
