package texttable

import (
	"strings"
	"testing"
)

func TestTextAndMarkdown(t *testing.T) {
	tb := New("op", ">p99 ms", "verdict")
	tb.Add("read", "2.10", "✅")
	tb.Add("update|x", "—", "❌ slow")
	var text, md strings.Builder
	if err := tb.WriteText(&text, true); err != nil {
		t.Fatal(err)
	}
	if err := tb.WriteMarkdown(&md); err != nil {
		t.Fatal(err)
	}
	wantText := "op        p99 ms  verdict\nread        2.10  ✅\nupdate|x       —  ❌ slow\n"
	if got := text.String(); got != wantText {
		t.Errorf("text:\ngot\n%s\nwant\n%s", got, wantText)
	}
	wantMD := "| op | p99 ms | verdict |\n| --- | ---: | --- |\n| read | 2.10 | ✅ |\n| update\\|x | — | ❌ slow |\n"
	if got := md.String(); got != wantMD {
		t.Errorf("markdown:\ngot\n%s\nwant\n%s", got, wantMD)
	}
}

func TestSig3(t *testing.T) {
	for v, want := range map[float64]string{0: "0", 1.23456: "1.23", 0.0123456: "0.0123", 12.345: "12.3", 999.6: "1000", 10904.2: "10904"} {
		if got := Sig3(v); got != want {
			t.Errorf("Sig3(%v): got %q want %q", v, got, want)
		}
	}
}

func TestEscapeIsLiteral(t *testing.T) {
	for in, want := range map[string]string{
		"insert_docsize":                 "insert_docsize",
		"<script>alert(1)</script>":      "&lt;script>alert(1)&lt;/script>",
		`"><img src=x onerror=alert(1)>`: `">&lt;img src=x onerror=alert(1)>`,
		"[x](javascript:alert(1))":       `\[x\](javascript:alert(1))`,
		"a|b\nc\r\nd":                    `a\|b c d`,
		"_em_ *b* `c` ~d~ \\":            `\_em\_ \*b\* \` + "`c\\`" + ` \~d\~ \\`,
		"&lt; &#60; & x":                 "&amp;lt; &amp;#60; & x",
		"achieved 3,000/s < 95% > x":     "achieved 3,000/s < 95% > x",
		"> quote":                        "&gt; quote",
		"by _id, cached":                 "by _id, cached",
	} {
		if got := Escape(in); got != want {
			t.Errorf("Escape(%q) = %q, want %q", in, got, want)
		}
	}
}
