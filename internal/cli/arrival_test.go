package cli_test

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// --arrival poisson paces the run with Poisson arrivals at the rate, and
// the stored schedule names the pacer; without a rate it is a usage error.
func TestPoissonArrivals(t *testing.T) {
	uri := testenv.URI(t)
	c := connect(t, uri)
	db := testenv.DBName(t)
	dropAfter(t, c, db)
	results := filepath.Join(t.TempDir(), "results.jsonl")

	o := mb(t, "run", "--uri", uri, "--database", db, "--rate", "200/s", "--arrival", "poisson", "--seed", "7",
		"--duration", "2s", "-p", "records=200", "--results-file", results, "--no-report", "--json")
	wantCode(t, o, cli.ExitOK)
	var doc struct {
		Schedule struct {
			Pacer    string `json:"pacer"`
			Intended int64  `json:"intended"`
		} `json:"schedule"`
	}
	if err := json.Unmarshal([]byte(o.stdout), &doc); err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%s", err, o.stdout)
	}
	if doc.Schedule.Pacer != "poisson 200/s seed 7" {
		t.Errorf("schedule.pacer: got %q, want %q", doc.Schedule.Pacer, "poisson 200/s seed 7")
	}
	// 400 arrivals expected in 2 s; a Poisson count has a standard
	// deviation of 20, and the seed fixes it: this checks the pacer is
	// not constant-and-renamed only loosely, the engine tests check it
	// exactly.
	if doc.Schedule.Intended < 300 || doc.Schedule.Intended > 500 {
		t.Errorf("schedule.intended: got %d, want about 400", doc.Schedule.Intended)
	}

	o = mb(t, "run", "--uri", uri, "--database", db, "--arrival", "poisson", "--ops", "10")
	wantCode(t, o, cli.ExitUsage)
	if msg := errorLine(t, o, false); !strings.Contains(msg, "--arrival") {
		t.Errorf("poisson without a rate: got %q, want an error naming --arrival", msg)
	}
}
