package cli_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// tablesTemplate reads rows of one test, named per test so that tests
// sharing the server's results collection do not see each other's rows.
const tablesTemplate = `# Report

<!-- MONGO_TABLE:
{"collection": "results",
 "pipeline": [{"$match": {"_id.testname": "%[1]s"}}, {"$sort": {"_id.order": 1}},
   {"$project": {"_id": 0, "docSizeKB": "$variant.docSizeKB",
     "DocsPerSecond": {"$round": [{"$divide": ["$test_config.totalDocsToInsert", {"$divide": ["$duration", 1000]}]}, 0]}}}],
 "columns": ["docSizeKB", "DocsPerSecond"],
 "headers": ["Document Size (KB)", "Speed (docs/s)"]}
-->

<!-- MONGO_TABLE: {"collection": "results", "pipeline": [{"$match": {"_id.testname": "%[1]s"}}, {"$sort": {"_id.order": -1}}], "columns": [%[2]q]} -->
`

const tablesRendered = `# Report

<!-- MONGO_TABLE:
{"collection": "results",
 "pipeline": [{"$match": {"_id.testname": "%[1]s"}}, {"$sort": {"_id.order": 1}},
   {"$project": {"_id": 0, "docSizeKB": "$variant.docSizeKB",
     "DocsPerSecond": {"$round": [{"$divide": ["$test_config.totalDocsToInsert", {"$divide": ["$duration", 1000]}]}, 0]}}}],
 "columns": ["docSizeKB", "DocsPerSecond"],
 "headers": ["Document Size (KB)", "Speed (docs/s)"]}
-->

| Document Size (KB) | Speed (docs/s) |
|---:|---:|
| 1 | 5000 |
| 4 |  |

<!-- /MONGO_TABLE -->

<!-- MONGO_TABLE: {"collection": "results", "pipeline": [{"$match": {"_id.testname": "%[1]s"}}, {"$sort": {"_id.order": -1}}], "columns": [%[2]q]} -->

| %[2]s |
|---:|
|  |
| 20000 |

<!-- /MONGO_TABLE -->
`

