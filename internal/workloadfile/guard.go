package workloadfile

import (
	"bytes"
	"errors"
	"strconv"
	"strings"
	"time"

	"go.yaml.in/yaml/v3"
)

// Where a pipeline may write. A run writes into its own data database
// alone: a stage that writes ($out, $merge) may name a collection there,
// never a database, the ownership marker or a system collection. One
// rule decides it, on the BSON a pipeline is sent as (writeProblem):
// the file's check applies it to every pipeline written as literal
// values, and every pipeline with generated values passes it each time
// it is generated, whatever the generators produced, before it is sent
// (Gen.Refused). The check also refuses, from the file's text, a target
// no rule can know before the run: a stage, or a stage's target, made by
// a generator whose values it cannot enumerate (!expr, !int, …).

// Messages of the rule, the same at the check and at run time.
const (
	namesDatabase = "a stage that writes may only name a collection: the run writes into its own data database alone"
	unknowable    = "a stage that writes names its target plainly, or by !ejson, !choice, !maybe or !ref of such values, or as text (!string, !seq, !fake, !date): %s could name another database"
)

// nameProblem says why a stage may not write collection name ("" when
// it may).
func nameProblem(name string) string {
	if name == markerCollection || strings.HasPrefix(name, "system.") {
		return strconv.Quote(name) + " is not a collection the workload may write"
	}
	return ""
}

// writeProblem applies the rule to a pipeline as BSON (an array of
// stages): every $out and $merge in it, at any depth, names a collection
// of the data database. It returns why not ("" when it does, and for
// BSON it cannot read, which the server refuses).
func writeProblem(pipeline []byte) string {
	return docWriteProblem(pipeline, 0)
}

// maxWalk bounds how deep writeProblem looks: BSON nests at most 100
// levels where the server takes it.
const maxWalk = 200

func docWriteProblem(doc []byte, depth int) string {
	if depth > maxWalk || len(doc) < 5 {
		return ""
	}
	body := doc[4 : len(doc)-1]
	for len(body) > 0 {
		t := body[0]
		end := bytes.IndexByte(body[1:], 0)
		if end < 0 {
			return ""
		}
		key := string(body[1 : 1+end])
		v := body[2+end:]
		n := valueLen(t, v)
		if n < 0 {
			return ""
		}
		v = v[:n]
		var why string
		switch key {
		case "$out":
			why = targetProblem(t, v)
		case "$merge":
			why = mergeProblem(t, v)
		}
		if why != "" {
			return key + ": " + why
		}
		if t == typeDocument || t == typeArray {
			if why := docWriteProblem(v, depth+1); why != "" {
				return why
			}
		}
		body = body[2+end+n:]
	}
	return ""
}

// targetProblem applies the rule to the target of $out or $merge's into:
// a collection's name, or a document {db, coll}.
func targetProblem(t byte, v []byte) string {
	switch t {
	case typeString:
		if len(v) < 5 {
			return ""
		}
		return nameProblem(string(v[4 : len(v)-1]))
	case typeDocument:
		if hasField(v, "db") {
			return namesDatabase
		}
		return fieldProblem(v, "coll")
	}
	return "" // the server refuses a target of another type
}

// mergeProblem applies the rule to $merge's argument: a collection's
// name, or a document whose into is the target (and which names no
// database of its own).
func mergeProblem(t byte, v []byte) string {
	if t != typeDocument {
		return targetProblem(t, v)
	}
	if hasField(v, "db") {
		return namesDatabase
	}
	return fieldProblem(v, "into")
}

// fieldProblem applies targetProblem to a document's field key.
func fieldProblem(doc []byte, key string) string {
	t, v := lookup(doc, key)
	if v == nil {
		return ""
	}
	return targetProblem(t, v)
}

func hasField(doc []byte, key string) bool {
	_, v := lookup(doc, key)
	return v != nil
}

// lookup finds a document's field (nil when absent or unreadable).
func lookup(doc []byte, key string) (byte, []byte) {
	if len(doc) < 5 {
		return 0, nil
	}
	body := doc[4 : len(doc)-1]
	for len(body) > 0 {
		t := body[0]
		end := bytes.IndexByte(body[1:], 0)
		if end < 0 {
			return 0, nil
		}
		k := body[1 : 1+end]
		v := body[2+end:]
		n := valueLen(t, v)
		if n < 0 {
			return 0, nil
		}
		if string(k) == key {
			return t, v[:n]
		}
		body = v[n:]
	}
	return 0, nil
}

// guarded is a pipeline made by generators: each one generated passes
// the rule before it is sent.
func (t *Template) guarded(dst []byte, start int, g *Gen) []byte {
	why := writeProblem(dst[start:])
	if why == "" {
		return dst
	}
	if g.refused == nil {
		g.refused = errors.New(t.path + ": as generated, " + why + ": the command is not sent")
	}
	// what stands in its place writes nothing, should a caller send it
	return append(dst[:start], 5, 0, 0, 0, 0)
}

