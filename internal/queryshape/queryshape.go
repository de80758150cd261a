// Package queryshape reduces a recorded request to its shape: the
// command, its namespace, and the parts that decide how the server runs
// it (a filter, a pipeline, a sort, a projection, an update) with every
// literal value replaced by its type, as $queryStats shapes a query:
// `{status: "A", qty: {$gt: 5}}` and `{status: "B", qty: {$gt: 70}}` are
// both `{status: {$eq: "?string"}, qty: {$gt: "?number"}}`. Requests of
// one shape are one kind of work, counted and measured together.
//
// What stays as written: field names and paths ("$qty" in an
// expression), operators, a sort's directions, a projection's
// inclusions, stage names, and the options that change the plan
// (hint, collation, upsert, multi). What becomes a type: every other
// literal, a number as "?number" whatever its BSON type, an array as
// "?array<?T>" when its elements share a type, "?array<>" when they do
// not, "[]" when empty. Envelope fields (lsid, txnNumber, $clusterTime,
// read and write concerns, $readPreference, API version) are not part
// of a shape; nor are an insert's documents. The package is pure.
package queryshape

import (
	"slices"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/recording"
)

// Shape is a request's shape.
type Shape struct {
	Command    string
	Database   string
	Collection string // "" for a command on no collection
	// Doc is the shape as a document: cmdNs, command and the shaped
	// parts, in the request's order.
	Doc bson.D
}

// Key is the shape as canonical text (Extended JSON), equal for equal
// shapes: the key to group requests by.
func (s Shape) Key() string {
	b, err := bson.MarshalExtJSON(s.Doc, false, false)
	if err != nil {
		return s.Command + " " + s.Database + "." + s.Collection
	}
	return string(b)
}

// envelope fields are no part of a shape.
var envelope = map[string]bool{
	"lsid": true, "txnNumber": true, "$clusterTime": true, "$db": true, "$readPreference": true,
	"readConcern": true, "writeConcern": true, "startTransaction": true, "autocommit": true,
	"apiVersion": true, "apiStrict": true, "apiDeprecationErrors": true, "maxTimeMS": true,
	"comment": true, "$audit": true, "$client": true, "mayBypassWriteConcern": true,
	"bypassDocumentValidation": true, "ordered": true, "stmtIds": true, "stmtId": true,
	"batchSize": true, "cursor": true, "allowDiskUse": true, "$queryOptions": true,
}

// kept fields are part of a shape as written.
var kept = map[string]bool{
	"sort": true, "hint": true, "collation": true, "upsert": true, "multi": true, "new": true,
	"remove": true, "singleBatch": true, "tailable": true, "awaitData": true, "returnKey": true,
	"showRecordId": true, "allowPartialResults": true, "noCursorTimeout": true, "key": true,
	"explain": true,
}

// filterFields hold a query filter.
var filterFields = map[string]bool{"filter": true, "query": true, "q": true}

