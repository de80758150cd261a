package template

import (
	"errors"
	"testing"
)

func TestNamed(t *testing.T) {
	md := []byte("<!-- MONGO_TABLE: {bad json -->\ntext\n<!-- MONGO_TABLE: {also bad -->\n")
	_, err := Parse(md)
	if err == nil {
		t.Fatal("Parse of two broken blocks: no error")
	}
	err = Named(err, "report.md")
	var te *Error
	if !errors.As(err, &te) || te.Name != "report.md" {
		t.Fatalf("Named: %v, want block errors naming report.md", err)
	}
	j, ok := err.(interface{ Unwrap() []error })
	if !ok || len(j.Unwrap()) != 2 {
		t.Fatalf("Named: %v, want the two block errors", err)
	}
	for _, e := range j.Unwrap() {
		if !errors.As(e, &te) || te.Name != "report.md" {
			t.Errorf("block error %v does not name report.md", e)
		}
	}
	plain := errors.New("not a block error")
	if got := Named(plain, "report.md"); got != plain {
		t.Errorf("Named(plain) = %v, want it unchanged", got)
	}
}
