package cli_test

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// TestYCSBRun runs YCSB workload B end to end: the result names the
// operations as YCSB does, and only READ and UPDATE ran.
func TestYCSBRun(t *testing.T) {
	uri := testenv.URI(t)
	db := testenv.DBName(t)
	dropAfter(t, connect(t, uri), db)
	results := filepath.Join(t.TempDir(), "results.jsonl")
	o := mb(t, "run", "--uri", uri, "--database", db, "--workload", "ycsb-b", "--threads", "4", "--ops", "500",
		"-p", "recordcount=1000", "--results-file", results, "--no-report", "--json")
	wantCode(t, o, cli.ExitOK)
	var doc struct {
		Ops []struct {
			Name   string `json:"name"`
			Count  int64  `json:"count"`
			Errors struct {
				Total int64 `json:"total"`
			} `json:"errors"`
		} `json:"ops"`
	}
	if err := json.Unmarshal([]byte(o.stdout), &doc); err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%s", err, o.stdout)
	}
	counts := map[string]int64{}
	var total int64
	for _, op := range doc.Ops {
		if op.Errors.Total != 0 {
			t.Errorf("%s: %d errors, want none", op.Name, op.Errors.Total)
		}
		counts[op.Name] += op.Count
		total += op.Count
	}
	if total != 500 || counts["READ"] < 400 || counts["UPDATE"] == 0 || counts["READ"]+counts["UPDATE"] != 500 {
		t.Errorf("ops: got %v, want 500 READ and UPDATE operations, about 95%% READ", counts)
	}
}
