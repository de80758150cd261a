package datagen

import (
	"bytes"
	"testing"
)

func TestPayloadIsRepeatablePerSeed(t *testing.T) {
	a, b, c := Payload(1024, 7), Payload(1024, 7), Payload(1024, 8)
	if !bytes.Equal(a, b) {
		t.Errorf("same seed: got different payloads")
	}
	if bytes.Equal(a, c) {
		t.Errorf("different seeds: got equal payloads")
	}
	if len(a) != 1024 {
		t.Errorf("length: got %d want 1024", len(a))
	}
}

func TestUniformStaysInRangeAndCoversIt(t *testing.T) {
	u, r := Uniform{N: 10}, Rand(1, 0)
	seen := map[int64]int{}
	for range 10000 {
		k := u.Next(r)
		if k < 0 || k >= 10 {
			t.Fatalf("key %d outside [0,10)", k)
		}
		seen[k]++
	}
	for k := int64(0); k < 10; k++ {
		if n := seen[k]; n < 800 || n > 1200 {
			t.Errorf("key %d chosen %d times in 10000, want about 1000", k, n)
		}
	}
}
