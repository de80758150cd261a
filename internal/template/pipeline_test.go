package template

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestCheckPipelineRefusesWritesAndJavaScript(t *testing.T) {
	for _, c := range []struct{ pipeline, want string }{
		{`[{"$out": "history"}]`, "pipeline stage 1 ($out): $out writes a collection"},
		{`[{"$match": {}}, {"$out": "results"}]`, "pipeline stage 2 ($out): $out writes a collection"},
		{`[{"$merge": {"into": "results", "whenMatched": "replace"}}]`, "pipeline stage 1 ($merge): $merge writes a collection"},
		{`[{"$out": {"db": "mongobench_data", "coll": "stolen"}}]`, "pipeline stage 1 ($out): $out writes"},
		{`[{"$match": {"$where": "sleep(1000)"}}]`, "pipeline stage 1 ($match): $where at $match.$where runs server-side JavaScript"},
		{`[{"$match": {"$expr": {"$function": {"body": "f", "args": [], "lang": "js"}}}}]`, "stage 1 ($match): $function at $match.$expr.$function"},
		{`[{"$project": {"x": {"$function": {"body": "f", "args": [], "lang": "js"}}}}]`, "stage 1 ($project): $function at $project.x.$function"},
		{`[{"$group": {"_id": 1, "x": {"$accumulator": {}}}}]`, "$accumulator at $group.x.$accumulator runs server-side JavaScript"},
		{`[{"$lookup": {"from": "results", "pipeline": [{"$merge": "results"}], "as": "x"}}]`, "stage 1 ($lookup): $merge at $lookup.pipeline[0].$merge"},
		{`[{"$facet": {"a": [{"$match": {}}, {"$out": "x"}]}}]`, "stage 1 ($facet): $out at $facet.a[1].$out"},
		{`[{"$unionWith": {"coll": "history", "pipeline": [{"$out": "history"}]}}]`, "$out at $unionWith.pipeline[0].$out"},
		{`[{"\u0024out": "history"}]`, "$out writes a collection"},     // as the server reads it
		{`[{"$match": {}, "$out": "history"}]`, "$out at $out writes"}, // a second key of a stage
		{`[{"$project": {"f": {"$code": "function() {}"}}}]`, "$code at $project.f.$code is server-side JavaScript"},
		{`[{"$out\u0000x": "history"}]`, "holds a NUL byte"},
		{`[{"$match": ` + strings.Repeat(`{"a": `, 300) + `1` + strings.Repeat(`}`, 300) + `}]`, "nests deeper than 200 levels"},
		{`[{"$match": }]`, "is not valid JSON"},
		{`{"$out": "x"}`, "must be an array of stages"},
		{`[] [{"$out": "x"}]`, "text after its array"},
	} {
		err := CheckPipeline([]byte(c.pipeline))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%.80s: got %v, want an error containing %q", c.pipeline, err, c.want)
		}
	}
}

func TestCheckPipelineAcceptsReads(t *testing.T) {
	for _, p := range []string{
		`[]`,
		`[{"$match": {"_id.testname": "insert_docsize", "out": "$out"}}, {"$sort": {"_id.order": 1}}]`,
		`[{"$set": {"x": {"$first": {"$filter": {"input": "$a", "cond": {"$eq": ["$$this.k", "$merge"]}}}}}}]`,
		`[{"$lookup": {"from": "history", "pipeline": [{"$match": {}}], "as": "h"}}, {"$unionWith": "history"}]`,
		`[{"$match": {"at": {"$gte": {"$date": "2025-01-01T00:00:00Z"}}, "n": {"$numberLong": "1"}}}]`,
	} {
		if err := CheckPipeline([]byte(p)); err != nil {
			t.Errorf("%s: got %v, want it accepted", p, err)
		}
	}
}

