package cli_test

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/testsupport/golden"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// TestStoredDocumentShape pins the shape of the result documents that run,
// sweep, sla and catalog run store, as read back from the results
// database with the driver: every field's path and BSON type, and the
// value of every field that the seed and flags determine. Measured
// numbers, times, ids, hosts and versions are reduced to their type. The
// goldens under testdata/docshape are rewritten with -update; a change to
// them is a change to the public contract of RESULTS-SCHEMA.md. They were
// made against the embedded SecantusDB server, whose serverStatus reply
// is stored as before_status and after_status.
func TestStoredDocumentShape(t *testing.T) {
	uri := testenv.URI(t)
	c := connect(t, uri)
	cases := []struct {
		name string
		docs int // stored runs
		args []string
	}{
		{"run", 1, []string{"run", "--workload", "kv", "--ops", "300", "--threads", "2", "--seed", "7",
			"-p", "records=200", "--no-report", "--threshold", "p99(read) < 1h", "--threshold", "errors < 1000000"}},
		{"sweep", 2, []string{"sweep", "--workload", "kv", "-p", "records=200", "--rate", "200,400",
			"--duration", "1s", "--warmup", "0s", "--threads", "4"}},
		{"sla", 2, []string{"sla", "--rate", "50", "--repeat", "1", "--duration", "1s", "--warmup", "0s",
			"--p99", "1s", "-p", "accounts=200", "--threads", "4"}},
		{"catalog", 5, []string{"catalog", "run", "insert_docsize", "--scale", "0.0001"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			db := testenv.DBName(t)
			dropAfter(t, c, db)
			args := append(slices.Clone(tc.args), "--uri", uri, "--database", db, "--results", uri,
				"--label", "docshape")
			if tc.name == "sweep" || tc.name == "sla" {
				args = append(args, "--report-dir", filepath.Join(t.TempDir(), "reports"))
			}
			o := mb(t, args...)
			if tc.name == "sweep" || tc.name == "sla" {
				wantEnded(t, o) // whether a step or run held is the machine's; the shape is the same
			} else {
				wantCode(t, o, cli.ExitOK)
			}
			shape := storedShape(t, c, db, tc.docs)
			name := filepath.Join("docshape", tc.name+".golden")
			logLineDiff(t, filepath.Join("testdata", name), shape)
			golden.Check(t, name, []byte(shape))
		})
	}
}

// storedShape reads back the runs stored against data database db (from
// the history, and their rows of the results collection), deletes them,
// and returns the shape of each, in the order they ran.
func storedShape(t *testing.T, c *mongo.Client, db string, want int) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	rdb := c.Database(store.DefaultDatabase)
	hist, res := rdb.Collection(store.HistoryCollection), rdb.Collection(store.ResultsCollection)
	history := readAll(ctx, t, hist, bson.D{{Key: "target.database", Value: db}},
		options.Find().SetSort(bson.D{{Key: "start", Value: 1}}))
	var ids []string
	for _, h := range history {
		ids = append(ids, h.Lookup("runId").StringValue())
	}
	byRun := bson.D{{Key: "runId", Value: bson.D{{Key: "$in", Value: ids}}}}
	rows := readAll(ctx, t, res, byRun, nil)
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		for _, coll := range []*mongo.Collection{hist, res} {
			if _, err := coll.DeleteMany(ctx, byRun); err != nil {
				t.Errorf("delete the test's runs from %s: %v", coll.Name(), err)
			}
		}
	})
	if len(history) == 0 || (want > 0 && len(history) != want) {
		t.Fatalf("stored runs in %s.%s: got %d, want %d", store.DefaultDatabase, store.HistoryCollection, len(history), want)
	}
	row := map[string]bson.Raw{}
	for _, r := range rows {
		row[r.Lookup("runId").StringValue()] = r
	}
	var b strings.Builder
	b.WriteString("# Shape of stored result documents; rewrite with: go test ./internal/cli -run TestStoredDocumentShape -update\n")
	fmt.Fprintf(&b, "stored runs: %d\n", len(history))
	for i, h := range history {
		id := h.Lookup("runId").StringValue()
		r, ok := row[id]
		if !ok {
			t.Fatalf("run %s is in the history but has no row in the results collection", id)
		}
		rowShape, histShape := docShape(r, db), docShape(h, db)
		fmt.Fprintf(&b, "\n## run %d: results row\n", i+1)
		b.WriteString(strings.Join(rowShape, "\n") + "\n")
		fmt.Fprintf(&b, "\n## run %d: history document, where it differs from the results row\n", i+1)
		for _, l := range histShape {
			if !slices.Contains(rowShape, l) {
				b.WriteString("+ " + l + "\n")
			}
		}
		for _, l := range rowShape {
			if !slices.Contains(histShape, l) {
				b.WriteString("- " + l + "\n")
			}
		}
	}
	return b.String()
}

