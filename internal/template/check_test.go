package template

import (
	"errors"
	"testing"
)

func TestCheck(t *testing.T) {
	broken := []byte("<!-- MONGO_TABLE: {bad json -->\n")
	good := []byte("# no blocks\n")
	var te *Error
	if err := Check(broken, Options{Name: "t.md"}); !errors.As(err, &te) || te.Name != "t.md" {
		t.Errorf("broken: got %v, want a block error naming t.md", err)
	}
	if err := Check(broken, Options{Name: "t.md", KeepGoing: true}); err != nil {
		t.Errorf("broken, keep going: got %v, want none (Render notes it)", err)
	}
	if err := Check(good, Options{}); err != nil {
		t.Errorf("good: got %v", err)
	}
}