// Of reduces a request to its shape; false for a reply or a message
// that names no command.
func Of(m recording.Message) (Shape, bool) {
	if m.Header.ResponseTo != 0 || len(m.Body) == 0 {
		return Shape{}, false
	}
	cmd := m.Command()
	if cmd == "" {
		return Shape{}, false
	}
	body := m.Body
	var s Shape
	s.Command = cmd
	s.Database = m.Database()
	switch m.Op {
	case recording.OpMsg, recording.OpQuery:
		if m.Op == recording.OpQuery {
			if !strings.HasSuffix(m.Collection, ".$cmd") {
				// A legacy find: the query is the filter.
				_, s.Collection, _ = strings.Cut(m.Collection, ".")
				s.Command = "find"
				s.Doc = bson.D{ns(s), {Key: "command", Value: "find"}, {Key: "filter", Value: filter(queryOf(body))}}
				return s, true
			}
			if q, ok := unwrap(body); ok {
				body = q
			}
		}
	default:
		_, s.Collection, _ = strings.Cut(m.Collection, ".")
		s.Doc = bson.D{ns(s), {Key: "command", Value: s.Command}}
		if len(m.Body) > 0 {
			s.Doc = append(s.Doc, bson.E{Key: "filter", Value: filter(m.Body)})
		}
		return s, true
	}
	elems, err := body.Elements()
	if err != nil || len(elems) == 0 {
		return Shape{}, false
	}
	first := elems[0].Value()
	if c, ok := first.StringValueOK(); ok && cmd != "getMore" {
		s.Collection = c
	}
	if cmd == "getMore" {
		if c, ok := body.Lookup("collection").StringValueOK(); ok {
			s.Collection = c
		}
	}
	s.Doc = bson.D{ns(s), {Key: "command", Value: cmd}}
	for _, e := range elems[1:] {
		k := e.Key()
		v := e.Value()
		switch {
		case envelope[k]:
		case cmd == "getMore" || cmd == "killCursors":
			// The cursor ids are values of the moment: the shape is the
			// namespace.
		case filterFields[k]:
			s.Doc = append(s.Doc, bson.E{Key: k, Value: filter(docOf(v))})
		case k == "pipeline":
			s.Doc = append(s.Doc, bson.E{Key: k, Value: pipeline(v)})
		case k == "projection" || k == "fields":
			s.Doc = append(s.Doc, bson.E{Key: k, Value: projection(docOf(v))})
		case k == "update":
			s.Doc = append(s.Doc, bson.E{Key: k, Value: update(v)})
		case k == "let":
			s.Doc = append(s.Doc, bson.E{Key: k, Value: expr(v)})
		case k == "documents" && cmd == "insert":
		case k == "updates" || k == "deletes":
			s.Doc = append(s.Doc, bson.E{Key: k, Value: statements(v)})
		case kept[k]:
			s.Doc = append(s.Doc, bson.E{Key: k, Value: v})
		default:
			s.Doc = append(s.Doc, bson.E{Key: k, Value: literal(v)})
		}
	}
	for _, seq := range m.Sequences {
		switch seq.Identifier {
		case "updates", "deletes":
			arr := make(bson.A, len(seq.Documents))
			for i, d := range seq.Documents {
				arr[i] = statement(d)
			}
			s.Doc = append(s.Doc, bson.E{Key: seq.Identifier, Value: dedupe(arr)})
		case "documents":
		default:
			s.Doc = append(s.Doc, bson.E{Key: seq.Identifier, Value: "?array<?object>"})
		}
	}
	return s, true
}

func ns(s Shape) bson.E {
	d := bson.D{{Key: "db", Value: s.Database}}
	if s.Collection != "" {
		d = append(d, bson.E{Key: "coll", Value: s.Collection})
	}
	return bson.E{Key: "cmdNs", Value: d}
}

// unwrap takes an OP_QUERY command out of $query or query.
func unwrap(d bson.Raw) (bson.Raw, bool) {
	e, err := d.IndexErr(0)
	if err != nil || (e.Key() != "$query" && e.Key() != "query") {
		return nil, false
	}
	return e.Value().DocumentOK()
}

// queryOf is a legacy find's filter: the query, or its $query.
func queryOf(d bson.Raw) bson.Raw {
	if q, ok := unwrap(d); ok {
		return q
	}
	return d
}

func docOf(v bson.RawValue) bson.Raw {
	d, _ := v.DocumentOK()
	return d
}

// filter shapes a query filter: a field's value becomes {$eq: ?type}
// unless it is a document of operators, whose arguments are shaped.
func filter(d bson.Raw) bson.D {
	elems, err := d.Elements()
	if err != nil {
		return bson.D{}
	}
	out := make(bson.D, 0, len(elems))
	for _, e := range elems {
		k, v := e.Key(), e.Value()
		switch {
		case k == "$and" || k == "$or" || k == "$nor":
			arr, _ := v.ArrayOK()
			vals, _ := arr.Values()
			sub := make(bson.A, 0, len(vals))
			for _, x := range vals {
				sub = append(sub, filter(docOf(x)))
			}
			out = append(out, bson.E{Key: k, Value: sub})
		case k == "$expr":
			out = append(out, bson.E{Key: k, Value: expr(v)})
		case k == "$text" || k == "$where" || k == "$comment":
			out = append(out, bson.E{Key: k, Value: literal(v)})
		case strings.HasPrefix(k, "$"):
			out = append(out, bson.E{Key: k, Value: literal(v)})
		case isOperatorDoc(v):
			out = append(out, bson.E{Key: k, Value: operators(docOf(v))})
		default:
			out = append(out, bson.E{Key: k, Value: bson.D{{Key: "$eq", Value: literal(v)}}})
		}
	}
	return out
}

