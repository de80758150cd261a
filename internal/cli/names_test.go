package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// A run id is a name, never a path (issue 24): an import whose run id
// would leave a directory is refused and stores nothing, and `results
// show` refuses such an id before reading the store, so no report is
// written beside --report-dir.
func TestRunIDThatIsAPathIsRefused(t *testing.T) {
	uri := testenv.URI(t)
	db := testenv.DBName(t)
	dropAfter(t, connect(t, uri), db)
	parent := t.TempDir()
	file := filepath.Join(parent, "hostile.jsonl")
	d := result.Doc{RunID: "../escaped-by-runid", TestName: "names_test", Start: time.Now().UTC()}
	line, err := store.JSON(&d)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, append(line, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	results := uri // the results database is db, through --results's path
	results = strings.Replace(results, "/?", "/"+db+"?", 1)

	o := mb(t, "results", "import", file, "--results", results)
	wantCode(t, o, cli.ExitUsage) // refused as the file is checked, before anything connects
	if msg := errorLine(t, o, false); !strings.Contains(msg, file+`:1: run id "../escaped-by-runid": want 1 to 100 letters`) {
		t.Errorf("import: got %q, want the run id refused at its line", msg)
	}

	reports := filepath.Join(parent, "reports")
	o = mb(t, "results", "show", "../escaped-by-runid", "--report-dir", reports, "--results", results)
	wantCode(t, o, cli.ExitUsage)
	if msg := errorLine(t, o, false); !strings.Contains(msg, `run id "../escaped-by-runid"`) {
		t.Errorf("show: got %q, want the run id refused", msg)
	}
	entries, _ := os.ReadDir(parent)
	if len(entries) != 1 {
		t.Errorf("%s holds %v, want only the import file", parent, entries)
	}
}

// Labels, names and tags are text on one line: a control character is
// refused where it enters, naming the flag.
func TestLabelWithControlCharactersIsRefused(t *testing.T) {
	for _, c := range []struct{ flag, value string }{
		{"--label", "a\nb"},
		{"--name", "x\x1b[31m"},
		{"--tags", "ok,bad\tone"},
	} {
		o := mb(t, "run", "--uri", unreachable, c.flag, c.value, "--ops", "10", "--no-report")
		wantCode(t, o, cli.ExitUsage)
		wantQuick(t, o, usageFast)
		if msg := errorLine(t, o, false); !strings.Contains(msg, "control characters") {
			t.Errorf("%s %q: got %q, want it refused", c.flag, c.value, msg)
		}
	}
}
