package store

import (
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/template"
)

// refusedOps are the operators template.CheckPipeline refuses.
var refusedOps = map[string]bool{"$out": true, "$merge": true, "$where": true, "$function": true, "$accumulator": true}

// FuzzPipelineAsParsed checks the template check against the driver's own
// Extended JSON parser: a pipeline text that template.CheckPipeline
// accepts never parses (as TemplateReader sends it) into a pipeline with
// a refused operator, or a JavaScript value, at any depth; and
// checkParsed, the check on the parsed pipeline, accepts it too.
func FuzzPipelineAsParsed(f *testing.F) {
	for _, s := range []string{
		`[]`, `[{"$out": "history"}]`, `[{"$match": {"$expr": {"$function": {}}}}]`,
		`[{"$lookup": {"from": "a", "pipeline": [{"$merge": "b"}], "as": "x"}}]`,
		`[{"\u0024out": 1}]`, `[{"$match": {"a": 1, "a": {"$where": "1"}}}]`,
		`[{"$project": {"x": {"$code": "f"}}}]`, `[{"$match": {"at": {"$date": "2025-01-01T00:00:00Z"}}}]`,
		`[{"$project": {"x": {"$literal": {"$numberLong": "1"}}}}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		if template.CheckPipeline(text) != nil {
			return
		}
		pipeline, err := parsePipeline(text)
		if err != nil {
			return
		}
		if op := refusedIn(pipeline); op != "" {
			t.Fatalf("the check accepted %q, which the driver parses with %s", text, op)
		}
		if err := checkParsed(pipeline); err != nil {
			t.Fatalf("the check accepted %q as text but not as parsed: %v", text, err)
		}
	})
}

// refusedIn returns a refused operator or a JavaScript value found
// anywhere in v, or "".
func refusedIn(v any) string {
	switch x := v.(type) {
	case bson.D:
		for _, e := range x {
			if refusedOps[e.Key] {
				return e.Key
			}
			if op := refusedIn(e.Value); op != "" {
				return op
			}
		}
	case bson.A:
		for _, e := range x {
			if op := refusedIn(e); op != "" {
				return op
			}
		}
	case bson.JavaScript, bson.CodeWithScope:
		return "a JavaScript value"
	}
	return ""
}
