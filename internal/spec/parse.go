package spec

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mongobench/mongobench/internal/bounded"
	"github.com/mongobench/mongobench/internal/threshold"
)

// scenarioFile describes a scenario file in messages about its shape.
var scenarioFile = fileKind{want: `a mapping of settings such as "workload: kv"`, one: "one scenario per file"}

// fileKind says, in messages about a file's shape, what its document
// should be and how many a file holds.
type fileKind struct{ want, one string }

// ParseFile reads a scenario file; see ParseWhere.
func ParseFile(path string, reg Registry) (*Scenario, Where, error) {
	data, err := bounded.ReadFile(path, bounded.ScenarioFile)
	if err != nil {
		return nil, Where{}, fmt.Errorf("read scenario: %w", err)
	}
	return ParseWhere(path, data, reg)
}

// Parse reads a scenario from YAML, fills in defaults and validates it
// against the registry; see ParseWhere, whose Where it leaves out.
func Parse(filename string, data []byte, reg Registry) (*Scenario, error) {
	s, _, err := ParseWhere(filename, data, reg)
	return s, err
}

// ParseWhere reads a scenario file's YAML into the scenario (defaults
// filled in, validated against the registry) and its Where. The error, if
// any, joins every problem found; each starts with "filename:line: ". An
// empty filename reads as "<input>".
func ParseWhere(filename string, data []byte, reg Registry) (*Scenario, Where, error) {
	if filename == "" {
		filename = "<input>"
	}
	p := &parser{file: filename, kind: scenarioFile}
	root := p.document(data)
	if root == nil {
		return nil, Where{}, joinErrors(p.errs)
	}
	s := &Scenario{src: &origin{file: filename, top: root.Line}}
	var w Where
	p.scenario(s, &w, root, reg)
	if IsWorkloadFile(s.Workload) && !filepath.IsAbs(s.Workload) {
		s.Workload = filepath.Join(filepath.Dir(filename), s.Workload) // beside the scenario file
	}
	s.applyDefaults(reg)
	p.errs = append(p.errs, s.problems(reg)...)
	p.errs = append(p.errs, w.problems(s.origin())...)
	if len(p.errs) > 0 {
		return nil, Where{}, joinErrors(p.errs)
	}
	return s, w, nil
}

// parser walks the YAML node tree of one file, collecting problems.
type parser struct {
	file string
	kind fileKind
	errs []*Error
	// where receives a scenario's Where keys (uri, hostMetrics, …).
	where *Where
	// stageLines are a plan's stages' lines, in order.
	stageLines []int
}

// add records a problem at a line of the file.
func (p *parser) add(line int, e *Error) {
	e.File, e.Line = p.file, line
	p.errs = append(p.errs, e)
}

// document decodes the file's only document and returns its top-level
// mapping, or nil after recording why there is none.
func (p *parser) document(data []byte) *yaml.Node {
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			p.add(1, &Error{Problem: "the file is empty", Want: p.kind.want})
		} else {
			p.syntax(err, data)
		}
		return nil
	}
	if !p.onlyDocument(dec, data) {
		return nil
	}
	if len(doc.Content) == 0 {
		p.add(1, &Error{Problem: "the file is empty", Want: p.kind.want})
		return nil
	}
	root := resolve(doc.Content[0])
	if root.Kind != yaml.MappingNode {
		what := "the document is " + kindName(root)
		if isNull(root) {
			what = "the document is empty"
		}
		p.add(root.Line, &Error{Problem: what, Want: p.kind.want})
		return nil
	}
	return root
}

// onlyDocument reports whether the rest of the stream holds no other
// document with content.
func (p *parser) onlyDocument(dec *yaml.Decoder, data []byte) bool {
	for {
		var doc yaml.Node
		err := dec.Decode(&doc)
		switch {
		case errors.Is(err, io.EOF):
			return true
		case err != nil:
			p.syntax(err, data)
			return false
		case len(doc.Content) > 0 && !isNull(doc.Content[0]):
			p.add(doc.Content[0].Line, &Error{Problem: "a second document is not valid", Want: p.kind.one})
			return false
		}
	}
}

