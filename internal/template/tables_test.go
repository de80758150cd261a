package template

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// stub returns fixed rows per collection: it tests formatting, not
// pipelines (those are tested against the server in server_test.go).
type stub map[string][]map[string]any

func (s stub) Aggregate(_ context.Context, coll string, _ []byte) ([]map[string]any, error) {
	rows, ok := s[coll]
	if !ok {
		return nil, errors.New("unknown operator $bogus")
	}
	return rows, nil
}

const twoBlocks = `# Report

<!-- MONGO_TABLE:
{"collection": "a", "pipeline": [{"$sort": {"_id.order": 1}}], "columns": ["size", "rate"], "headers": ["Size (KB)", "Speed (docs/s)"]}
-->

Text between.

<!-- MONGO_TABLE: {"collection": "b", "pipeline": [], "columns": ["name"]} -->
End.
`

func TestParse(t *testing.T) {
	blocks, err := Parse([]byte(twoBlocks))
	if err != nil {
		t.Fatal(err)
	}
	if len(blocks) != 2 {
		t.Fatalf("got %d blocks, want 2", len(blocks))
	}
	a, b := blocks[0], blocks[1]
	if a.Line != 3 || a.Collection != "a" || string(a.Pipeline) != `[{"$sort": {"_id.order": 1}}]` || strings.Join(a.Headers, ",") != "Size (KB),Speed (docs/s)" {
		t.Errorf("first block: got %+v", a)
	}
	if b.Line != 9 || strings.Join(b.Headers, ",") != "name" {
		t.Errorf("second block: got line %d headers %v, want line 9 and the column names", b.Line, b.Headers)
	}
}

func TestParseErrorsNameTheLine(t *testing.T) {
	cases := map[string]string{
		"bad JSON":        "{\"collection\": \"a\",\n \"pipeline\": [}",
		"no collection":   `{"pipeline": [], "columns": ["x"]}`,
		"no pipeline":     `{"collection": "a", "columns": ["x"]}`,
		"object pipeline": `{"collection": "a", "pipeline": {}, "columns": ["x"]}`,
		"no columns":      `{"collection": "a", "pipeline": []}`,
		"short headers":   `{"collection": "a", "pipeline": [], "columns": ["x", "y"], "headers": ["X"]}`,
	}
	want := map[string]string{
		"bad JSON":        "t.md:3: MONGO_TABLE: bad JSON (line 5): invalid character",
		"no collection":   `t.md:3: MONGO_TABLE: "collection" is missing`,
		"no pipeline":     `t.md:3: MONGO_TABLE: "pipeline" is missing`,
		"object pipeline": `t.md:3: MONGO_TABLE: "pipeline" must be an array`,
		"no columns":      `t.md:3: MONGO_TABLE: "columns" is missing`,
		"short headers":   `t.md:3: MONGO_TABLE: "headers" has 1 titles for 2 columns`,
	}
	for name, body := range cases {
		md := "# T\n\n<!-- MONGO_TABLE:\n" + body + "\n-->\n"
		_, err := Render(context.Background(), []byte(md), stub{}, Options{Name: "t.md"})
		if err == nil || !strings.HasPrefix(err.Error(), want[name]) {
			t.Errorf("%s: got error %v, want one starting %q", name, err, want[name])
		}
	}
}

func TestUnclosedBlock(t *testing.T) {
	_, err := Parse([]byte("a\n<!-- MONGO_TABLE: {\n"))
	if err == nil || !strings.Contains(err.Error(), "template:2: MONGO_TABLE: block is not closed") {
		t.Errorf("got %v, want an error naming line 2", err)
	}
}

func TestBlocksInFencedCodeAreLeftAlone(t *testing.T) {
	md := "```\n<!-- MONGO_TABLE: {not json} -->\n```\n"
	out, err := Render(context.Background(), []byte(md), stub{}, Options{})
	if err != nil || string(out) != md {
		t.Errorf("got %q, %v; want the document unchanged", out, err)
	}
}

var stubRows = stub{
	"a": {
		{"size": int64(1), "rate": 5000.0},
		{"size": int64(4), "rate": nil},
		{"size": int64(32)},
	},
	"b": {{"name": "x|y"}},
}

const twoBlocksRendered = `# Report

<!-- MONGO_TABLE:
{"collection": "a", "pipeline": [{"$sort": {"_id.order": 1}}], "columns": ["size", "rate"], "headers": ["Size (KB)", "Speed (docs/s)"]}
-->

| Size (KB) | Speed (docs/s) |
|---:|---:|
| 1 | 5000 |
| 4 |  |
| 32 |  |

<!-- /MONGO_TABLE -->

Text between.

<!-- MONGO_TABLE: {"collection": "b", "pipeline": [], "columns": ["name"]} -->

| name |
|---|
| x\|y |

<!-- /MONGO_TABLE -->
End.
`

