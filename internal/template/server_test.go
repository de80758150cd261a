package template_test

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/template"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// variant is one insert_docsize result, shaped per RESULTS-SCHEMA.md.
type variant struct {
	order, docSizeKB, docs, durationMS int
	cpuUser, cpuKernel, iowait         []any // nil: no such series
	bytesBefore, bytesAfter            any   // nil: no wiredTiger section
}

// Stored out of order: the templates sort by _id.order.
var docsizeVariants = []variant{
	{order: 3, docSizeKB: 32, docs: 10000, durationMS: 8000,
		cpuUser: []any{50.0, 70.0}, bytesBefore: 0, bytesAfter: 4096000},
	{order: 1, docSizeKB: 1, docs: 100000, durationMS: 20000,
		cpuUser: []any{10.0, 20.0}, cpuKernel: []any{5.0, 7.0}, iowait: []any{1.5, 2.25},
		bytesBefore: 1000000, bytesAfter: 21480000},
	{order: 2, docSizeKB: 4, docs: 50000, durationMS: 25000,
		cpuUser: []any{30.0, 40.0}, cpuKernel: []any{2.0, 4.0}, iowait: []any{0.1, 0.2, nil}},
}

func (v variant) doc() bson.D {
	var series bson.A
	for _, s := range []struct {
		name   string
		values []any
	}{{"SYSTEM_NORMALIZED_CPU_USER", v.cpuUser}, {"SYSTEM_NORMALIZED_CPU_KERNEL", v.cpuKernel}, {"SYSTEM_NORMALIZED_CPU_IOWAIT", v.iowait}} {
		if s.values != nil {
			series = append(series, measurement(s.name, s.values))
		}
	}
	return bson.D{
		{Key: "_id", Value: bson.D{{Key: "testname", Value: "insert_docsize"}, {Key: "order", Value: v.order}, {Key: "docSizeKB", Value: v.docSizeKB}}},
		{Key: "variant", Value: bson.D{{Key: "docSizeKB", Value: v.docSizeKB}}},
		{Key: "duration", Value: v.durationMS},
		{Key: "test_config", Value: bson.D{{Key: "docSizeKB", Value: v.docSizeKB}, {Key: "totalDocsToInsert", Value: v.docs}}},
		{Key: "metrics", Value: bson.D{{Key: "measurements", Value: series}}},
		{Key: "before_status", Value: status(v.bytesBefore)},
		{Key: "after_status", Value: status(v.bytesAfter)},
	}
}

func measurement(name string, values []any) bson.D {
	start := time.Date(2025, 1, 2, 3, 4, 0, 0, time.UTC)
	var points bson.A
	for i, v := range values {
		points = append(points, bson.D{{Key: "timestamp", Value: start.Add(time.Duration(i) * time.Second)}, {Key: "value", Value: v}})
	}
	return bson.D{{Key: "name", Value: name}, {Key: "units", Value: "PERCENT"}, {Key: "dataPoints", Value: points}}
}

// status is a serverStatus reply; like SecantusDB's, it lacks wiredTiger
// when bytesWritten is nil.
func status(bytesWritten any) bson.D {
	st := bson.D{{Key: "opcounters", Value: bson.D{{Key: "insert", Value: 0}}}}
	if bytesWritten == nil {
		return st
	}
	bm := bson.D{{Key: "block-manager", Value: bson.D{{Key: "bytes written", Value: bytesWritten}}}}
	return append(st, bson.E{Key: "wiredTiger", Value: bm})
}

