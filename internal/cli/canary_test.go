package cli_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/result"
)

// mongobench canary measures this host's noise: every figure, as JSON
// and as a table, and refuses a repeat out of its bound.
func TestCanaryCommand(t *testing.T) {
	o := mb(t, "canary", "--repeat", "2", "--json")
	wantCode(t, o, cli.ExitOK)
	var cs []result.Canary
	if err := json.Unmarshal([]byte(o.stdout), &cs); err != nil || len(cs) != 2 {
		t.Fatalf("%v: %s", err, o.stdout)
	}
	for _, c := range cs {
		for _, f := range result.CanaryFigures {
			if v := f.Value(c); v == nil || *v <= 0 {
				t.Errorf("%s = %v, want a positive figure", f.Name, v)
			}
		}
	}
	o = mb(t, "canary")
	wantCode(t, o, cli.ExitOK)
	if !strings.Contains(o.stdout, "wakeLateP99Us") {
		t.Errorf("table lacks the wake-up figure:\n%s", o.stdout)
	}
	wantCode(t, mb(t, "canary", "--repeat", "101"), cli.ExitUsage)
}
