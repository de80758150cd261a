package workloadfile

import (
	"slices"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/mongobench/mongobench/internal/spec"
)

// The parts of the operations beyond the plain reads and writes:
// findOneAnd*, count, distinct, bulkWrite, read preferences and
// transactions.

var (
	// noFilter are the kinds without a filter of their own.
	noFilter = map[string]bool{"insertOne": true, "insertMany": true, "aggregate": true, "bulkWrite": true, "transaction": true}
	// stepKinds are what a transaction's step may be.
	stepKinds = slices.DeleteFunc(slices.Clone(opKinds), func(k string) bool { return k == "transaction" })
	// writeKinds are a bulkWrite's models.
	writeKinds = []string{"insertOne", "updateOne", "updateMany", "replaceOne", "deleteOne", "deleteMany"}
	// txnKeys are an operation's keys that a transaction's step takes
	// from its transaction.
	txnKeys = []string{"readConcern", "writeConcern", "readPreference", "weight", "values"}
	// txnReadLevels are the read concerns a transaction may have.
	txnReadLevels = []string{"local", "majority", "snapshot"}
	readModes     = []string{"primary", "primaryPreferred", "secondary", "secondaryPreferred", "nearest"}
	readPrefKeys  = []string{"mode", "tagSets", "maxStalenessSeconds"}
)

// defaultMaxRetries bounds a transaction's retries, as the built-in
// ledger's maxRetries does by default.
const defaultMaxRetries = 100

// maxSteps bounds a transaction's steps and a bulkWrite's models.
const maxSteps = 1000

// ReadPreference is an operation's read preference.
type ReadPreference struct {
	Mode string // primary, primaryPreferred, secondary, secondaryPreferred, nearest
	// TagSets are the tag sets, in order of preference (nil: none).
	TagSets [][]Tag
	// MaxStaleness is 0 when not given.
	MaxStaleness time.Duration
}

// Tag is one tag of a tag set.
type Tag struct{ Name, Value string }

// Primary says whether the read goes to the primary only, as the wire
// client's do.
func (r *ReadPreference) Primary() bool { return r == nil || r.Mode == "primary" }

// Doc is the read preference as the $readPreference document.
func (r *ReadPreference) Doc() []byte {
	at, dst := startDoc(nil)
	dst = appendString(header(dst, typeString, "mode"), r.Mode)
	if r.TagSets != nil {
		arr, d := startDoc(header(dst, typeArray, "tags"))
		for i, set := range r.TagSets {
			st, dd := startDoc(header(d, typeDocument, arrayKey(i)))
			for _, t := range set {
				dd = appendString(header(dd, typeString, t.Name), t.Value)
			}
			d = endDoc(dd, st)
		}
		dst = endDoc(d, arr)
	}
	if r.MaxStaleness > 0 {
		dst = appendInt32(header(dst, typeInt32, "maxStalenessSeconds"), int32(r.MaxStaleness/time.Second))
	}
	return endDoc(dst, at)
}

// validKeys are the keys an operation of kind may have: a transaction
// has no collection, and a step takes its concerns, weight and values
// from its transaction (each such key given is reported here).
func (p *parser) validKeys(v *yaml.Node, path, kind string, step bool) []string {
	switch {
	case kind == "transaction":
		return append([]string{"op", "weight", "values"}, opKeys[kind]...)
	case step:
		for i := 0; i+1 < len(v.Content); i += 2 {
			switch k := v.Content[i]; {
			case k.Value == "readPreference":
				p.errorf(k, path, "a transaction's step reads from the primary, as the transaction does: a step has no readPreference")
			case slices.Contains(txnKeys, k.Value):
				p.errorf(k, path, "a transaction's step takes %s from its transaction: give it there", k.Value)
			}
		}
		return append(append([]string{"op", "collection"}, opKeys[kind]...), txnKeys...)
	}
	return append(slices.Clone(commonOpKeys), opKeys[kind]...)
}

// replaces says whether the operation writes a whole document in place
// of the one it finds.
func (o *Op) replaces() bool { return o.Kind == "replaceOne" || o.Kind == "findOneAndReplace" }

