package ycsb

import "testing"

// The expected hashes follow YCSB's Utils.fnvhash64 by hand, with
// b = 0xCBF29CE484222325, p = 1099511628211, arithmetic mod 2^64 read as
// a signed long, and Math.abs at the end:
//
//	0:    every octet is 0, so h = b·p^8             = -6284781860667377211 → 6284781860667377211
//	1:    octets 01 00 …,  h = (b^0x01)·p^8          = -8517097267634966620 → 8517097267634966620
//	1000: octets E8 03 00 …, h = ((b^0xE8)·p ^ 0x03)·p^7 = -5952875239596136740 → 5952875239596136740
//
// "user6284781860667377211" is the first key of every YCSB load.
func TestFNVHash64(t *testing.T) {
	for _, c := range []struct{ in, want int64 }{
		{0, 6284781860667377211},
		{1, 8517097267634966620},
		{2, 1820151046732198393},
		{255, 8064062821143829734},
		{256, 2056600594528442646},
		{1000, 5952875239596136740},
		{999999, 2744965632448235251},
	} {
		if got := FNVHash64(c.in); got != c.want {
			t.Errorf("FNVHash64(%d) = %d, want %d", c.in, got, c.want)
		}
	}
}

func TestKeyName(t *testing.T) {
	for _, c := range []struct {
		keynum  int64
		pad     int
		ordered bool
		want    string
	}{
		{0, 1, false, "user6284781860667377211"},
		{1, 1, false, "user8517097267634966620"},
		{1000, 1, false, "user5952875239596136740"},
		{0, 25, false, "user0000006284781860667377211"},
		{5, 1, true, "user5"},
		{5, 8, true, "user00000005"},
		{12345678, 8, true, "user12345678"},
		{123456789, 8, true, "user123456789"},
		{0, 0, true, "user0"},
	} {
		if got := KeyName(c.keynum, c.pad, c.ordered); got != c.want {
			t.Errorf("KeyName(%d, %d, %v) = %q, want %q", c.keynum, c.pad, c.ordered, got, c.want)
		}
	}
	p, _ := Preset("a")
	if p.Key(0) != "user6284781860667377211" {
		t.Errorf("preset key 0 = %q", p.Key(0))
	}
}

func TestAppendKeyNameAllocates0(t *testing.T) {
	buf := make([]byte, 0, 32)
	if n := testing.AllocsPerRun(100, func() { buf = AppendKeyName(buf[:0], 42, 1, false) }); n != 0 {
		t.Errorf("AppendKeyName allocates %.0f times", n)
	}
}