// logLineDiff logs the lines that only the golden file or only got has,
// per run section, which golden.Check's clipped report may not show.
func logLineDiff(t *testing.T, path, got string) {
	t.Helper()
	want, err := os.ReadFile(path)
	if err != nil || string(want) == got {
		return
	}
	count := func(s string) map[string]int {
		m, section := map[string]int{}, ""
		for _, l := range strings.Split(s, "\n") {
			if strings.HasPrefix(l, "## ") {
				section = l
			}
			m[section+" | "+l]++
		}
		return m
	}
	g, w := count(got), count(string(want))
	var diff []string
	for l, n := range g {
		if w[l] < n {
			diff = append(diff, "+ "+l)
		}
	}
	for l, n := range w {
		if g[l] < n {
			diff = append(diff, "- "+l)
		}
	}
	slices.Sort(diff)
	t.Logf("%s: lines only in got (+) or only in the golden file (-):\n%s", path, strings.Join(diff, "\n"))
}

func readAll(ctx context.Context, t *testing.T, coll *mongo.Collection, filter bson.D, opts *options.FindOptionsBuilder) []bson.Raw {
	t.Helper()
	if opts == nil {
		opts = options.Find()
	}
	cur, err := coll.Find(ctx, filter, opts)
	if err != nil {
		t.Fatalf("read %s: %v", coll.Name(), err)
	}
	var docs []bson.Raw
	if err := cur.All(ctx, &docs); err != nil {
		t.Fatalf("read %s: %v", coll.Name(), err)
	}
	return docs
}

// docShape describes a stored document as sorted lines "path: type", or
// "path: type = value" where the seed and flags determine the value.
// Array elements share the path "name[]": their fields are the union over
// the elements, and a kept value is listed once per distinct value. The
// data database's name, unique per test, reads <db>.
func docShape(doc bson.Raw, db string) []string {
	seen := map[string]bool{}
	walkShape(seen, "", bson.RawValue{Type: bson.TypeEmbeddedDocument, Value: doc}, db)
	// MongoDB compares embedded documents key by key: a re-run replaces
	// its results row only if it writes the same _id in the same order.
	for _, id := range []string{"_id", "testId"} {
		if d, ok := doc.Lookup(id).DocumentOK(); ok {
			elems, _ := d.Elements()
			keys := make([]string, len(elems))
			for i, e := range elems {
				keys[i] = e.Key()
			}
			seen[id+" key order: "+strings.Join(keys, ", ")] = true
		}
	}
	lines := make([]string, 0, len(seen))
	for l := range seen {
		lines = append(lines, l)
	}
	slices.Sort(lines)
	return lines
}

func walkShape(seen map[string]bool, path string, v bson.RawValue, db string) {
	switch v.Type {
	case bson.TypeEmbeddedDocument:
		if path != "" {
			seen[path+": object"] = true
		}
		elems, _ := v.Document().Elements()
		for _, e := range elems {
			p := join(path, e.Key())
			if want, ok := optional[p]; ok {
				if kind := optionalKind(e.Value()); !optionalOK(kind, want) {
					seen[p+": "+kind+", want optional "+want] = true
				}
				continue
			}
			walkShape(seen, p, e.Value(), db)
		}
		for p, want := range optional {
			if p[:strings.LastIndex(p, ".")+1] == join(path, "") {
				seen[p+": optional "+want] = true
			}
		}
		return
	case bson.TypeArray:
		seen[path+": array"] = true
		vals, _ := v.Array().Values()
		for _, e := range vals {
			walkShape(seen, path+"[]", e, db)
		}
		return
	}
	typ := typeName(path, v)
	if keepValue(path) {
		s := v.String()
		if v.Type == bson.TypeString {
			s = fmt.Sprintf("%q", strings.ReplaceAll(v.StringValue(), db, "<db>"))
		}
		seen[path+": "+typ+" = "+s] = true
		return
	}
	seen[path+": "+typ] = true
}

// optionalOK reports whether an optional field of kind has the kind
// wanted: one of the alternatives of want, or an empty object where want
// is an object.
func optionalOK(kind, want string) bool {
	return slices.Contains(strings.Split(want, "|"), kind) ||
		kind == "object" && strings.HasPrefix(want, "object of ")
}

