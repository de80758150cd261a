package textreport

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/result"
)

// TestThresholdsShown: the summary and the Markdown report show every
// verdict with what was measured, and a missing figure as missing.
func TestThresholdsShown(t *testing.T) {
	d := openDoc()
	d.Thresholds = []result.ThresholdVerdict{
		{Expression: "p99(read) < 5ms", Value: result.F(3.21), Unit: "ms", Op: "read", Pass: true},
		{Expression: "p99(scan) < 5ms", Unit: "ms", Op: "scan", Missing: "the run has no scan operations"},
		{Expression: "errors < 0.1%", Value: result.F(0.25), Unit: "%"},
	}
	var buf bytes.Buffer
	if err := Summary(&buf, d); err != nil {
		t.Fatal(err)
	}
	want := `verdict  threshold        measured
PASS     p99(read) < 5ms  3.21 ms (read)
FAIL     p99(scan) < 5ms  missing: the run has no scan operations
FAIL     errors < 0.1%    0.25%
`
	if !strings.HasSuffix(buf.String(), want) {
		t.Errorf("summary ends\n%s\nwant\n%s", buf.String(), want)
	}
	md, _, err := renderMarkdown(d, "charts")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(md), "## Thresholds\n\n| verdict | threshold | measured |\n| --- | --- | --- |\n| PASS | p99(read) < 5ms | 3.21 ms (read) |\n") {
		t.Errorf("Markdown lacks the thresholds table:\n%s", md)
	}
}