// isOperatorDoc: a document whose first key is an operator.
func isOperatorDoc(v bson.RawValue) bool {
	d, ok := v.DocumentOK()
	if !ok {
		return false
	}
	e, err := d.IndexErr(0)
	return err == nil && strings.HasPrefix(e.Key(), "$")
}

// operators shapes a field's operators: $elemMatch and $not hold a
// filter (or operators), the others a literal.
func operators(d bson.Raw) bson.D {
	elems, _ := d.Elements()
	out := make(bson.D, 0, len(elems))
	for _, e := range elems {
		k, v := e.Key(), e.Value()
		switch k {
		case "$elemMatch":
			if isOperatorDoc(v) {
				out = append(out, bson.E{Key: k, Value: operators(docOf(v))})
			} else {
				out = append(out, bson.E{Key: k, Value: filter(docOf(v))})
			}
		case "$not":
			if isOperatorDoc(v) {
				out = append(out, bson.E{Key: k, Value: operators(docOf(v))})
			} else {
				out = append(out, bson.E{Key: k, Value: literal(v)})
			}
		case "$options":
			out = append(out, bson.E{Key: k, Value: v})
		default:
			out = append(out, bson.E{Key: k, Value: literal(v)})
		}
	}
	return out
}

// pipeline shapes an aggregation pipeline stage by stage.
func pipeline(v bson.RawValue) bson.A {
	arr, ok := v.ArrayOK()
	if !ok {
		return bson.A{literal(v)}
	}
	vals, _ := arr.Values()
	out := make(bson.A, 0, len(vals))
	for _, sv := range vals {
		stage, ok := sv.DocumentOK()
		if !ok {
			out = append(out, literal(sv))
			continue
		}
		e, err := stage.IndexErr(0)
		if err != nil {
			continue
		}
		name, arg := e.Key(), e.Value()
		var shaped any
		switch name {
		case "$match":
			shaped = filter(docOf(arg))
		case "$sort", "$unwind", "$count", "$sortByCount", "$out", "$merge", "$unset", "$collStats", "$indexStats":
			shaped = arg
		case "$limit", "$skip", "$sample":
			shaped = literal(arg)
		case "$lookup", "$graphLookup", "$unionWith", "$facet":
			shaped = subStage(arg)
		default:
			shaped = expr(arg)
		}
		out = append(out, bson.D{{Key: name, Value: shaped}})
	}
	return out
}

// subStage shapes a stage that names collections and fields and may
// hold pipelines ($lookup, $unionWith, $facet).
func subStage(v bson.RawValue) any {
	d, ok := v.DocumentOK()
	if !ok {
		return v // $unionWith: "coll"
	}
	elems, _ := d.Elements()
	out := make(bson.D, 0, len(elems))
	for _, e := range elems {
		k, x := e.Key(), e.Value()
		switch {
		case k == "pipeline" || x.Type == bson.TypeArray && isPipeline(x):
			out = append(out, bson.E{Key: k, Value: pipeline(x)})
		case k == "let":
			out = append(out, bson.E{Key: k, Value: expr(x)})
		case k == "restrictSearchWithMatch":
			out = append(out, bson.E{Key: k, Value: filter(docOf(x))})
		case k == "startWith":
			out = append(out, bson.E{Key: k, Value: expr(x)})
		default:
			out = append(out, bson.E{Key: k, Value: x}) // from, localField, as, …
		}
	}
	return out
}