// moreParts compiles the parts of the kinds beyond the plain reads and
// writes.
func (p *parser) moreParts(op *Op, f map[string]*yaml.Node, path string) {
	if n := f["returnDocument"]; n != nil {
		switch r := resolve(n); r.Value {
		case "before", "after":
			op.ReturnNew = r.Value == "after"
		default:
			p.unknownValue(r, path+".returnDocument", "returnDocument", []string{"before", "after"})
		}
	}
	if n := f["key"]; n != nil {
		if op.Key = p.text(n, path+".key"); strings.HasPrefix(op.Key, "$") || strings.Contains(op.Key, "\x00") {
			p.errorf(n, path+".key", "%q is not a field: want a field's path such as status or items.sku", op.Key)
		}
	}
	if n := f["readPreference"]; n != nil {
		op.ReadPreference = p.readPreference(n, path+".readPreference")
	}
	if n := f["writes"]; n != nil {
		p.writes(op, n, path+".writes")
	}
}

// readPreference reads a mode, or {mode, tagSets, maxStalenessSeconds}.
func (p *parser) readPreference(n *yaml.Node, path string) *ReadPreference {
	n = resolve(n)
	rp := &ReadPreference{}
	mode := n
	var f map[string]*yaml.Node
	if n.Kind == yaml.MappingNode {
		if f = p.mapping(n, path, "read preference key", readPrefKeys); f == nil {
			return nil
		}
		if mode = f["mode"]; mode == nil {
			p.errorf(n, path, `missing key "mode": want one of %s`, strings.Join(readModes, ", "))
			return nil
		}
		mode = resolve(mode)
	}
	if mode.Kind != yaml.ScalarNode || !slices.Contains(readModes, mode.Value) {
		p.unknownValue(mode, path, "read preference mode", readModes)
		return nil
	}
	rp.Mode = mode.Value
	if ts := f["tagSets"]; ts != nil {
		rp.TagSets = p.tagSets(ts, path+".tagSets")
		if rp.Mode == "primary" {
			p.errorf(ts, path+".tagSets", "mode primary takes no tag sets: want another mode, or no tag sets")
		}
	}
	if ms := f["maxStalenessSeconds"]; ms != nil {
		if v, ok := p.int(ms, path+".maxStalenessSeconds"); ok {
			switch {
			case rp.Mode == "primary":
				p.errorf(ms, path+".maxStalenessSeconds", "mode primary takes no maxStalenessSeconds: want another mode")
			case v < 90 || v > 1<<31-1:
				p.errorf(ms, path+".maxStalenessSeconds", "%d is not valid: want at least 90 seconds", v)
			default:
				rp.MaxStaleness = time.Duration(v) * time.Second
			}
		}
	}
	return rp
}

func (p *parser) tagSets(n *yaml.Node, path string) [][]Tag {
	n = resolve(n)
	if n.Kind != yaml.SequenceNode {
		p.errorf(n, path, "got %s: want a list of tag sets such as [{dc: east}, {}]", kindOf(n))
		return nil
	}
	sets := [][]Tag{}
	for i, s := range n.Content {
		spath := path + "[" + itoa(int64(i)) + "]"
		keys, vals := p.pairs(s, spath, "a tag set such as {dc: east, use: reporting}")
		set := []Tag{}
		for j, k := range keys {
			set = append(set, Tag{Name: k.Value, Value: p.text(vals[j], spath+"."+k.Value)})
		}
		sets = append(sets, set)
	}
	return sets
}

// writes compiles a bulkWrite's models: each a mapping of one key, the
// model's kind, to its parts, on the bulkWrite's collection or its own.
func (p *parser) writes(op *Op, n *yaml.Node, path string) {
	n = resolve(n)
	if n.Kind != yaml.SequenceNode || len(n.Content) == 0 || len(n.Content) > maxSteps {
		p.errorf(n, path, "got %s: want a list of 1 to %d writes such as [{insertOne: {document: {...}}}, {updateOne: {filter: {...}, update: {...}}}]", kindOf(n), maxSteps)
		return
	}
	total := int64(0)
	for i, w := range n.Content {
		wpath := path + "[" + itoa(int64(i)) + "]"
		w = resolve(w)
		if w.Kind != yaml.MappingNode || len(w.Content) != 2 {
			p.errorf(w, wpath, "got %s: want a mapping of one key, the write's kind (%s), such as {updateOne: {filter: {...}, update: {...}}}", kindOf(w), strings.Join(writeKinds, ", "))
			continue
		}
		k := w.Content[0]
		if !slices.Contains(writeKinds, k.Value) {
			p.unknownValue(k, wpath, "write", writeKinds)
			continue
		}
		m := &Op{Name: op.Name, Kind: k.Value, Coll: op.Coll, Ordered: true}
		mpath := wpath + "." + k.Value
		keys := append([]string{"collection"}, slices.DeleteFunc(slices.Clone(opKeys[m.Kind]), func(s string) bool { return s == "writeConcern" })...)
		f := p.mapping(w.Content[1], mpath, m.Kind+" key", keys)
		if f == nil {
			continue
		}
		if c := f["collection"]; c != nil {
			if name := p.text(c, mpath+".collection"); name != "" {
				if m.Coll = p.f.Collection(name); m.Coll == nil {
					p.unknownValue(resolve(c), mpath+".collection", "collection", p.collNames())
				}
			}
		} else {
			f["collection"] = k // where to say the collection lacks a document
		}
		for _, req := range opRequired[m.Kind] {
			if f[req] == nil {
				p.errorf(w.Content[1], mpath, "missing key %q: %s needs it", req, m.Kind)
			}
		}
		outer := p.coll
		p.coll = m.Coll
		p.opParts(m, f, mpath)
		p.coll = outer
		if m.Coll != nil {
			if m.ns = slices.Index(op.Namespaces, m.Coll); m.ns < 0 {
				m.ns = len(op.Namespaces)
				op.Namespaces = append(op.Namespaces, m.Coll)
			}
		}
		for _, t := range []*Template{m.Filter, m.Update, m.Replacement, m.Document} {
			if t != nil {
				total = add(total, t.size())
			}
		}
		op.Writes = append(op.Writes, m)
	}
	p.bounded(n, path, total, maxMessage, "a bulkWrite")
}

// transaction compiles a transaction: its concerns, its bounds and its
// steps, which see its values.
func (p *parser) transaction(op *Op, f map[string]*yaml.Node, path string) {
	if n := f["readConcern"]; n != nil {
		if op.ReadConcern = p.readConcern(n, path+".readConcern"); op.ReadConcern != "" && !slices.Contains(txnReadLevels, op.ReadConcern) {
			p.errorf(n, path+".readConcern", "a transaction reads at local, majority or snapshot, not %s", op.ReadConcern)
		}
	}
	if n := f["writeConcern"]; n != nil {
		op.WriteConcern = p.writeConcern(n, path+".writeConcern")
	}
	if n := f["maxCommitTime"]; n != nil {
		d, err := spec.ParseDuration(resolve(n).Value)
		if err != nil || d <= 0 || resolve(n).Kind != yaml.ScalarNode {
			p.errorf(n, path+".maxCommitTime", "got %s: want a duration above 0 such as 5s or 500ms", kindOf(resolve(n)))
		}
		op.MaxCommitTime = time.Duration(d)
	}
	if n := f["maxRetries"]; n != nil {
		if v, ok := p.int(n, path+".maxRetries"); ok {
			if v < 0 || v > 10_000 {
				p.errorf(n, path+".maxRetries", "%d is not valid: want 0 to 10000 retries", v)
			}
			op.MaxRetries = int(v)
		}
	}
	n := f["steps"]
	if n == nil {
		return
	}
	steps := resolve(n)
	if steps.Kind != yaml.SequenceNode || len(steps.Content) == 0 || len(steps.Content) > maxSteps {
		p.errorf(steps, path+".steps", "got %s: want a list of 1 to %d operations such as [{op: updateOne, collection: accounts, filter: {...}, update: {...}}]", kindOf(steps), maxSteps)
		return
	}
	for i, s := range steps.Content {
		if st := p.op(s, path+".steps["+itoa(int64(i))+"]", op.Name, op); st != nil {
			op.Steps = append(op.Steps, st)
		}
	}
}
