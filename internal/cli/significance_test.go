package cli_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// TestCompareRunsAA measures two labels of five short runs each, the
// same configuration, interleaved, against the real server, and checks
// that compare --runs says first that no metric is worse, calls every
// metric likely noise, writes its report, and that
// --fail-on-regression passes.
func TestCompareRunsAA(t *testing.T) {
	uri := testenv.URI(t)
	c := connect(t, uri)
	db := testenv.DBName(t)
	dropAfter(t, c, db)
	results := filepath.Join(t.TempDir(), "results.jsonl")
	for i := range 5 { // a b, b a, a b, …: a drift of the machine falls on both alike
		order := []string{"a", "b"}
		if i%2 == 1 {
			order = []string{"b", "a"}
		}
		for _, label := range order {
			o := mb(t, "run", "--uri", uri, "--database", db, "--workload", "kv", "--rate", "300/s", "--duration", "1s", "--warmup", "200ms",
				"-p", "records=200", "--results-file", results, "--label", label, "--no-report")
			if o.code != cli.ExitOK {
				t.Fatalf("run %d of %s: %s", i, label, o)
			}
		}
	}
	reports := t.TempDir()
	o := mb(t, "compare", "--runs", "--label", "a", "--label", "b", "--results-file", results, "--fail-on-regression", "--report-dir", reports)
	wantCode(t, o, cli.ExitOK)
	t.Logf("A/A:\n%s", o.stdout)
	if !strings.HasPrefix(o.stdout, "No metric is significantly worse than a's.\n") {
		t.Errorf("A/A: the verdict does not come first:\n%s", o.stdout)
	}
	// The table: from its header to the line on how its figures were found.
	lines := strings.Split(strings.TrimSpace(o.stdout), "\n")
	head := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "metric ") })
	legend := slices.IndexFunc(lines, func(l string) bool { return strings.HasPrefix(l, "median [interval] (runs)") })
	if head < 0 || legend < head {
		t.Fatalf("A/A: no table:\n%s", o.stdout)
	}
	rows := 0
	for _, l := range lines[head+1 : legend] {
		if l == "" {
			continue
		}
		f := strings.Fields(l)
		rows++
		if f[len(f)-1] != "~" {
			t.Errorf("A/A: %q is not judged likely noise", l)
		}
	}
	// The same view is the report, Markdown and HTML.
	for _, name := range []string{"compare-runs-a-vs-b.md", "compare-runs-a-vs-b.html"} {
		if b, err := os.ReadFile(filepath.Join(reports, name)); err != nil || !strings.Contains(string(b), "b (5 runs) against a (5 runs)") {
			t.Errorf("report %s: %v\n%.400s", name, err, b)
		}
	}
	if rows < 4 {
		t.Errorf("A/A: %d metrics compared, want throughput, errors and each operation type's percentiles:\n%s", rows, o.stdout)
	}
	// A label with no single run is refused, by name.
	o = mb(t, "compare", "--runs", "--label", "a", "--label", "nosuch", "--results-file", results)
	wantCode(t, o, cli.ExitUsage)
}