// Refused returns why the command generated since the last call may not
// be sent (nil: it may), and forgets it. A pipeline whose generated
// stages would write outside the data database is refused; the caller
// sends nothing and counts the operation as an error.
func (g *Gen) Refused() error {
	err := g.refused
	g.refused = nil
	return err
}

// stageTargets checks, from the file's text, that a pipeline's stages
// write only into the data database: each stage is a mapping of one key
// (generators go in its values), and the target of $out and $merge is
// one the rule can judge before the run, judged.
func (p *parser) stageTargets(name string, arg *yaml.Node, path string) {
	switch name {
	case "$out":
		p.target(arg, path+".$out", false)
	case "$merge":
		p.target(arg, path+".$merge", true)
	}
}

// target checks the target of $out (or $merge's argument, when merge:
// a name, or a document whose into is the target) as written, or as the
// generators that make it can make it.
func (p *parser) target(n *yaml.Node, path string, merge bool) {
	if p.nodes++; p.nodes > maxNodes {
		return // the compile reports it
	}
	n = resolve(n)
	if isGenerator(n) {
		p.generatedTarget(n, path, merge)
		return
	}
	switch n.Kind {
	case yaml.ScalarNode:
		if why := nameProblem(n.Value); why != "" {
			p.errorf(n, path, "%s", why)
		}
	case yaml.MappingNode:
		for j := 0; j+1 < len(n.Content); j += 2 {
			k, v := n.Content[j], n.Content[j+1]
			switch {
			case merge && k.Value == "into":
				p.target(v, path+".into", false)
			case k.Value == "db":
				p.errorf(k, path, "%s", namesDatabase)
			case !merge && k.Value == "coll":
				p.target(v, path+".coll", false)
			}
		}
	}
}

func isGenerator(n *yaml.Node) bool {
	return strings.HasPrefix(n.Tag, "!") && !strings.HasPrefix(n.Tag, "!!")
}

// generatedTarget checks a target made by a generator: each value it can
// make, or a refusal when those cannot be known before the run.
func (p *parser) generatedTarget(n *yaml.Node, path string, merge bool) {
	tpath := path + ": " + n.Tag
	switch n.Tag {
	case "!ejson":
		t, raw, ok := ejsonValue(n.Value)
		if !ok {
			return // the compile reports it
		}
		why := targetProblem(t, raw)
		if merge {
			why = mergeProblem(t, raw)
		}
		if why != "" {
			p.errorf(n, tpath, "%s", why)
		}
	case "!choice":
		for i, alt := range choiceItems(n) {
			p.target(alt, tpath+"["+strconv.Itoa(i)+"]", merge)
		}
	case "!maybe":
		if v := fieldNode(n, "value"); v != nil {
			p.target(v, tpath+".value", merge)
		}
	case "!ref":
		if v := p.valueNode(n.Value); v != nil {
			p.target(v, tpath+" "+n.Value, merge)
		}
	case "!string", "!seq", "!fake", "!date", "!now", "!pad":
		// text names a collection of the data database; the rule judges
		// each name when it is generated, and here what text can show
		if why := textProblem(n); why != "" {
			p.errorf(n, tpath, "%s", why)
		}
	default:
		p.errorf(n, path, unknowable, n.Tag)
	}
}

// textProblem applies the rule to what a text generator's fixed part
// shows: a !seq's prefix, a !date's layout.
func textProblem(n *yaml.Node) string {
	switch n.Tag {
	case "!seq":
		if pr := fieldNode(n, "prefix"); pr != nil {
			return nameProblem(resolve(pr).Value + "0")
		}
	case "!date":
		if f := fieldNode(n, "format"); f != nil {
			layout := resolve(f).Value
			if l, ok := dateLayouts[layout]; ok {
				layout = l
			}
			return nameProblem(time.Date(2031, 7, 9, 13, 45, 56, 0, time.UTC).Format(layout))
		}
	}
	return ""
}

// choiceItems returns the values a !choice chooses from.
func choiceItems(n *yaml.Node) []*yaml.Node {
	if n.Kind == yaml.SequenceNode {
		return n.Content
	}
	if f := fieldNode(n, "from"); f != nil && resolve(f).Kind == yaml.SequenceNode {
		return resolve(f).Content
	}
	return nil
}

// valueNode returns the text of the operation's value name (nil when
// there is none).
func (p *parser) valueNode(name string) *yaml.Node {
	for i, v := range p.values {
		if v == name && i < len(p.valueNodes) {
			return p.valueNodes[i]
		}
	}
	return nil
}
