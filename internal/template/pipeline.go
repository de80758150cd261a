package template

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// refused names the operators a template's pipeline may not use, at any
// depth, and why: a template only reads. Extended JSON's code values
// ($code, $codeWithScope) are refused with them: JavaScript is all they
// carry.
var refused = map[string]string{
	"$out":           "writes a collection",
	"$merge":         "writes a collection",
	"$where":         "runs server-side JavaScript",
	"$function":      "runs server-side JavaScript",
	"$accumulator":   "runs server-side JavaScript",
	"$code":          "is server-side JavaScript",
	"$codeWithScope": "is server-side JavaScript",
}

// maxPipelineDepth bounds how deeply a pipeline nests documents and
// arrays; MongoDB refuses documents nested more than 100 levels deep, so
// a real pipeline stays far below.
const maxPipelineDepth = 200

// CheckPipeline refuses a pipeline (a JSON array of stages, in Extended
// JSON) that writes or runs server-side JavaScript: $out and $merge, and
// $where, $function and $accumulator, wherever they appear (a $lookup's,
// $facet's or $unionWith's sub-pipeline, an expression inside $project or
// $expr). Every key of every document is looked at, duplicates included,
// as the server would read them after JSON unescaping. The error names
// the stage (its 1-based position and name) and where in it the operator
// sits.
func CheckPipeline(pipeline []byte) error {
	dec := json.NewDecoder(bytes.NewReader(pipeline))
	dec.UseNumber()
	w := walker{dec: dec}
	if err := w.walk(); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New(`"pipeline" has text after its array`)
	}
	return nil
}

// walker reads a pipeline's tokens and keeps the path to the current one.
type walker struct {
	dec   *json.Decoder
	path  []string // keys and [i] indexes from the pipeline down
	stage int      // 1-based index of the current stage; 0 outside
	name  string   // the current stage's first key
}

// walk reads the pipeline array and every value in it.
func (w *walker) walk() error {
	tok, err := w.dec.Token()
	if err != nil {
		return fmt.Errorf(`"pipeline" is not valid JSON: %w`, err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '[' {
		return errors.New(`"pipeline" must be an array of stages`)
	}
	for i := 1; w.dec.More(); i++ {
		w.stage, w.name = i, ""
		if err := w.value(1); err != nil {
			return err
		}
	}
	if _, err := w.dec.Token(); err != nil {
		return fmt.Errorf(`"pipeline" is not valid JSON: %w`, err)
	}
	return nil
}

// value reads one value (and all it holds) at the given depth.
func (w *walker) value(depth int) error {
	if depth > maxPipelineDepth {
		return w.fail(fmt.Sprintf("nests deeper than %d levels", maxPipelineDepth))
	}
	tok, err := w.dec.Token()
	if err != nil {
		return w.fail(fmt.Sprintf("is not valid JSON: %v", err))
	}
	d, ok := tok.(json.Delim)
	if !ok {
		return nil
	}
	switch d {
	case '{':
		for w.dec.More() {
			tok, err := w.dec.Token()
			if err != nil {
				return w.fail(fmt.Sprintf("is not valid JSON: %v", err))
			}
			key, _ := tok.(string)
			if depth == 1 && w.name == "" {
				w.name = key
			}
			if err := w.key(key); err != nil {
				return err
			}
			w.path = append(w.path, key)
			err = w.value(depth + 1)
			w.path = w.path[:len(w.path)-1]
			if err != nil {
				return err
			}
		}
	case '[':
		for i := 0; w.dec.More(); i++ {
			w.path = append(w.path, "["+strconv.Itoa(i)+"]")
			err := w.value(depth + 1)
			w.path = w.path[:len(w.path)-1]
			if err != nil {
				return err
			}
		}
	}
	if _, err := w.dec.Token(); err != nil { // the closing delimiter
		return w.fail(fmt.Sprintf("is not valid JSON: %v", err))
	}
	return nil
}

// key refuses an operator a template may not use, and a key no BSON
// document can hold.
func (w *walker) key(key string) error {
	if why, bad := refused[key]; bad {
		where := ""
		if len(w.path) > 0 || key != w.name {
			where = " at " + w.at(key)
		}
		return w.fail(fmt.Sprintf("%s%s %s; a template only reads", key, where, why))
	}
	if strings.IndexByte(key, 0) >= 0 {
		return w.fail(fmt.Sprintf("key %q holds a NUL byte, which no BSON key can", key))
	}
	return nil
}

// at is the path of key inside the current stage.
func (w *walker) at(key string) string {
	var b strings.Builder
	for _, p := range append(w.path, key) {
		if b.Len() > 0 && !strings.HasPrefix(p, "[") {
			b.WriteByte('.')
		}
		b.WriteString(p)
	}
	return b.String()
}

// fail says what is wrong with the current stage.
func (w *walker) fail(what string) error {
	if w.stage == 0 {
		return fmt.Errorf(`"pipeline" %s`, what)
	}
	name := ""
	if w.name != "" {
		name = " (" + w.name + ")"
	}
	return fmt.Errorf("pipeline stage %d%s: %s", w.stage, name, what)
}