// isPipeline: an array of stage documents ($facet's outputs).
func isPipeline(v bson.RawValue) bool {
	arr, _ := v.ArrayOK()
	vals, _ := arr.Values()
	return len(vals) > 0 && isOperatorDoc(vals[0])
}

// expr shapes an aggregation expression: field paths ("$a.b") and
// variables stay, operators stay, other literals become their type.
func expr(v bson.RawValue) any {
	switch v.Type {
	case bson.TypeString:
		if s := v.StringValue(); strings.HasPrefix(s, "$") {
			return s
		}
		return "?string"
	case bson.TypeEmbeddedDocument:
		d := docOf(v)
		elems, _ := d.Elements()
		out := make(bson.D, 0, len(elems))
		for _, e := range elems {
			if e.Key() == "$literal" {
				out = append(out, bson.E{Key: e.Key(), Value: literal(e.Value())})
				continue
			}
			out = append(out, bson.E{Key: e.Key(), Value: expr(e.Value())})
		}
		return out
	case bson.TypeArray:
		arr, _ := v.ArrayOK()
		vals, _ := arr.Values()
		out := make(bson.A, len(vals))
		for i, x := range vals {
			out[i] = expr(x)
		}
		return out
	case bson.TypeBoolean, bson.TypeInt32, bson.TypeInt64, bson.TypeDouble:
		// In $project and $group, 1/true and 0/false say include and
		// exclude: keep small integers and booleans as they are.
		if isFlag(v) {
			return v
		}
	}
	return literal(v)
}

// isFlag: a boolean, or the number 0 or 1.
func isFlag(v bson.RawValue) bool {
	switch v.Type {
	case bson.TypeBoolean:
		return true
	case bson.TypeInt32:
		n := v.Int32()
		return n == 0 || n == 1
	case bson.TypeInt64:
		n := v.Int64()
		return n == 0 || n == 1
	case bson.TypeDouble:
		n := v.Double()
		return n == 0 || n == 1
	}
	return false
}

// projection keeps inclusions and exclusions, shapes expressions.
func projection(d bson.Raw) bson.D {
	elems, _ := d.Elements()
	out := make(bson.D, 0, len(elems))
	for _, e := range elems {
		v := e.Value()
		if isFlag(v) {
			out = append(out, bson.E{Key: e.Key(), Value: v})
			continue
		}
		out = append(out, bson.E{Key: e.Key(), Value: expr(v)})
	}
	return out
}

// update shapes an update: operators with their fields' values as
// types, a replacement as its fields' types, a pipeline stage by stage.
func update(v bson.RawValue) any {
	if v.Type == bson.TypeArray {
		return pipeline(v)
	}
	d := docOf(v)
	elems, _ := d.Elements()
	out := make(bson.D, 0, len(elems))
	for _, e := range elems {
		k, x := e.Key(), e.Value()
		if strings.HasPrefix(k, "$") {
			if sub, ok := x.DocumentOK(); ok {
				fe, _ := sub.Elements()
				fields := make(bson.D, 0, len(fe))
				for _, f := range fe {
					fields = append(fields, bson.E{Key: f.Key(), Value: literal(f.Value())})
				}
				out = append(out, bson.E{Key: k, Value: fields})
				continue
			}
		}
		out = append(out, bson.E{Key: k, Value: literal(x)})
	}
	return out
}

// statements shapes an update's or a delete's statements, equal ones
// once.
func statements(v bson.RawValue) bson.A {
	arr, _ := v.ArrayOK()
	vals, _ := arr.Values()
	out := make(bson.A, 0, len(vals))
	for _, x := range vals {
		out = append(out, statement(docOf(x)))
	}
	return dedupe(out)
}

