package template

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// Markers of a block and of the end of its rendered table.
const (
	startMarker = "<!-- MONGO_TABLE:"
	endMarker   = "<!-- /MONGO_TABLE -->"
)

// A Block is one MONGO_TABLE block of a template.
type Block struct {
	Line       int             // 1-based line of "<!-- MONGO_TABLE:"
	Collection string          // collection the pipeline runs on
	Pipeline   json.RawMessage // the pipeline, a JSON array, as written
	Columns    []string        // output fields, in table order
	Headers    []string        // column titles, one per column
}

// span is where a block sits in the template: the block itself is
// md[start:end]; a table rendered earlier runs from end to old.
type span struct {
	block Block
	err   error
	start int
	end   int
	old   int
}

// Parse finds every MONGO_TABLE block of a template. It returns the blocks
// that parse and, joined, an error for each that does not, naming its line.
func Parse(md []byte) ([]Block, error) {
	var blocks []Block
	var errs []error
	for _, s := range scan(md) {
		if s.err != nil {
			errs = append(errs, s.err)
			continue
		}
		blocks = append(blocks, s.block)
	}
	return blocks, errors.Join(errs...)
}

// scan walks the template line by line, outside fenced code, and returns
// the blocks it finds in order.
func scan(md []byte) []span {
	var spans []span
	var fence []byte
	line := 1
	for pos := 0; pos < len(md); {
		next := lineEnd(md, pos)
		text := bytes.TrimSpace(md[pos:next])
		switch {
		case fence != nil:
			if bytes.HasPrefix(text, fence) {
				fence = nil
			}
		case bytes.HasPrefix(text, []byte("```")), bytes.HasPrefix(text, []byte("~~~")):
			fence = text[:3]
		case bytes.HasPrefix(text, []byte(startMarker)):
			s := blockAt(md, pos, line)
			spans = append(spans, s)
			line += bytes.Count(md[pos:s.old], []byte("\n"))
			pos = s.old
			continue
		}
		line++
		pos = next
	}
	return spans
}

// lineEnd returns the offset just past the newline of the line at pos.
func lineEnd(md []byte, pos int) int {
	if i := bytes.IndexByte(md[pos:], '\n'); i >= 0 {
		return pos + i + 1
	}
	return len(md)
}

// blockAt reads the block whose line starts at pos.
func blockAt(md []byte, pos, line int) span {
	s := span{start: pos, end: len(md), old: len(md)}
	open := pos + bytes.Index(md[pos:], []byte(startMarker))
	body := open + len(startMarker)
	closeAt := bytes.Index(md[body:], []byte("-->"))
	if closeAt < 0 {
		s.err = &Error{Line: line, Err: errors.New("block is not closed by -->")}
		return s
	}
	s.end = lineEnd(md, body+closeAt)
	s.old = previousTable(md, s.end)
	s.block, s.err = parseBlock(md[body:body+closeAt], line)
	s.block.Line = line
	return s
}

// previousTable returns where a table rendered after the block at end
// stops: past the end marker that comes before the next block, or end
// itself when there is none.
func previousTable(md []byte, end int) int {
	rest := md[end:]
	stop := bytes.Index(rest, []byte(endMarker))
	if stop < 0 {
		return end
	}
	if next := bytes.Index(rest, []byte(startMarker)); next >= 0 && next < stop {
		return end
	}
	return lineEnd(md, end+stop)
}

// spec is a block's JSON.
type spec struct {
	Collection *string         `json:"collection"`
	Pipeline   json.RawMessage `json:"pipeline"`
	Columns    []string        `json:"columns"`
	Headers    []string        `json:"headers"`
}

// parseBlock decodes and checks a block's JSON.
func parseBlock(body []byte, line int) (Block, error) {
	var sp spec
	if err := json.Unmarshal(body, &sp); err != nil {
		return Block{}, &Error{Line: line, Err: fmt.Errorf("bad JSON (line %d): %w", line+jsonErrorLine(body, err), err)}
	}
	b, err := sp.block()
	if err != nil {
		return Block{}, &Error{Line: line, Err: err}
	}
	return b, nil
}

// jsonErrorLine returns how many lines into body a syntax error is.
func jsonErrorLine(body []byte, err error) int {
	var se *json.SyntaxError
	if !errors.As(err, &se) || se.Offset > int64(len(body)) {
		return 0
	}
	return bytes.Count(body[:se.Offset], []byte("\n"))
}

// block checks the required fields and fills in default headers.
func (sp spec) block() (Block, error) {
	switch {
	case sp.Collection == nil || *sp.Collection == "":
		return Block{}, errors.New(`"collection" is missing`)
	case len(sp.Pipeline) == 0 || string(sp.Pipeline) == "null":
		return Block{}, errors.New(`"pipeline" is missing`)
	case bytes.TrimSpace(sp.Pipeline)[0] != '[':
		return Block{}, errors.New(`"pipeline" must be an array of stages`)
	case len(sp.Columns) == 0:
		return Block{}, errors.New(`"columns" is missing`)
	case sp.Headers != nil && len(sp.Headers) != len(sp.Columns):
		return Block{}, fmt.Errorf(`"headers" has %d titles for %d columns`, len(sp.Headers), len(sp.Columns))
	}
	if err := CheckPipeline(sp.Pipeline); err != nil {
		return Block{}, err
	}
	headers := sp.Headers
	if headers == nil {
		headers = sp.Columns
	}
	return Block{Collection: *sp.Collection, Pipeline: sp.Pipeline, Columns: sp.Columns, Headers: headers}, nil
}

// Error is a problem with one block.
type Error struct {
	Name string // the template's name, as given in Options
	Line int    // 1-based line of the block
	Err  error
}

func (e *Error) Error() string {
	name := e.Name
	if name == "" {
		name = "template"
	}
	return fmt.Sprintf("%s:%d: MONGO_TABLE: %v", name, e.Line, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }
