package workload_test

import (
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/workload/builtin"
)

// The list names every workload with its summary, then its parameters.
func TestWriteList(t *testing.T) {
	reg := builtin.Registry()
	var b strings.Builder
	if err := reg.WriteList(&b); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, name := range reg.Workloads() {
		if !strings.Contains(out, "\n"+name+" — ") && !strings.HasPrefix(out, name+" — ") {
			t.Errorf("%s is not listed:\n%s", name, out)
		}
	}
	if !strings.Contains(out, "  -p records=") || !strings.Contains(out, " default ") {
		t.Errorf("no parameters listed:\n%.600s", out)
	}
}