// seeded returns a results store over a fresh database holding docs.
func seeded(t *testing.T, docs ...bson.D) (*store.TemplateReader, *mongo.Client, string) {
	t.Helper()
	c := testenv.Client(t, testenv.URI(t))
	db := testenv.DBName(t)
	ctx := context.Background()
	t.Cleanup(func() { _ = c.Database(db).Drop(context.Background()) })
	for _, d := range docs {
		if _, err := c.Database(db).Collection(store.ResultsCollection).InsertOne(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	r, err := store.NewMongo(c, db, "test").TemplateReader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	return r, c, db
}

func docsizeResults(t *testing.T) *store.TemplateReader {
	var docs []bson.D
	for _, v := range docsizeVariants {
		docs = append(docs, v.doc())
	}
	st, _, _ := seeded(t, docs...)
	return st
}

// render renders md and fails the test on error.
func render(t *testing.T, st template.Source, md string) string {
	t.Helper()
	out, err := template.Render(context.Background(), []byte(md), st, template.Options{Name: "t.md"})
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// tableOf returns the table rendered after the only block of out.
func tableOf(t *testing.T, out string) string {
	t.Helper()
	_, after, ok := strings.Cut(out, "-->\n\n")
	table, _, ok2 := strings.Cut(after, "\n<!-- /MONGO_TABLE -->")
	if !ok || !ok2 {
		t.Fatalf("no rendered table in\n%s", out)
	}
	return table
}

// The performance table as the reference writes it: $match, $sort on
// _id.order, $round with places, $divide/$multiply, $concat/$toString.
const performanceTemplate = `## Document size

<!-- MONGO_TABLE:
{
  "collection": "results",
  "pipeline": [
    {"$match": {"_id.testname": "insert_docsize"}},
    {"$sort": {"_id.order": 1}},
    {"$project": {
      "_id": 0,
      "docSize": {"$concat": [{"$toString": "$variant.docSizeKB"}, " KB"]},
      "DocsPerSecond": {"$round": [{"$divide": ["$test_config.totalDocsToInsert", {"$divide": ["$duration", 1000]}]}, 0]},
      "MB/s": {"$round": [{"$divide": [{"$multiply": ["$test_config.totalDocsToInsert", "$variant.docSizeKB"]}, {"$multiply": ["$duration", 1.024]}]}, 1]}
    }}
  ],
  "columns": ["docSize", "DocsPerSecond", "MB/s"],
  "headers": ["Document Size", "Speed (docs/s)", "Speed (MB/s)"]
}
-->
`

func TestPerformanceTable(t *testing.T) {
	st := docsizeResults(t)
	want := "| Document Size | Speed (docs/s) | Speed (MB/s) |\n" +
		"|---|---:|---:|\n" +
		"| 1 KB | 5000 | 4.9 |\n" +
		"| 4 KB | 2000 | 7.8 |\n" +
		"| 32 KB | 1250 | 39.1 |\n"
	out := render(t, st, performanceTemplate)
	if got := tableOf(t, out); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	if again := render(t, st, out); again != out {
		t.Errorf("rendering the output again: got\n%s\nwant it unchanged:\n%s", again, out)
	}
}

// The resource table in the portable form: each series picked with $first
// of a $filter on $$m.name; the CPU pairs of $zip read with $let, since a
// path through the pair (an array) is missing on SecantusDB; $zip inputs
// wrapped in $ifNull; a field name with a dash and a space; output names
// with spaces and a nested one read through a dotted column.
const resourceTemplate = `<!-- MONGO_TABLE:
{
  "collection": "results",
  "pipeline": [
    {"$match": {"_id.testname": "insert_docsize"}},
    {"$sort": {"_id.order": 1}},
    {"$set": {
      "cpuUser": {"$first": {"$filter": {"input": "$metrics.measurements", "as": "m", "cond": {"$eq": ["$$m.name", "SYSTEM_NORMALIZED_CPU_USER"]}}}},
      "cpuKernel": {"$first": {"$filter": {"input": "$metrics.measurements", "as": "m", "cond": {"$eq": ["$$m.name", "SYSTEM_NORMALIZED_CPU_KERNEL"]}}}},
      "iowait": {"$first": {"$filter": {"input": "$metrics.measurements", "as": "m", "cond": {"$eq": ["$$m.name", "SYSTEM_NORMALIZED_CPU_IOWAIT"]}}}}
    }},
    {"$project": {
      "_id": 0,
      "docSizeKB": "$variant.docSizeKB",
      "CPU %": {"$round": [{"$avg": {"$map": {
        "input": {"$zip": {"inputs": [{"$ifNull": ["$cpuUser.dataPoints", []]}, {"$ifNull": ["$cpuKernel.dataPoints", []]}]}},
        "as": "p",
        "in": {"$add": [
          {"$let": {"vars": {"u": {"$arrayElemAt": ["$$p", 0]}}, "in": "$$u.value"}},
          {"$let": {"vars": {"k": {"$arrayElemAt": ["$$p", 1]}}, "in": "$$k.value"}}
        ]}
      }}}, 1]},
      "iowait-%": {"$round": [{"$avg": {"$map": {"input": {"$ifNull": ["$iowait.dataPoints", []]}, "as": "d", "in": "$$d.value"}}}, 2]},
      "cache": {"writeKBps": {"$round": [{"$divide": [
        {"$subtract": ["$after_status.wiredTiger.block-manager.bytes written", "$before_status.wiredTiger.block-manager.bytes written"]},
        {"$multiply": ["$duration", 1.024]}]}, 0]}}
    }}
  ],
  "columns": ["docSizeKB", "CPU %", "iowait-%", "cache.writeKBps"],
  "headers": ["Size (KB)", "CPU %", "iowait %", "Cache write KB/s"]
}
-->
`

func TestResourceTable(t *testing.T) {
	st := docsizeResults(t)
	// 32 KB has no kernel or iowait series and 4 KB no wiredTiger section:
	// those cells are empty, never 0. The 4 KB iowait series has a null
	// sample, which $avg skips.
	want := "| Size (KB) | CPU % | iowait % | Cache write KB/s |\n" +
		"|---:|---:|---:|---:|\n" +
		"| 1 | 21 | 1.88 | 1000 |\n" +
		"| 4 | 38 | 0.15 |  |\n" +
		"| 32 |  |  | 500 |\n"
	if got := tableOf(t, render(t, st, resourceTemplate)); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// A field name with a space reads the same through a plain path and
// through $getField.
func TestSpacedFieldPathAndGetField(t *testing.T) {
	st := docsizeResults(t)
	md := `<!-- MONGO_TABLE: {"collection": "results", "pipeline": [
  {"$match": {"_id.testname": "insert_docsize", "_id.order": 1}},
  {"$project": {"_id": 0,
    "path": "$after_status.wiredTiger.block-manager.bytes written",
    "getField": {"$getField": {"field": "bytes written", "input": "$after_status.wiredTiger.block-manager"}}}}],
  "columns": ["path", "getField"]} -->
`
	want := "| path | getField |\n|---:|---:|\n| 21480000 | 21480000 |\n"
	if got := tableOf(t, render(t, st, md)); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
}

// The forms DESIGN.md warns about, pinned: on SecantusDB a field path
// through an array of documents is missing and $zip of a missing input
// fails; real MongoDB answers both. Templates use the portable forms above.
func TestNonPortableForms(t *testing.T) {
	st := docsizeResults(t)
	ctx := context.Background()
	secantus := isSecantus(t, testenv.Client(t, testenv.URI(t)))
	rows, err := st.Aggregate(ctx, "results", []byte(`[
  {"$match": {"_id.order": 1}},
  {"$project": {"_id": 0,
    "names": "$metrics.measurements.name",
    "pairValues": {"$map": {"input": {"$zip": {"inputs": [[{"v": 1}], [{"v": 2}]]}}, "as": "p", "in": "$$p.v"}},
    "portable": {"$map": {"input": "$metrics.measurements", "as": "m", "in": "$$m.name"}}}}]`))
	if err != nil {
		t.Fatal(err)
	}
	names := []any{"SYSTEM_NORMALIZED_CPU_USER", "SYSTEM_NORMALIZED_CPU_KERNEL", "SYSTEM_NORMALIZED_CPU_IOWAIT"}
	row := rows[0]
	if !equal(row["portable"], names) {
		t.Errorf("portable $map over $$m.name: got %v, want %v", row["portable"], names)
	}
	_, hasNames := row["names"]
	pair, _ := row["pairValues"].([]any)
	if secantus {
		if hasNames || len(pair) != 1 || pair[0] != nil {
			t.Errorf("SecantusDB: got names %v, pair values %v; want names missing and [null] (paths do not traverse arrays)", row["names"], row["pairValues"])
		}
	} else if !equal(row["names"], names) || !equal(pair, []any{[]any{int64(1), int64(2)}}) {
		t.Errorf("MongoDB: got names %v, pair values %v; want the names and [[1 2]]", row["names"], row["pairValues"])
	}

	_, err = st.Aggregate(ctx, "results", []byte(`[{"$project": {"z": {"$zip": {"inputs": ["$nosuch", [1]]}}}}]`))
	if secantus && err == nil {
		t.Errorf("SecantusDB: $zip of a missing input: got no error, want one (wrap inputs in $ifNull)")
	}
	if !secantus && err != nil {
		t.Errorf("MongoDB: $zip of a missing input: got %v, want null", err)
	}
}

func equal(a, b any) bool { return reflect.DeepEqual(a, b) }

// isSecantus asks the server c talks to whether it is SecantusDB: its
// serverStatus has a "secantus" section, which mongod's never has.
func isSecantus(t *testing.T, c *mongo.Client) bool {
	t.Helper()
	var status bson.M
	if err := c.Database("admin").RunCommand(context.Background(), bson.D{{Key: "serverStatus", Value: 1}}).Decode(&status); err != nil {
		t.Fatalf("serverStatus: %v", err)
	}
	_, ok := status["secantus"]
	return ok
}

func TestMissingColumnNamesTheLine(t *testing.T) {
	st := docsizeResults(t)
	md := "# T\n\n" + strings.Replace(performanceTemplate, `"columns": ["docSize"`, `"columns": ["docSizeKB"`, 1)
	_, err := template.Render(context.Background(), []byte(md), st, template.Options{Name: "t.md", Strict: true})
	want := `t.md:5: MONGO_TABLE: no output document has column "docSizeKB"`
	if err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("Strict: got %v, want an error starting %q", err, want)
	}
	out, err := template.Render(context.Background(), []byte(md), st, template.Options{Name: "t.md"})
	if err != nil || !strings.Contains(string(out), `> **Empty column:** no output document has "docSizeKB" (`) {
		t.Errorf("without Strict: got %v and\n%s\nwant the table with a note naming the empty column", err, out)
	}
	md = "# T\n\n" + `<!-- MONGO_TABLE: {"collection": "results", "pipeline": [{"$bogusStage": {}}], "columns": ["x"]} -->` + "\n"
	_, err = template.Render(context.Background(), []byte(md), st, template.Options{Name: "t.md"})
	if err == nil || !strings.HasPrefix(err.Error(), "t.md:3: MONGO_TABLE: aggregate on collection results: ") {
		t.Errorf("pipeline error: got %v, want it to name line 3 and the collection", err)
	}
}
