package cli_test

import (
	"context"
	"encoding/json"
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

// v1Run is a run recorded by mongobench at schema version 1 (before long
// runs were coarsened and runs registered while running): ycsb-a at
// 300/s for 4 s, stored with --results-file.
const v1Run = "testdata/schema-v1-run.jsonl"

// renamed is the recorded run under a run id and label of this test's
// own, so that it never meets another test's rows.
func renamed(t *testing.T, runID, label string) string {
	t.Helper()
	b, err := os.ReadFile(v1Run)
	if err != nil {
		t.Fatal(err)
	}
	line := strings.TrimSpace(string(b))
	var d struct {
		RunID string `json:"runId"`
	}
	if err := json.Unmarshal([]byte(line), &d); err != nil {
		t.Fatal(err)
	}
	line = strings.ReplaceAll(line, `"`+d.RunID+`"`, `"`+runID+`"`)
	return strings.ReplaceAll(line, `"schema-v1"`, `"`+label+`"`)
}

// lengthened is the run's line with its intervals repeated to n
// one-second intervals, its phase as long: a run far longer than one
// document holds at full resolution.
func lengthened(t *testing.T, line string, n int) string {
	t.Helper()
	var d map[string]json.RawMessage
	if err := json.Unmarshal([]byte(line), &d); err != nil {
		t.Fatal(err)
	}
	var ivs []map[string]json.RawMessage
	if err := json.Unmarshal(d["intervals"], &ivs); err != nil {
		t.Fatal(err)
	}
	var start struct {
		Date time.Time `json:"$date"`
	}
	if err := json.Unmarshal(d["start"], &start); err != nil {
		t.Fatal(err)
	}
	date := func(t time.Time) json.RawMessage {
		return json.RawMessage(fmt.Sprintf(`{"$date":%q}`, t.UTC().Format("2006-01-02T15:04:05.000Z")))
	}
	var long []map[string]json.RawMessage
	for k := range n {
		iv := map[string]json.RawMessage{}
		for key, v := range ivs[k%len(ivs)] {
			iv[key] = v
		}
		iv["t"], iv["secs"] = date(start.Date.Add(time.Duration(k)*time.Second)), json.RawMessage("1")
		long = append(long, iv)
	}
	var err error
	if d["intervals"], err = json.Marshal(long); err != nil {
		t.Fatal(err)
	}
	d["end"], d["duration"] = date(start.Date.Add(time.Duration(n)*time.Second)), json.RawMessage(fmt.Sprint(n*1000))
	out, err := json.Marshal(d)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestEveryReaderReadsEveryShape imports a run recorded at schema
// version 1 and a run too long for one document at full resolution (its
// 2,400 intervals), then reads both through every reader: results list
// and show, the run report (Markdown and HTML), the Performance Tables
// template and the results browser.
func TestEveryReaderReadsEveryShape(t *testing.T) {
	uri := testenv.URI(t)
	c := connect(t, uri)
	tag := testenv.DBName(t)
	short, long := "20261126T035059Z-v1"+tag[len(tag)-6:], "20261126T035059Z-ln"+tag[len(tag)-6:]
	dir := t.TempDir()
	file := filepath.Join(dir, "runs.jsonl")
	lines := renamed(t, short, "shape-v1-"+tag) + "\n" + lengthened(t, renamed(t, long, "shape-long-"+tag), 2400) + "\n"
	if err := os.WriteFile(file, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	results := c.Database(store.DefaultDatabase)
	t.Cleanup(func() {
		ctx := context.Background()
		ids := bson.D{{Key: "$in", Value: []string{short, long}}}
		_, _ = results.Collection(store.HistoryCollection).DeleteMany(ctx, bson.D{{Key: "_id", Value: ids}})
		_, _ = results.Collection(store.ResultsCollection).DeleteMany(ctx, bson.D{{Key: "runId", Value: ids}})
		_, _ = results.Collection(store.IntervalsCollection).DeleteMany(ctx, bson.D{{Key: "run.id", Value: ids}})
		_, _ = results.Collection(store.SummariesCollection).DeleteMany(ctx, bson.D{{Key: "_id", Value: ids}})
	})
	if o := mb(t, "results", "import", "--results", uri, file); o.code != cli.ExitOK {
		t.Fatalf("import: %v", o)
	}
	raw, err := results.Collection(store.HistoryCollection).FindOne(context.Background(), bson.D{{Key: "_id", Value: long}}).Raw()
	if err != nil {
		t.Fatal(err)
	}
	if res, err := raw.LookupErr("resolution", "intervalSec"); err != nil || len(raw) > 2<<20 {
		t.Errorf("the long run's document: %d bytes, resolution %v (%v); want under 2 MB and coarsened", len(raw), res, err)
	}
	if o := mb(t, "results", "list", "--results", uri, "--limit", "0"); o.code != cli.ExitOK || !strings.Contains(o.stdout, short) || !strings.Contains(o.stdout, long) {
		t.Errorf("results list: %v", o)
	}
	base, stop := startServe(t, "--results", uri)
	defer stop()
	for _, id := range []string{short, long} {
		reports := filepath.Join(dir, id)
		o := mb(t, "results", "show", id, "--results", uri, "--report-dir", reports)
		if o.code != cli.ExitOK || !strings.Contains(o.stdout, "READ") {
			t.Errorf("results show %s: %v", id, o)
		}
		for _, ext := range []string{".md", ".html"} {
			if m, _ := filepath.Glob(filepath.Join(reports, "*"+ext)); len(m) == 0 {
				t.Errorf("results show %s --report-dir: no %s report", id, ext)
			}
		}
		wantPage(t, base+"/run/"+id, id, "uPlot")
	}
	if md, _ := filepath.Glob(filepath.Join(dir, long, "*.md")); len(md) > 0 {
		b, _ := os.ReadFile(md[0])
		if !strings.Contains(string(b), "2400 intervals of 1 s are shown merged into intervals of") {
			t.Errorf("the long run's report does not say its intervals are merged:\n%s", b[:min(len(b), 2000)])
		}
	}
	out := filepath.Join(dir, "tables.md")
	if o := mb(t, "tables", "../../templates/performance-tables.md", "--results", uri, "-o", out); o.code != cli.ExitOK {
		t.Errorf("tables over both runs: %v", o)
	}
}