func statement(d bson.Raw) bson.D {
	elems, _ := d.Elements()
	out := make(bson.D, 0, len(elems))
	for _, e := range elems {
		k, v := e.Key(), e.Value()
		switch {
		case filterFields[k]:
			out = append(out, bson.E{Key: k, Value: filter(docOf(v))})
		case k == "u":
			out = append(out, bson.E{Key: k, Value: update(v)})
		case kept[k] || k == "limit" || k == "arrayFilters":
			out = append(out, bson.E{Key: k, Value: v})
		default:
			out = append(out, bson.E{Key: k, Value: literal(v)})
		}
	}
	return out
}

// dedupe keeps the first of equal shaped statements: a batch of a
// hundred updates of one shape is one shape.
func dedupe(a bson.A) bson.A {
	seen := map[string]bool{}
	out := a[:0]
	for _, x := range a {
		b, err := bson.MarshalExtJSON(bson.D{{Key: "s", Value: x}}, false, false)
		if err == nil && seen[string(b)] {
			continue
		}
		seen[string(b)] = true
		out = append(out, x)
	}
	return out
}

// literal is a value's type as $queryStats writes it.
func literal(v bson.RawValue) string {
	if v.Type == bson.TypeArray {
		arr, _ := v.ArrayOK()
		vals, _ := arr.Values()
		if len(vals) == 0 {
			return "[]"
		}
		t := typeName(vals[0])
		for _, x := range vals[1:] {
			if typeName(x) != t {
				return "?array<>"
			}
		}
		return "?array<" + t + ">"
	}
	return typeName(v)
}

func typeName(v bson.RawValue) string {
	switch v.Type {
	case bson.TypeDouble, bson.TypeInt32, bson.TypeInt64, bson.TypeDecimal128:
		return "?number"
	case bson.TypeString, bson.TypeSymbol:
		return "?string"
	case bson.TypeEmbeddedDocument:
		return "?object"
	case bson.TypeArray:
		return "?array"
	case bson.TypeBinary:
		return "?binData"
	case bson.TypeUndefined:
		return "?undefined"
	case bson.TypeObjectID:
		return "?objectId"
	case bson.TypeBoolean:
		return "?bool"
	case bson.TypeDateTime:
		return "?date"
	case bson.TypeNull:
		return "?null"
	case bson.TypeRegex:
		return "?regex"
	case bson.TypeDBPointer:
		return "?dbPointer"
	case bson.TypeJavaScript, bson.TypeCodeWithScope:
		return "?javascript"
	case bson.TypeTimestamp:
		return "?timestamp"
	case bson.TypeMinKey:
		return "?minKey"
	case bson.TypeMaxKey:
		return "?maxKey"
	}
	return "?unknown"
}

// MaxShapes bounds the distinct shapes a Tally keeps; requests of
// further shapes are counted as Other.
const MaxShapes = 100_000

// Count is a shape and its requests.
type Count struct {
	Shape    Shape
	Requests int
}

// Tally counts requests per shape.
type Tally struct {
	counts map[string]*Count
	total  int
	// Other counts the requests of shapes past MaxShapes.
	Other int
}

// Add counts one request of shape s.
func (t *Tally) Add(s Shape) {
	t.total++
	k := s.Key()
	if c, ok := t.counts[k]; ok {
		c.Requests++
		return
	}
	if t.counts == nil {
		t.counts = map[string]*Count{}
	}
	if len(t.counts) >= MaxShapes {
		t.Other++
		return
	}
	t.counts[k] = &Count{Shape: s, Requests: 1}
}

// Total is the requests counted; Len the distinct shapes kept.
func (t *Tally) Total() int { return t.total }
func (t *Tally) Len() int   { return len(t.counts) }

// Top returns the n shapes with the most requests (all when n <= 0),
// ties in the order of their keys.
func (t *Tally) Top(n int) []Count {
	out := make([]Count, 0, len(t.counts))
	for _, c := range t.counts {
		out = append(out, *c)
	}
	slices.SortFunc(out, func(a, b Count) int {
		if a.Requests != b.Requests {
			return b.Requests - a.Requests
		}
		return strings.Compare(a.Shape.Key(), b.Shape.Key())
	})
	if n > 0 && len(out) > n {
		out = out[:n]
	}
	return out
}