// A block whose pipeline writes is refused when the template is parsed,
// before any pipeline runs, naming the block's line and the stage.
func TestParseRefusesWritingBlock(t *testing.T) {
	md := "# R\n\n<!-- MONGO_TABLE: {\"collection\": \"results\", \"pipeline\": [{\"$match\": {}}], \"columns\": [\"x\"]} -->\n\n" +
		"<!-- MONGO_TABLE:\n{\"collection\": \"results\",\n \"pipeline\": [{\"$out\": \"history\"}], \"columns\": [\"x\"]} -->\n"
	blocks, err := Parse([]byte(md))
	var te *Error
	if len(blocks) != 1 || !errors.As(err, &te) || te.Line != 5 {
		t.Fatalf("got %d blocks and %v, want the reading block and an error at line 5", len(blocks), err)
	}
	want := "template:5: MONGO_TABLE: pipeline stage 1 ($out): $out writes a collection; a template only reads"
	if err.Error() != want {
		t.Errorf("got %q, want %q", err, want)
	}
	if err := Check([]byte(md), Options{Name: "t.md", KeepGoing: true}); err != nil {
		t.Errorf("keep going: got %v, want Render to note the block in place", err)
	}
	called := false
	src := sourceFunc(func(string, []byte) { called = true })
	out, err := Render(t.Context(), []byte(md), src, Options{KeepGoing: true})
	if !errors.As(err, &te) || !strings.Contains(string(out), "**Table not rendered:** template:5: MONGO_TABLE: pipeline stage 1 ($out)") {
		t.Errorf("render: got %v and\n%s\nwant the refusal noted in place", err, out)
	}
	if !called {
		t.Errorf("the reading block did not run")
	}
}

// FuzzTemplatePipeline checks that CheckPipeline never panics and never
// accepts a pipeline in which a refused operator is a key at any depth,
// as encoding/json decodes it.
func FuzzTemplatePipeline(f *testing.F) {
	for _, s := range []string{
		`[]`, `[{"$out": "history"}]`, `[{"$match": {"$expr": {"$function": {}}}}]`,
		`[{"$lookup": {"from": "a", "pipeline": [{"$merge": "b"}], "as": "x"}}]`,
		`[{"$facet": {"a": [{"$unionWith": {"coll": "h", "pipeline": [{"$out": "x"}]}}]}}]`,
		`[{"\u0024out": 1}]`, `[{"$match": {"a": 1, "a": {"$where": "1"}}}]`,
		`[{"$project": {"x": {"$code": "f"}}}]`, `[{"$sort": {"_id.order": 1}}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, pipeline []byte) {
		if CheckPipeline(pipeline) != nil {
			return
		}
		if !json.Valid(pipeline) {
			t.Fatalf("accepted invalid JSON %q", pipeline)
		}
		if op := refusedKey(json.NewDecoder(strings.NewReader(string(pipeline)))); op != "" {
			t.Fatalf("accepted %q, which holds %s", pipeline, op)
		}
	})
}

// refusedKey returns a refused operator that is a key anywhere in the
// JSON dec reads, by a plain token scan: a key is a string token read
// where an object expects a key.
func refusedKey(dec *json.Decoder) string {
	var stack []json.Delim
	expectKey := false
	for {
		tok, err := dec.Token()
		if err != nil {
			return ""
		}
		switch v := tok.(type) {
		case json.Delim:
			if v == '{' || v == '[' {
				stack = append(stack, v)
				expectKey = v == '{'
				continue
			}
			stack = stack[:len(stack)-1]
		case string:
			if expectKey {
				if _, bad := refused[v]; bad {
					return v
				}
				expectKey = false
				continue
			}
		}
		expectKey = len(stack) > 0 && stack[len(stack)-1] == '{'
	}
}

type sourceFunc func(coll string, pipeline []byte)

func (f sourceFunc) Aggregate(_ context.Context, coll string, pipeline []byte) ([]map[string]any, error) {
	f(coll, pipeline)
	return []map[string]any{{"x": int64(1)}}, nil
}