// entry is one key and value of a mapping.
type entry struct {
	name     string
	key, val *yaml.Node
}

// entries returns the entries of a mapping, recording non-scalar,
// duplicate and unknown keys. Keys are checked against valid unless it is
// nil; what names them in messages ("key", "kv parameter").
func (p *parser) entries(m *yaml.Node, field, what string, valid []string) []entry {
	var out []entry
	seen := map[string]int{}
	for i := 0; i+1 < len(m.Content); i += 2 {
		key, val := m.Content[i], m.Content[i+1]
		k := resolve(key)
		switch first, dup := seen[k.Value]; {
		case k.Kind != yaml.ScalarNode:
			p.add(key.Line, &Error{Field: field, Problem: kindName(k) + " is not valid as a key", Want: "a name"})
		case dup:
			p.add(key.Line, &Error{Field: field, Problem: fmt.Sprintf("duplicate key %q (first at line %d)", clip(k.Value), first)})
		case valid != nil && !slices.Contains(valid, k.Value):
			seen[k.Value] = key.Line
			p.add(key.Line, &Error{Field: field, Problem: unknownKey(what, k.Value, valid)})
		default:
			seen[k.Value] = key.Line
			out = append(out, entry{k.Value, key, val})
		}
	}
	return out
}

// scenario sets the scenario's fields, and w's, from the top-level
// mapping.
func (p *parser) scenario(s *Scenario, w *Where, root *yaml.Node, reg Registry) {
	p.where = w
	var params *entry
	for _, e := range p.entries(root, "", "key", keysUnder("")) {
		switch e.name {
		case "tags":
			p.tags(s, e.val)
		case "stages", "hostMetrics", "hostDevice":
			p.joinedList(s, e.name, e.val)
		case "thresholds":
			p.thresholds(s, e.val)
		case "params":
			params = &e
		case "results":
			p.results(s, e.val)
		default:
			p.scalarField(s, e.name, e.val)
		}
	}
	if params != nil { // after the workload, wherever it is in the file
		p.params(s, params.val, reg)
	}
}

// given marks a key path as set in the file at a line.
func given(s *Scenario, path string, line int) *keyState {
	k := s.origin().key(path)
	k.given, k.line = true, line
	return k
}

func (p *parser) scalarField(s *Scenario, path string, val *yaml.Node) {
	k := given(s, path, val.Line)
	text, ok := p.scalar(path, val)
	if !ok {
		k.bad = true
		return
	}
	if whereKey(path) {
		p.where.setText(path, text)
		return
	}
	if err := s.setText(path, text); err != nil {
		k.bad = true
		e := asError(err)
		e.Field, e.Value, e.Want = path, text, want(path)
		p.add(val.Line, e)
	}
}

// scalar returns the text of a scalar node (empty for null), or records
// that the node is not a scalar.
func (p *parser) scalar(path string, val *yaml.Node) (string, bool) {
	n := resolve(val)
	if n.Kind != yaml.ScalarNode {
		p.add(val.Line, &Error{Field: path, Problem: kindName(n) + " is not valid", Want: want(path)})
		return "", false
	}
	if isNull(n) {
		return "", true
	}
	return n.Value, true
}

// joinedList reads a setting given as one comma-separated text or as a
// list of items (stages: DURATION:TARGET; hostMetrics: URL or
// MEMBER=URL; hostDevice: DEVICE or MEMBER=DEVICE).
func (p *parser) joinedList(s *Scenario, key string, val *yaml.Node) {
	n := resolve(val)
	if n.Kind != yaml.SequenceNode {
		p.scalarField(s, key, val)
		return
	}
	var parts []string
	for _, item := range n.Content {
		text, ok := p.scalar(key, item)
		if !ok {
			given(s, key, val.Line).bad = true
			return
		}
		parts = append(parts, text)
	}
	joined := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: strings.Join(parts, ","), Line: val.Line, Column: val.Column}
	p.scalarField(s, key, joined)
}

