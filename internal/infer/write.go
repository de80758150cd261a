package infer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.yaml.in/yaml/v3"

	"github.com/mongobench/mongobench/internal/workloadfile"
)

// Options say what a written workload file names and seeds.
type Options struct {
	// Collection is the collection the file seeds (and the workload's
	// name unless Name is given).
	Collection string
	Name       string
	// Seed is how many documents the seed phase writes.
	Seed int64
	// Source says where the sample came from, for the file's comment:
	// "shop.orders", "orders.json".
	Source string
}

// Infer models the sample's documents and writes a workload file whose
// seeded documents match them; the file is checked (workloadfile.Parse)
// before it is returned. A file is at most 1 MB: when the model would
// make it larger, each sub-document keeps only its fields most often
// present (the sample's first of equal ones); dropped says how many
// fields were left out.
// It stops with ctx's error when ctx is done.
func Infer(ctx context.Context, sample [][]byte, o Options) (text []byte, dropped int, err error) {
	docs := raws(sample)
	if len(docs) == 0 {
		return nil, 0, errors.New("no documents to infer a shape from")
	}
	id := idNode(docs)
	shs := shapes(docs)
	models := make([]*object, len(shs))
	for i, s := range shs {
		for j := 0; j < len(s.docs); j += 1024 {
			if err := ctx.Err(); err != nil {
				return nil, 0, err
			}
			if models[i] == nil {
				models[i] = newObject()
			}
			for _, d := range s.docs[j:min(j+1024, len(s.docs))] {
				models[i].add(d)
			}
		}
	}
	w := &writer{}
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		w.dropped = 0
		var doc *yaml.Node
		if len(shs) == 1 {
			doc = w.objectNode(models[0], id)
		} else {
			from := seq(false)
			weights := seq(true)
			for i, s := range shs {
				m := w.objectNode(models[i], id)
				m.HeadComment = fmt.Sprintf("shape %d: %s of the sample", i+1, pct(float64(len(s.docs))/float64(len(docs))))
				from.Content = append(from.Content, m)
				weights.Content = append(weights.Content, intNode(int64(len(s.docs))))
			}
			doc = tagged("!choice", mapping("from", from, "weights", weights))
		}
		head := fmt.Sprintf("Inferred by mongobench workload infer from %d documents of %s:\n%s.", len(docs), o.Source, sizeText(docs))
		if w.dropped > 0 {
			head += fmt.Sprintf("\nEach sub-document keeps its %d fields most often present: %d fields are left out to keep the file within 1 MB.", w.limit, w.dropped)
		}
		head += "\nEdit freely: docs/workload-files.md describes the format."
		size := textSize(doc) // at most what the file takes, without encoding a model far too large
		if size <= maxFile {
			text, err = o.write(doc, head, fmt.Sprintf("documents shaped like %s (inferred from %d documents)", o.Source, len(docs)))
			if err != nil || len(text) <= maxFile {
				return text, w.dropped, err
			}
			size = len(text)
		}
		if w.limit == 1 {
			return nil, 0, fmt.Errorf("the model of the sample makes a file of at least %d bytes with one field per sub-document: a workload file is at most %d", size, maxFile)
		}
		if w.limit == 0 {
			w.limit = w.widest
		}
		w.limit = max(1, min(w.limit-1, int(float64(w.limit)*float64(maxFile)/float64(size)*0.9)))
	}
}

// textSize is the least text YAML writes for a node: its scalars' values,
// tags and comments, two bytes each beside, without the indentation.
func textSize(n *yaml.Node) int {
	size := len(n.Value) + len(n.HeadComment) + len(n.LineComment) + 2
	if !strings.HasPrefix(n.Tag, "!!") {
		size += len(n.Tag)
	}
	for _, c := range n.Content {
		size += textSize(c)
	}
	return size
}

// A writer writes a model as YAML: each sub-document with at most limit
// fields (0: all of them).
type writer struct {
	limit   int
	dropped int // fields left out
	widest  int // the most fields of a sub-document
}