// seedResults stores two insert_docsize-shaped rows under a test name of
// their own in the results database the command reads, and removes them
// when the test ends. The first stored has a null duration: its cells
// are empty.
func seedResults(t *testing.T, uri string) string {
	t.Helper()
	name := fmt.Sprintf("tables_test_%d", time.Now().UnixNano())
	coll := testenv.Client(t, uri).Database(store.DefaultDatabase).Collection(store.ResultsCollection)
	ctx := context.Background()
	rows := []bson.D{
		{{Key: "_id", Value: bson.D{{Key: "testname", Value: name}, {Key: "order", Value: 2}}},
			{Key: "variant", Value: bson.D{{Key: "docSizeKB", Value: 4}}}, {Key: "duration", Value: nil},
			{Key: "test_config", Value: bson.D{{Key: "totalDocsToInsert", Value: 50000}}}},
		{{Key: "_id", Value: bson.D{{Key: "testname", Value: name}, {Key: "order", Value: 1}}},
			{Key: "variant", Value: bson.D{{Key: "docSizeKB", Value: 1}}}, {Key: "duration", Value: 20000},
			{Key: "test_config", Value: bson.D{{Key: "totalDocsToInsert", Value: 100000}}}},
	}
	for _, r := range rows {
		if _, err := coll.InsertOne(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() { _, _ = coll.DeleteMany(context.Background(), bson.D{{Key: "_id.testname", Value: name}}) })
	return name
}

func writeTemplate(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "template.md")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestTablesRendersAndRerenders(t *testing.T) {
	uri := testenv.URI(t)
	name := seedResults(t, uri)
	tpl := writeTemplate(t, fmt.Sprintf(tablesTemplate, name, "duration"))
	want := fmt.Sprintf(tablesRendered, name, "duration")

	o := mb(t, "tables", tpl, "--results", uri)
	wantCode(t, o, cli.ExitOK)
	if o.stdout != want {
		t.Fatalf("stdout: got\n%s\nwant\n%s", o.stdout, want)
	}
	out := filepath.Join(t.TempDir(), "out", "report.md")
	o = mb(t, "tables", tpl, "-o", out, "--results", uri)
	wantCode(t, o, cli.ExitOK)
	o = mb(t, "tables", out, "-o", out, "--results", uri)
	wantCode(t, o, cli.ExitOK)
	if got, _ := os.ReadFile(out); string(got) != want {
		t.Errorf("rendered in place a second time: got\n%s\nwant it unchanged:\n%s", got, want)
	}
}

// A column no output document has is a column of empty cells with a note
// by default, and the error a template author asks for with --strict.
func TestTablesEmptyColumn(t *testing.T) {
	uri := testenv.URI(t)
	name := seedResults(t, uri)
	tpl := writeTemplate(t, fmt.Sprintf(tablesTemplate, name, "no such column"))

	o := mb(t, "tables", tpl, "--results", uri)
	wantCode(t, o, cli.ExitOK)
	if !strings.Contains(o.stdout, "| 1 | 5000 |") || !strings.Contains(o.stdout, "| no such column |\n|---|\n|  |\n|  |\n") ||
		!strings.Contains(o.stdout, `> **Empty column:** no output document has "no such column";`) {
		t.Errorf("got\n%s\nwant both tables, the second empty with a note naming its column", o.stdout)
	}

	wantMsg := tpl + `:12: MONGO_TABLE: no output document has column "no such column"`
	o = mb(t, "tables", tpl, "--results", uri, "--strict")
	wantCode(t, o, cli.ExitFailure)
	if msg := errorLine(t, o, false); !strings.Contains(msg, wantMsg) {
		t.Errorf("--strict: got %q, want it to contain %q", msg, wantMsg)
	}
	if o.stdout != "" {
		t.Errorf("--strict: stdout: got %q, want nothing when rendering stops", o.stdout)
	}

	o = mb(t, "tables", tpl, "--results", uri, "--strict", "--keep-going")
	wantCode(t, o, cli.ExitFailure)
	if !strings.Contains(o.stdout, "| 1 | 5000 |") || !strings.Contains(o.stdout, "> **Table not rendered:** "+wantMsg) {
		t.Errorf("--strict --keep-going: got\n%s\nwant the good table and a note naming line 12", o.stdout)
	}
}

// A block the server cannot run costs only its own table: the rest is
// rendered and written, the failed block is noted in place, and the
// command exits 1 naming it.
func TestTablesBrokenBlock(t *testing.T) {
	uri := testenv.URI(t)
	name := seedResults(t, uri)
	tpl := writeTemplate(t, fmt.Sprintf(tablesTemplate, name, "duration")+
		"\n<!-- MONGO_TABLE: {\"collection\": \"results\", \"pipeline\": [{\"$bogusStage\": {}}], \"columns\": [\"x\"]} -->\n")
	out := filepath.Join(t.TempDir(), "report.md")

	o := mb(t, "tables", tpl, "--results", uri, "-o", out)
	wantCode(t, o, cli.ExitFailure)
	wantMsg := tpl + ":14: MONGO_TABLE: aggregate on collection results"
	if msg := errorLine(t, o, false); !strings.Contains(msg, wantMsg) {
		t.Errorf("got %q, want it to contain %q", msg, wantMsg)
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatalf("the document was not written: %v", err)
	}
	if !strings.Contains(string(got), "| 1 | 5000 |") || !strings.Contains(string(got), "| 20000 |") ||
		!strings.Contains(string(got), "> **Table not rendered:** "+wantMsg) {
		t.Errorf("got\n%s\nwant both good tables and a note naming line 14", got)
	}

	o = mb(t, "tables", tpl, "--results", uri, "-o", out+".strict", "--strict")
	wantCode(t, o, cli.ExitFailure)
	if _, err := os.Stat(out + ".strict"); err == nil {
		t.Errorf("--strict: the document was written, want nothing when rendering stops")
	}
}

func TestTablesBadInput(t *testing.T) {
	o := mb(t, "tables", filepath.Join(t.TempDir(), "missing.md"), "--results", unreachable)
	wantCode(t, o, cli.ExitUsage)
	wantQuick(t, o, usageFast)
	if msg := errorLine(t, o, false); !strings.Contains(msg, "missing.md") {
		t.Errorf("missing template: got %q, want it named", msg)
	}

	tpl := writeTemplate(t, "x\n<!-- MONGO_TABLE: {\"collection\": \"results\", -->\n")
	o = mb(t, "tables", tpl, "--results", unreachable)
	wantCode(t, o, cli.ExitFailure)
	wantQuick(t, o, usageFast)
	if msg := errorLine(t, o, false); !strings.Contains(msg, tpl+":2: MONGO_TABLE: bad JSON") {
		t.Errorf("bad JSON: got %q, want it to name line 2 before connecting", msg)
	}

	o = mb(t, "tables", tpl, "--results-file", filepath.Join(t.TempDir(), "r.jsonl"))
	wantCode(t, o, cli.ExitUsage)
	if msg := errorLine(t, o, false); !strings.Contains(msg, "--results-file cannot run aggregation pipelines") {
		t.Errorf("--results-file: got %q, want it refused", msg)
	}
}
