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

// TestOwnTemplateLocalRun renders a template written apart from the
// shipped one (testdata/own-template.md), which projects every field the
// reference document's pipelines read (instance, disk, IOPS, cost, the
// host's and the disk's series, serverStatus counters) as they are, over
// one local run made with no target description. Every block renders,
// with no error: what the host tells is filled in (instance, disk, CPUs,
// CPU model, memory, filesystem, CPU series), and what nobody gave (IOPS,
// cost, the variant's instance) is empty cells, never 0, named in a note
// under its table.
func TestOwnTemplateLocalRun(t *testing.T) {
	uri := testenv.URI(t)
	db := testenv.DBName(t)
	dropAfter(t, connect(t, uri), db)
	name := fmt.Sprintf("own_template_%d", time.Now().UnixNano())
	results := testenv.Client(t, uri).Database(store.DefaultDatabase)
	t.Cleanup(func() {
		for _, c := range []string{store.ResultsCollection, "history"} {
			_, _ = results.Collection(c).DeleteMany(context.Background(), bson.D{{Key: "testName", Value: name}})
		}
	})
	o := mb(t, "run", "--uri", uri, "--results", uri, "--database", db, "--name", name, "--workload", "kv",
		"-p", "records=500", "--threads", "2", "--duration", "2s", "--warmup", "1s", "--no-report")
	wantCode(t, o, cli.ExitOK)

	text, err := os.ReadFile(filepath.Join("testdata", "own-template.md"))
	if err != nil {
		t.Fatal(err)
	}
	tpl := writeTemplate(t, strings.ReplaceAll(string(text), "TESTNAME", name))
	o = mb(t, "tables", tpl, "--results", uri)
	wantCode(t, o, cli.ExitOK)
	if strings.Contains(o.stdout, "Table not rendered") || strings.Contains(o.stderr, "MONGO_TABLE") {
		t.Fatalf("a block did not render:\n%s", o)
	}
	tables := renderedTables(o.stdout)
	if len(tables) != 6 {
		t.Fatalf("got %d rendered tables, want 6:\n%s", len(tables), o.stdout)
	}
	for i, tb := range tables {
		if len(tb.rows) != 1 {
			t.Errorf("table %d: got %d rows, want the run's one:\n%s", i+1, len(tb.rows), o.stdout)
		}
	}
	if t.Failed() {
		return
	}
	base := tables[0].row(0)
	for _, col := range []string{"Instance", "Disk", "Disk GB", "vCPU", "CPU", "RAM GB", "Filesystem", "Version"} {
		if base[col] == "" {
			t.Errorf("Base instance: %s is empty, want what the host tells:\n%s", col, o.stdout)
		}
	}
	if base["IOPS"] != "" || !strings.Contains(tables[0].note, `"iops" (IOPS)`) {
		t.Errorf("Base instance: IOPS %q, note %q; want an empty cell named in the note", base["IOPS"], tables[0].note)
	}
	for col, v := range tables[1].row(0) {
		if v != "" {
			t.Errorf("the variant's instance and price: %s = %q, want empty (no target description)", col, v)
		}
	}
	if !strings.Contains(tables[1].note, `"cost" (Cost (cents/h))`) {
		t.Errorf("the variant's instance and price: note %q, want it to name the cost", tables[1].note)
	}
	if perf := tables[2].row(0); perf["Operations"] == "" || perf["ops/s"] == "" || perf["Queries"] != "" {
		t.Errorf("Performance: got %v, want operations and ops/s, no queries (kv makes none)", perf)
	}
	if host := tables[3].row(0); host["CPU % (user+kernel)"] == "" {
		t.Errorf("Host: got %v, want the CPU of the host the server runs on", host)
	}
	if disk := tables[4].row(0); disk["Provisioned IOPS"] != "" {
		t.Errorf("Disk: provisioned IOPS %q, want empty", disk["Provisioned IOPS"])
	}
	t.Logf("%s", o.stdout)
}

// table is one rendered Markdown table of a document: its headers, its
// rows' cells and the note under it, if any.
type table struct {
	headers []string
	rows    [][]string
	note    string
}

// row returns row i by header.
func (tb table) row(i int) map[string]string {
	m := map[string]string{}
	for j, h := range tb.headers {
		if j < len(tb.rows[i]) {
			m[h] = tb.rows[i][j]
		}
	}
	return m
}

// renderedTables reads every table rendered between a MONGO_TABLE block
// and its end marker.
func renderedTables(doc string) []table {
	var out []table
	for _, chunk := range strings.Split(doc, "<!-- /MONGO_TABLE -->")[:strings.Count(doc, "<!-- /MONGO_TABLE -->")] {
		chunk = chunk[strings.LastIndex(chunk, "-->")+3:]
		var tb table
		for _, line := range strings.Split(chunk, "\n") {
			switch {
			case strings.HasPrefix(line, "|"):
				cells := strings.Split(strings.Trim(line, "|"), "|")
				for k := range cells {
					cells[k] = strings.TrimSpace(cells[k])
				}
				switch {
				case tb.headers == nil:
					tb.headers = cells
				case strings.HasPrefix(cells[0], "---"):
				default:
					tb.rows = append(tb.rows, cells)
				}
			case strings.HasPrefix(line, "> "):
				tb.note += line
			}
		}
		out = append(out, tb)
	}
	return out
}