// Clone writes a workload file whose seed documents are the sample's,
// copied as they are, each with a fresh _id (seed document i is sample
// document i mod n). A file is at most 1 MB: when the sample's copies
// would make it larger, the first documents that fit are kept; kept
// says how many.
func Clone(sample [][]byte, o Options) (text []byte, kept int, err error) {
	docs := raws(sample)
	if len(docs) == 0 {
		return nil, 0, errors.New("no documents to clone")
	}
	id := idNode(docs)
	// The first documents of at most 4 MB as BSON: no more can fit in a
	// 1 MB file, and the sample's copies are never all written to learn
	// that.
	n, size := 0, 0
	for n < len(docs) && (n == 0 || size+len(docs[n]) <= 4*maxFile) {
		size += len(docs[n])
		n++
	}
	for {
		from := seq(false)
		for _, d := range docs[:n] {
			from.Content = append(from.Content, bsonNode(bson.RawValue{Type: bson.TypeEmbeddedDocument, Value: d}, true))
		}
		doc := tagged("!sample", mapping("id", id, "from", from))
		size := textSize(doc)
		if size <= maxFile || n == 1 {
			head := fmt.Sprintf("Cloned by mongobench workload infer --clone from %d documents of %s (%d kept), each seeded with a fresh _id:\n%s.", len(docs), o.Source, n, sizeText(docs[:n]))
			text, err = o.write(doc, head, fmt.Sprintf("copies of %d documents of %s, with fresh keys", n, o.Source))
			if err != nil || len(text) <= maxFile || n == 1 {
				if err == nil && len(text) > maxFile {
					err = fmt.Errorf("one document of the sample makes a file of %d bytes: a workload file is at most %d", len(text), maxFile)
				}
				return text, n, err
			}
			size = len(text)
		}
		n = max(1, min(n-1, int(float64(n)*float64(maxFile)/float64(size)*0.95)))
	}
}

// maxFile is the largest workload file (bounded.WorkloadFile).
const maxFile = 1 << 20

// MaxSeed is the most documents a written file may seed: the bound
// workloadfile sets on a collection's seed.
const MaxSeed = 1 << 40

func (o Options) write(doc *yaml.Node, head, description string) ([]byte, error) {
	name := o.Name
	if name == "" {
		name = o.Collection
	}
	coll := mapping("seed", intNode(max(o.Seed, 1)), "document", doc)
	key := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!key", Value: o.Collection}
	read := mapping("weight", intNode(1), "op", str("findOne"), "collection", str(o.Collection), "filter", mapping("_id", key))
	root := mapping(
		"name", str(name),
		"description", str(description),
		"collections", mapping(o.Collection, coll),
		"operations", mapping("read", read),
	)
	root.HeadComment = head
	var b bytes.Buffer
	e := yaml.NewEncoder(&b)
	e.SetIndent(2)
	if err := e.Encode(root); err != nil {
		return nil, err
	}
	if err := e.Close(); err != nil {
		return nil, err
	}
	if b.Len() > maxFile {
		return b.Bytes(), nil // the caller's to make smaller: workloadfile refuses it unread
	}
	if _, err := workloadfile.Parse(name+".yaml", b.Bytes()); err != nil {
		return nil, fmt.Errorf("the written file does not check (a bug of infer): %w", err)
	}
	return b.Bytes(), nil
}

func docOf(docs []bson.Raw) *object {
	o := newObject()
	for _, d := range docs {
		o.add(d)
	}
	return o
}

// idNode is the fresh _id of the seeded documents, by the sample's most
// frequent _id type: an ObjectId, a number (a sequence), text (a
// sequence after the sample's common prefix) or a UUID.
func idNode(docs []bson.Raw) *yaml.Node {
	counts := map[bson.Type]int{}
	var texts []string
	uuids := 0
	for _, d := range docs {
		v, err := d.LookupErr("_id")
		if err != nil {
			continue
		}
		counts[v.Type]++
		switch v.Type {
		case bson.TypeString:
			texts = append(texts, v.StringValue())
		case bson.TypeBinary:
			if sub, data := v.Binary(); sub == 4 && len(data) == 16 {
				uuids++
			}
		}
	}
	best, n := bson.TypeObjectID, 0
	for _, t := range []bson.Type{bson.TypeObjectID, bson.TypeInt32, bson.TypeInt64, bson.TypeDouble, bson.TypeString, bson.TypeBinary} {
		if counts[t] > n {
			best, n = t, counts[t]
		}
	}
	switch {
	case best == bson.TypeInt32 || best == bson.TypeInt64 || best == bson.TypeDouble:
		return tagged("!seq", nil)
	case best == bson.TypeString:
		return tagged("!seq", mapping("prefix", str(commonPrefix(texts))))
	case best == bson.TypeBinary && uuids == n:
		return tagged("!uuid", nil)
	}
	return tagged("!objectid", nil)
}