// optionalKind names an optional field's kind: "array" for an array of
// any elements.
func optionalKind(v bson.RawValue) string {
	switch v.Type {
	case bson.TypeArray:
		return "array"
	case bson.TypeNull:
		return "null"
	case bson.TypeEmbeddedDocument:
		elems, _ := v.Document().Elements()
		kinds := map[string]bool{}
		for _, e := range elems {
			kinds[e.Value().Type.String()] = true
		}
		if len(kinds) == 0 {
			return "object"
		}
		return "object of " + strings.Join(slices.Sorted(maps.Keys(kinds)), "|")
	}
	return v.Type.String()
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// typeName is the BSON type of v, except where the server or timing
// decide it: a measured series' sample may be null where it is missing,
// and a serverStatus counter's integer width is the server's choice.
func typeName(path string, v bson.RawValue) string {
	number := v.Type == bson.TypeDouble || v.Type == bson.TypeInt32 || v.Type == bson.TypeInt64
	switch {
	case strings.HasSuffix(path, ".dataPoints[].value") && (number || v.Type == bson.TypeNull):
		return "number|null"
	case (strings.HasPrefix(path, "before_status.") || strings.HasPrefix(path, "after_status.")) && number:
		return "number"
	}
	return v.Type.String()
}

// Fields whose value the seed and flags determine, besides those under
// the prefixes in keptUnder.
var kept = map[string]bool{
	"schemaVersion": true, "testName": true, "label": true, "tags[]": true, "repetition": true,
	"partial": true, "partialReason": true,
	"schedule.mode": true, "schedule.pacer": true, "schedule.workers": true, "schedule.targetRate": true,
	"schedule.lateThresholdMs": true, "schedule.dropBoundMs": true,
	"ops[].name":                  true,
	"metrics.measurements[].name": true, "metrics.measurements[].units": true,
	"metrics.diskMetrics[].name": true, "metrics.diskMetrics[].units": true,
	"target.kind": true, "target.topology": true, "target.serverMonitoringMode": true,
	"target.database": true,
}

// Prefixes under which values are kept: the test's identity and
// configuration. Within them, the leaves in volatile are reduced to type.
var keptUnder = []string{"_id.", "testId.", "variant.", "test_config."}

var volatile = map[string]bool{"sweep": true}

// Fields whose presence, or whether they are null, depends on the
// measurement: a client-bound run, a step or run that failed its
// criteria, a transaction retried, an interval without a serverStatus
// or host sample near each end, the resources that limited a run; or on
// the test machine: a data directory without a block device (overlay) has
// no disk series, device or rotational flag, some CPUs no model name, and
// the server's cache size is known only for a server mongobench started.
// Each reads "path: optional KIND" whether it is
// there or not; one that is there with another kind reads "path: KIND,
// want optional KIND". "object of T" is a document whose every value has
// BSON type T.
var optional = map[string]string{
	"client.clientBoundReasons": "array",
	"client.serverBoundReasons": "array",
	"client.boundNotJudged":     "string",
	"testResults.sweep.reasons": "array|null",
	"testResults.sla.reasons":   "array|null",
	"testResults.retryCauses":   "object of 64-bit integer",
	"intervals[].server":        "object of double",
	"intervals[].host":          "object of double",
	"metrics.diskMetrics":       "array",
	"bench_config.device":       "string",
	"bench_config.rotational":   "boolean",
	"bench_config.cpuModel":     "string",
	"bench_config.cacheSizeMB":  "64-bit integer",
	// A replica set member's series (its state at each sample) is there
	// when a replSetGetStatus sample fell within the run: a run about as
	// short as the sampling interval may have none.
	"metrics.members": "array",
	// The client's precision is noted when its send lag passed the bound
	// but stayed under the floor, or the run was server-bound: how the
	// machine kept the schedule.
	"schedule.precision.note": "string",
	// What limited a run depends on the machine: which rules saturate,
	// could judge, or had a figure (internal/diagnosis pins their shape).
	"diagnosis.rule":       "string",
	"diagnosis.candidates": "array",
	"diagnosis.notJudged":  "array",
}

func keepValue(path string) bool {
	if k, ok := kept[path]; ok {
		return k
	}
	for _, p := range keptUnder {
		if strings.HasPrefix(path, p) {
			leaf := path[strings.LastIndex(path, ".")+1:]
			return !volatile[leaf]
		}
	}
	return false
}