func TestRenderIsIdempotent(t *testing.T) {
	out, err := Render(context.Background(), []byte(twoBlocks), stubRows, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != twoBlocksRendered {
		t.Fatalf("got\n%s\nwant\n%s", out, twoBlocksRendered)
	}
	again, err := Render(context.Background(), out, stubRows, Options{})
	if err != nil || string(again) != string(out) {
		t.Errorf("rendering the output again: got\n%s\n(%v), want it unchanged", again, err)
	}
}

func TestKeepGoing(t *testing.T) {
	md := strings.Replace(twoBlocks, `"collection": "a"`, `"collection": "broken"`, 1)
	md = strings.Replace(md, `"columns": ["name"]`, `"columns": ["nme"]`, 1)
	_, err := Render(context.Background(), []byte(md), stubRows, Options{Name: "r.md", Strict: true})
	if err == nil || err.Error() != "r.md:3: MONGO_TABLE: unknown operator $bogus" {
		t.Errorf("without KeepGoing: got %v, want the first block's error", err)
	}
	out, err := Render(context.Background(), []byte(md), stubRows, Options{Name: "r.md", KeepGoing: true, Strict: true})
	wantErr := "r.md:3: MONGO_TABLE: unknown operator $bogus\n" +
		`r.md:9: MONGO_TABLE: no output document has column "nme" (the pipeline's output fields are "name")`
	if err == nil || err.Error() != wantErr {
		t.Errorf("KeepGoing error: got\n%v\nwant\n%s", err, wantErr)
	}
	for _, line := range strings.Split(wantErr, "\n") {
		if !strings.Contains(string(out), "\n> **Table not rendered:** "+line+"\n\n<!-- /MONGO_TABLE -->\n") {
			t.Errorf("KeepGoing output: got\n%s\nwant a note %q in place of the table", out, line)
		}
	}
	fixed, err := Render(context.Background(), []byte(strings.NewReplacer("broken", "a", "nme", "name").Replace(string(out))), stubRows, Options{})
	if err != nil || string(fixed) != twoBlocksRendered {
		t.Errorf("re-rendering after a fix: got\n%s\n(%v), want the notes replaced by tables", fixed, err)
	}
}

func TestTableColumns(t *testing.T) {
	rows := []map[string]any{
		{"Speed - docs/s": int64(12), "cache": map[string]any{"KB/s": 1.5}, "label": "ObjectId", "a.b": "top"},
		{"Speed - docs/s": 3.25, "label": nil, "a": map[string]any{"b": "nested"}},
	}
	got := Table([]string{"Speed - docs/s", "cache.KB/s", "label", "a.b"}, []string{"Speed", "Cache", "Label", "A"}, rows)
	want := "| Speed | Cache | Label | A |\n|---:|---:|---|---|\n| 12 | 1.5 | ObjectId | top |\n| 3.25 |  |  | nested |\n"
	if got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	got = Table([]string{"x"}, []string{"X"}, nil)
	if got != "| X |\n|---|\n" {
		t.Errorf("no rows: got %q; want the header alone", got)
	}
}

// A column that no output document has is a column of empty cells, named
// under the table; the document renders without an error. Strict makes
// it the error a template author wants while writing the template.
func TestEmptyColumn(t *testing.T) {
	md := "<!-- MONGO_TABLE: {\"collection\": \"a\", \"pipeline\": [], \"columns\": [\"size\", \"iops\", \"instance.atlasIOPS\"], \"headers\": [\"Size\", \"IOPS\", \"instance.atlasIOPS\"]} -->\n"
	out, err := Render(context.Background(), []byte(md), stubRows, Options{Name: "r.md"})
	want := md + "\n| Size | IOPS | instance.atlasIOPS |\n|---:|---|---|\n| 1 |  |  |\n| 4 |  |  |\n| 32 |  |  |\n" +
		"\n> **Empty columns:** no output document has \"iops\" (IOPS), \"instance.atlasIOPS\"; the pipeline's output fields are \"rate\", \"size\".\n" +
		"\n<!-- /MONGO_TABLE -->\n"
	if err != nil || string(out) != want {
		t.Errorf("got\n%s\n(%v)\nwant\n%s", out, err, want)
	}
	again, err := Render(context.Background(), out, stubRows, Options{Name: "r.md"})
	if err != nil || string(again) != want {
		t.Errorf("rendering the output again: got\n%s\n(%v), want it unchanged", again, err)
	}
	_, err = Render(context.Background(), []byte(md), stubRows, Options{Name: "r.md", Strict: true})
	wantErr := `r.md:1: MONGO_TABLE: no output document has column "iops", "instance.atlasIOPS" (the pipeline's output fields are "rate", "size")`
	if err == nil || err.Error() != wantErr {
		t.Errorf("Strict: got %v, want %s", err, wantErr)
	}
}

func TestFormatValue(t *testing.T) {
	cases := []struct {
		in   any
		want string
	}{
		{nil, ""},
		{int64(1234567890123), "1234567890123"},
		{int32(-7), "-7"},
		{5000.0, "5000"},
		{4.8828125, "4.88281"},
		{0.15000000000000002, "0.15"},
		{1234567.89, "1234568"},
		{0.000123456789, "0.000123457"},
		{-2.5, "-2.5"},
		{1e-9, "1e-09"},
		{3e22, "3e+22"},
		{-0.0000001, "-1e-07"},
		{true, "true"},
		{"text", "text"},
		{[]any{int64(1), "a"}, `[1,"a"]`},
	}
	for _, c := range cases {
		if got := FormatValue(c.in); got != c.want {
			t.Errorf("FormatValue(%#v) = %q, want %q", c.in, got, c.want)
		}
	}
}