func commonPrefix(s []string) string {
	if len(s) < 2 {
		return "id-"
	}
	p := s[0]
	for _, x := range s[1:] {
		for !strings.HasPrefix(x, p) {
			p = p[:len(p)-1]
		}
	}
	for !utf8.ValidString(p) {
		p = p[:len(p)-1]
	}
	if p == "" {
		return "id-"
	}
	return p
}

// objectNode writes the fields of documents; id, when given, is the
// top-level _id.
func (w *writer) objectNode(o *object, id *yaml.Node) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode}
	if id != nil {
		m.Content = append(m.Content, str("_id"), id)
	}
	w.widest = max(w.widest, len(o.order))
	keep := o.order
	if w.limit > 0 && len(keep) > w.limit {
		byPresence := slices.Clone(keep)
		slices.SortStableFunc(byPresence, func(a, b string) int { return o.fields[b].n - o.fields[a].n })
		kept := map[string]bool{}
		for _, k := range byPresence[:w.limit] {
			kept[k] = true
		}
		keep = slices.DeleteFunc(slices.Clone(keep), func(k string) bool { return !kept[k] })
		w.dropped += len(o.order) - len(keep)
	}
	for _, k := range keep {
		if id != nil && k == "_id" {
			continue
		}
		v := o.fields[k]
		key, val := str(validText(k)), w.valuesNode(v, o.docs)
		if val.Kind == yaml.ScalarNode {
			val.LineComment = v.comment(o.docs)
		} else {
			key.HeadComment = v.comment(o.docs)
		}
		m.Content = append(m.Content, key, val)
	}
	return m
}

// validText is s with each byte that is not UTF-8 replaced (U+FFFD): a
// name YAML can hold.
func validText(s string) string { return strings.ToValidUTF8(s, "\uFFFD") }

// valuesNode writes the values of a path held by parents documents (or
// arrays' items): its types by their shares, nulls and absences as
// !maybe.
func (w *writer) valuesNode(v *values, parents int) *yaml.Node {
	var val *yaml.Node
	nonNull := v.n - v.nulls
	switch len(v.order) {
	case 0:
		val = &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
	case 1:
		val = w.typedNode(v.types[v.order[0]], v.order[0])
	default:
		from, weights := seq(false), seq(true)
		for _, t := range v.byCount() {
			from.Content = append(from.Content, w.typedNode(v.types[t], t))
			weights.Content = append(weights.Content, intNode(int64(v.types[t].count)))
		}
		val = tagged("!choice", mapping("from", from, "weights", weights))
	}
	absent := 1 - float64(v.n)/float64(parents)
	null := float64(v.nulls) / float64(parents)
	if nonNull == 0 {
		null = 0 // the value is null
	}
	if absent < 0.0005 && null < 0.0005 {
		return val
	}
	args := mapping("value", val)
	if null >= 0.0005 {
		args.Content = append(args.Content, str("null"), share(null))
	}
	if absent >= 0.0005 {
		args.Content = append(args.Content, str("absent"), share(absent))
	}
	return tagged("!maybe", args)
}

func (v *values) byCount() []bson.Type {
	ts := slices.Clone(v.order)
	slices.SortStableFunc(ts, func(a, b bson.Type) int { return v.types[b].count - v.types[a].count })
	return ts
}

// comment states what the sample held at a path, when it held more
// than one type or was sometimes absent or null.
func (v *values) comment(parents int) string {
	if v.n == parents && v.nulls == 0 && len(v.types) <= 1 {
		return ""
	}
	var parts []string
	for _, t := range v.byCount() {
		parts = append(parts, fmt.Sprintf("%s %s", typeName(t), pct(float64(v.types[t].count)/float64(v.n))))
	}
	if v.nulls > 0 {
		parts = append(parts, "null "+pct(float64(v.nulls)/float64(v.n)))
	}
	return fmt.Sprintf("in %s: %s", pct(float64(v.n)/float64(parents)), strings.Join(parts, ", "))
}

