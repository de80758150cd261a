package spec

import (
	"strings"
	"testing"
)

func TestSyntaxErrorLines(t *testing.T) {
	tests := []struct {
		in   string
		want string
	}{
		{"a: b: c\n", "s.yaml:1: invalid yaml: mapping values are not allowed in this context"},
		{"x: 1\na: b: c\n", "s.yaml:2: invalid yaml: mapping values"},
		{"x: 1\na: [1\n", "s.yaml:2: invalid yaml: did not find expected ',' or ']'"},
		{"x: 1\na: {1\n", "s.yaml:2: invalid yaml: did not find expected ',' or '}'"},
		{"x: 1\ny: 2\n- 3\n", "s.yaml:3: invalid yaml: did not find expected key"},
		{"- 1\nx: 2\n", "s.yaml:2: invalid yaml: did not find expected '-' indicator"},
		{"x: 1\n\ty: 1\n", "s.yaml:2: invalid yaml: found a tab character"},
		{"x: 1\ny: 2\nz: \x01\n", "s.yaml:3: invalid yaml: control characters are not allowed"},
		{"x: 1\ny: \xff\n", "s.yaml:2: invalid yaml: invalid leading UTF-8 octet"},
		{"x: 1\ny: *foo\n", "s.yaml:2: invalid yaml: unknown anchor 'foo' referenced"},
		{"workload: kv\n---\n- [\n", "s.yaml:"},
	}
	for _, tc := range tests {
		_, err := Parse("s.yaml", []byte(tc.in), testReg)
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("Parse(%q) error = %v; want it to start with %q", tc.in, err, tc.want)
		}
	}
}
