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
	if err := Check(broken, Options{Name: "t.md", KeepGoing: true}); !errors.As(err, &te) {
		t.Errorf("broken alone, keep going: got %v, want the block error (nothing would render)", err)
	}
	mixed := append([]byte("<!-- MONGO_TABLE: {\"collection\": \"a\", \"pipeline\": [], \"columns\": [\"x\"]} -->\n"), broken...)
	if err := Check(mixed, Options{Name: "t.md", KeepGoing: true}); err != nil {
		t.Errorf("broken beside a good block, keep going: got %v, want none (Render notes it)", err)
	}
	if err := Check(good, Options{}); err != nil {
		t.Errorf("good: got %v", err)
	}
}