// typedNode writes the values of one type.
func (w *writer) typedNode(t *typed, bt bson.Type) *yaml.Node {
	switch bt {
	case bson.TypeInt32, bson.TypeInt64:
		tag := "!int"
		if bt == bson.TypeInt32 {
			tag = "!int32"
		}
		q := quantiles(t.nums, true)
		if len(q) == 1 {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: q[0]}
		}
		return tagged(tag, mapping("quantiles", numSeq(q)))
	case bson.TypeDouble:
		q := quantiles(t.nums, false)
		if len(q) == 1 {
			return tagged("!float", mapping("min", num(q[0]), "max", num(q[0])))
		}
		return tagged("!float", mapping("quantiles", numSeq(q)))
	case bson.TypeDateTime:
		lo, hi := slices.Min(t.nums), slices.Max(t.nums)
		return tagged("!date", mapping("min", dateNode(int64(lo)), "max", dateNode(int64(hi))))
	case bson.TypeBoolean:
		return tagged("!bool", mapping("true", share(float64(t.trues)/float64(t.count))))
	case bson.TypeObjectID:
		return tagged("!objectid", nil)
	case bson.TypeString:
		return t.stringNode()
	case bson.TypeBinary:
		if t.uuids == t.count {
			return tagged("!uuid", nil)
		}
		return tagged("!binary", mapping("size", lengthNode(t.nums)))
	case bson.TypeEmbeddedDocument:
		return w.objectNode(t.fields, nil)
	case bson.TypeArray:
		if t.items == nil || t.items.n == 0 {
			return &yaml.Node{Kind: yaml.SequenceNode, Style: yaml.FlowStyle}
		}
		return tagged("!array", mapping("length", lengthNode(t.nums), "of", w.valuesNode(t.items, t.items.n)))
	}
	return bsonNode(t.example, false) // a constant: Decimal128, regular expression, timestamp, …
}

var ( // the dates a workload file writes

	minDate = time.Date(1, 1, 1, 0, 0, 0, 0, time.UTC)
	maxDate = time.Date(9999, 12, 31, 23, 59, 59, 999e6, time.UTC)
)

// stringNode writes strings: a choice among few values, a kind the
// fake-data library makes, dates as text, or characters of a length.
func (t *typed) stringNode() *yaml.Node {
	if t.strs != nil && len(t.strs) <= maxDistinct && t.count >= 3*len(t.strs) && t.fewShort() {
		keys := make([]string, 0, len(t.strs))
		for s := range t.strs {
			keys = append(keys, s)
		}
		slices.SortFunc(keys, func(a, b string) int {
			if t.strs[a] != t.strs[b] {
				return t.strs[b] - t.strs[a]
			}
			return strings.Compare(a, b)
		})
		if len(keys) == 1 {
			return str(keys[0])
		}
		from, weights := seq(true), seq(true)
		for _, k := range keys {
			from.Content = append(from.Content, str(k))
			weights.Content = append(weights.Content, intNode(int64(t.strs[k])))
		}
		return tagged("!choice", mapping("from", from, "weights", weights))
	}
	kind, n := kindText, 0
	for k, c := range t.kinds {
		if c > n || c == n && k < kind {
			kind, n = k, c
		}
	}
	if float64(n) < 0.9*float64(t.count) {
		kind = kindText
	}
	switch kind {
	case kindEmail:
		return tagged("!fake", str("email"))
	case kindUUID:
		return tagged("!fake", str("uuid"))
	case kindURL:
		return tagged("!fake", str("url"))
	case kindIPv4:
		return tagged("!fake", str("ipv4"))
	case kindObjectID:
		return tagged("!string", mapping("length", intNode(24), "chars", str("hex")))
	case kindDate, kindDateTime:
		if lo, hi, ok := t.dateRange(); ok {
			format := "date"
			if kind == kindDateTime {
				format = "rfc3339"
				if t.withFraction() {
					format = "rfc3339ms"
				}
			}
			return tagged("!date", mapping("min", dateNode(lo), "max", dateNode(hi), "format", str(format)))
		}
	}
	return tagged("!string", mapping("length", lengthNode(t.nums), "chars", str(t.chars.name())))
}

// fewShort says whether the distinct strings kept are short enough to
// be written as a choice among them, and are UTF-8.
func (t *typed) fewShort() bool {
	n := 0
	for s := range t.strs {
		if n += len(s); n > maxChoiceText || !utf8.ValidString(s) {
			return false
		}
	}
	return true
}

