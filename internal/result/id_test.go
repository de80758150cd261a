package result

import (
	"strings"
	"testing"
)

func TestCheckID(t *testing.T) {
	for _, id := range []string{"20260102T030405Z-ab12cd", "2026", "seed-a-1", "g1.s2.r0", "x_y"} {
		if err := CheckID("run id", id); err != nil {
			t.Errorf("%q: %v", id, err)
		}
	}
	for _, id := range []string{"", "../escaped-by-runid", "..", ".hidden", "a/b", `a\b`, "a..b", "a b", "a\x00", strings.Repeat("a", MaxIDLen+1), "é"} {
		err := CheckID("run id", id)
		if err == nil || !strings.Contains(err.Error(), "run id") || !strings.Contains(err.Error(), "want 1 to 100 letters") {
			t.Errorf("%q: got %v, want it refused", id, err)
		}
	}
}

func TestCheckText(t *testing.T) {
	for _, s := range []string{"", "baseline", "<script>alert(1)</script>", "[x](javascript:alert(1))", "ünïcode label"} {
		if err := CheckText("label", s); err != nil {
			t.Errorf("%q: %v", s, err)
		}
	}
	for _, s := range []string{"a\nb", "a\tb", "\x1b[31mred", "a\x00", "\xff"} {
		if err := CheckText("label", s); err == nil || !strings.HasPrefix(err.Error(), "label ") {
			t.Errorf("%q: got %v, want it refused", s, err)
		}
	}
}

func TestCut(t *testing.T) {
	if got := Cut("short"); got != "short" {
		t.Errorf("got %q", got)
	}
	long := strings.Repeat("é", 20<<20)
	got := Cut(long)
	if len(got) > MaxEcho+40 || !strings.Contains(got, "… (41943040 bytes)") {
		t.Errorf("got %q", got)
	}
}
