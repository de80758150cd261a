package cli_test

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// TestCompareRunsAA measures two labels of five short runs each, the
// same configuration, interleaved, against the real server, and checks
// that compare --runs calls every metric likely noise and that
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
	o := mb(t, "compare", "--runs", "--label", "a", "--label", "b", "--results-file", results, "--fail-on-regression")
	wantCode(t, o, cli.ExitOK)
	t.Logf("A/A:\n%s", o.stdout)
	lines := strings.Split(strings.TrimSpace(o.stdout), "\n")
	rows := 0
	for _, l := range lines[2 : len(lines)-1] { // the title, the header, the rows, the note
		f := strings.Fields(l)
		rows++
		if f[len(f)-1] != "~" {
			t.Errorf("A/A: %q is not judged likely noise", l)
		}
	}
	if rows < 4 {
		t.Errorf("A/A: %d metrics compared, want throughput, errors and each operation type's percentiles:\n%s", rows, o.stdout)
	}
	// A label with no single run is refused, by name.
	o = mb(t, "compare", "--runs", "--label", "a", "--label", "nosuch", "--results-file", results)
	wantCode(t, o, cli.ExitUsage)
}