// maxChoiceText is the most text a choice among a path's distinct
// strings holds, all of them together.
const maxChoiceText = 4096

// dateRange is the range of strings that are dates, from the distinct
// values kept or the example.
func (t *typed) dateRange() (lo, hi int64, ok bool) {
	lo, hi = math.MaxInt64, math.MinInt64
	each := func(s string) {
		for _, l := range []string{time.RFC3339Nano, "2006-01-02"} {
			if v, err := time.Parse(l, s); err == nil {
				lo, hi = min(lo, v.UnixMilli()), max(hi, v.UnixMilli())
				return
			}
		}
	}
	for s := range t.strs {
		each(s)
	}
	each(t.example.StringValue())
	for _, s := range t.dates {
		each(s)
	}
	return lo, hi, lo <= hi
}

func (t *typed) withFraction() bool {
	for _, s := range t.dates {
		if strings.Contains(s, ".") {
			return true
		}
	}
	return false
}

// lengthNode writes lengths: a constant, or quantiles.
func lengthNode(nums []float64) *yaml.Node {
	q := quantiles(nums, true)
	if len(q) == 1 {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: q[0]}
	}
	return mapping("quantiles", numSeq(q))
}

// quantiles are the values' equally spaced quantiles (eleven, five or
// two as the values are many), as integers when ints; one value when all
// are the same.
func quantiles(nums []float64, ints bool) []string {
	s := slices.Clone(nums)
	slices.Sort(s)
	steps := 1
	switch {
	case len(s) >= 40:
		steps = 20
	case len(s) >= 20:
		steps = 10
	case len(s) >= 5:
		steps = 4
	}
	var out []string
	for i := 0; i <= steps; i++ {
		pos := float64(i) / float64(steps) * float64(len(s)-1)
		lo := int(pos)
		v := s[lo]
		if lo+1 < len(s) {
			v += (pos - float64(lo)) * (s[lo+1] - s[lo])
		}
		if ints {
			out = append(out, strconv.FormatInt(int64(math.Round(v)), 10))
		} else {
			out = append(out, strconv.FormatFloat(v, 'g', 8, 64))
		}
	}
	if s[0] == s[len(s)-1] {
		return out[:1]
	}
	return out
}

// sizeText states the documents' BSON sizes.
func sizeText(docs []bson.Raw) string {
	p50, p95 := sizes(docs)
	return fmt.Sprintf("BSON size p50 %d bytes, p95 %d bytes", p50, p95)
}

func pct(f float64) string { return strconv.FormatFloat(100*f, 'g', 3, 64) + "%" }

// YAML nodes.

func str(s string) *yaml.Node { return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: s} }

func intNode(v int64) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(v, 10)}
}

func num(s string) *yaml.Node {
	tag := "!!int"
	if strings.ContainsAny(s, ".eEn") {
		tag = "!!float"
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag, Value: s}
}

func numSeq(q []string) *yaml.Node {
	s := seq(true)
	for _, v := range q {
		s.Content = append(s.Content, num(v))
	}
	return s
}

func share(f float64) *yaml.Node {
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: strconv.FormatFloat(math.Round(f*1e4)/1e4, 'f', -1, 64)}
}

// dateNode writes a date in ms since the epoch, within the years a
// workload file writes (0001 to 9999: one outside is written as the
// nearest of them).
func dateNode(ms int64) *yaml.Node {
	ms = min(max(ms, minDate.UnixMilli()), maxDate.UnixMilli())
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!timestamp", Value: time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z")}
}

func seq(flow bool) *yaml.Node {
	n := &yaml.Node{Kind: yaml.SequenceNode}
	if flow {
		n.Style = yaml.FlowStyle
	}
	return n
}

func mapping(kv ...any) *yaml.Node {
	m := &yaml.Node{Kind: yaml.MappingNode}
	for i := 0; i+1 < len(kv); i += 2 {
		m.Content = append(m.Content, str(kv[i].(string)), kv[i+1].(*yaml.Node))
	}
	return m
}

// tagged is a generator: its tag on its arguments (none: nil).
func tagged(tag string, args *yaml.Node) *yaml.Node {
	if args == nil {
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: tag}
	}
	args.Tag = tag
	return args
}

func raws(docs [][]byte) []bson.Raw {
	out := make([]bson.Raw, len(docs))
	for i, d := range docs {
		out[i] = d
	}
	return out
}
