package workloadfile

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/mongobench/mongobench/internal/spec"
)

// Error is one problem of a workload file, where it is: the file, the
// line and column of the value (or key) at fault, and the path of keys
// that leads there.
//
//	orders.yaml:12:14: operations.byCustomer.filter.customer: !int: min 10 is above max 5
type Error struct {
	File      string
	Line, Col int
	Path      string
	Problem   string
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		b.WriteString(":" + strconv.Itoa(e.Line))
	}
	if e.Line > 0 && e.Col > 0 {
		b.WriteString(":" + strconv.Itoa(e.Col))
	}
	b.WriteString(": ")
	if e.Path != "" {
		b.WriteString(e.Path + ": ")
	}
	b.WriteString(e.Problem)
	return b.String()
}

// maxProblems bounds how many problems one error lists.
const maxProblems = 30

// join sorts problems by position and joins them.
func join(errs []*Error) error {
	if len(errs) == 0 {
		return nil
	}
	slices.SortStableFunc(errs, func(a, b *Error) int {
		return cmp.Or(cmp.Compare(a.Line, b.Line), cmp.Compare(a.Col, b.Col))
	})
	all := make([]error, 0, min(len(errs), maxProblems)+1)
	for _, e := range errs[:min(len(errs), maxProblems)] {
		all = append(all, e)
	}
	if more := len(errs) - maxProblems; more > 0 {
		all = append(all, &Error{File: errs[0].File, Problem: fmt.Sprintf("and %d more problems", more)})
	}
	return errors.Join(all...)
}

// errorf records a problem at n.
func (p *parser) errorf(n *yaml.Node, path, format string, args ...any) {
	e := &Error{File: p.file, Path: path, Problem: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line, e.Col = n.Line, n.Column
	}
	p.errs = append(p.errs, e)
}

// unknown records an unknown key, with the nearest valid one.
func (p *parser) unknown(k *yaml.Node, path, what string, valid []string) {
	hint := ""
	if m := spec.Nearest(k.Value, valid); m != "" && spec.Closest(k.Value, valid, 4) != "" {
		hint = fmt.Sprintf("did you mean %q? ", m)
	}
	p.errorf(k, path, "unknown %s %q (%svalid: %s)", what, k.Value, hint, strings.Join(valid, ", "))
}

func join2(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// kindOf names a node's YAML kind for messages.
func kindOf(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.ScalarNode:
		if n.Tag == "!!null" {
			return "empty"
		}
		return strconv.Quote(n.Value)
	}
	return "a " + n.ShortTag()
}