func (p *parser) tags(s *Scenario, val *yaml.Node) {
	p.scalarList(s, "tags", val, func(item *yaml.Node, text string) bool {
		if text == "" {
			p.add(item.Line, &Error{Field: "tags", Value: text, Want: want("tags")})
			return false
		}
		s.Tags = append(s.Tags, text)
		return true
	})
}

// thresholds reads a list of threshold expressions, each parsed where it
// stands.
func (p *parser) thresholds(s *Scenario, val *yaml.Node) {
	p.scalarList(s, "thresholds", val, func(item *yaml.Node, text string) bool {
		t, err := threshold.Parse(text)
		if err != nil {
			p.add(item.Line, &Error{Field: "thresholds", Problem: err.Error(), Err: err})
			return false
		}
		s.Thresholds = append(s.Thresholds, t)
		return true
	})
}

// scalarList reads the list of scalars under key (null is an empty list),
// handing each item's text to each. A value that is not a list, an item
// that is not a scalar, or one each refuses (having recorded why) marks
// the key bad.
func (p *parser) scalarList(s *Scenario, key string, val *yaml.Node, each func(item *yaml.Node, text string) bool) {
	k := given(s, key, val.Line)
	n := resolve(val)
	if isNull(n) {
		return
	}
	if n.Kind != yaml.SequenceNode {
		k.bad = true
		p.add(val.Line, &Error{Field: key, Problem: kindName(n) + " is not valid", Want: want(key)})
		return
	}
	for _, item := range n.Content {
		if text, ok := p.scalar(key, item); !ok || !each(item, text) {
			k.bad = true
		}
	}
}

// mapping returns a mapping node, or nil for null or after recording that
// the node is something else.
func (p *parser) mapping(path string, val *yaml.Node) *yaml.Node {
	n := resolve(val)
	if n.Kind == yaml.MappingNode {
		return n
	}
	if !isNull(n) {
		p.add(val.Line, &Error{Field: path, Problem: kindName(n) + " is not valid", Want: want(path)})
	}
	return nil
}

func (p *parser) results(s *Scenario, val *yaml.Node) {
	m := p.mapping("results", val)
	if m == nil {
		return
	}
	for _, e := range p.entries(m, "results", "key", keysUnder("results")) {
		p.scalarField(s, "results."+e.name, e.val)
	}
}

// params reads workload parameters. Without a known workload it only checks
// the mapping's shape; Validate reports the workload.
func (p *parser) params(s *Scenario, val *yaml.Node, reg Registry) {
	m := p.mapping("params", val)
	if m == nil {
		return
	}
	specs, known := paramSpecs(reg, s.Workload)
	var valid []string
	if known {
		valid = paramNames(specs)
	}
	s.Params = Params{}
	for _, e := range p.entries(m, "params", s.Workload+" parameter", valid) {
		if known {
			p.param(s, specs, e)
		}
	}
}

func (p *parser) param(s *Scenario, specs []ParamSpec, e entry) {
	path := "params." + e.name
	k := given(s, path, e.val.Line)
	spec, _ := findParam(specs, e.name)
	text, ok := p.scalar(path, e.val)
	if !ok {
		k.bad = true
		return
	}
	v, bad := spec.parse(text)
	if bad != nil {
		k.bad = true
		bad.Field = path
		p.add(e.val.Line, bad)
		return
	}
	s.Params[e.name] = v
}

// resolve follows aliases to the node they name.
func resolve(n *yaml.Node) *yaml.Node {
	for i := 0; i < 8 && n.Kind == yaml.AliasNode && n.Alias != nil; i++ {
		n = n.Alias
	}
	return n
}

func isNull(n *yaml.Node) bool {
	return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null"
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		return "a value"
	case yaml.AliasNode:
		return "an alias"
	}
	return "a document"
}
