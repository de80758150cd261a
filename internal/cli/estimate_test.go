package cli

import (
	"bytes"
	"testing"

	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/workload/builtin"
)

// TestEstimateLine says what a long setup takes, once, at its first
// progress report, and says nothing for a small one.
func TestEstimateLine(t *testing.T) {
	tests := []struct {
		params []string
		want   string
	}{
		{[]string{"records=100", "docSize=16MB"}, "kv: setup loads about 1.6GB of data in 100 documents; client memory about 322.0MB\n"},
		{[]string{"records=1000"}, ""},
	}
	for _, tc := range tests {
		sc := &spec.Scenario{}
		if err := sc.SetFlag("workload", "kv"); err != nil {
			t.Fatal(err)
		}
		for _, a := range tc.params {
			if err := sc.SetParam(builtin.Registry(), a); err != nil {
				t.Fatal(err)
			}
		}
		if err := sc.Validate(builtin.Registry()); err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		p := newProgress(&out, terminal{}, 0, sc, nil) // no status lines: the estimate alone
		p.Setup("preload", 1, 100)
		p.Setup("preload", 2, 100)
		if got := out.String(); got != tc.want {
			t.Errorf("%v: got %q, want %q", tc.params, got, tc.want)
		}
	}
}
