package spec

import (
	"strings"
	"testing"
	"time"
)

func TestParseRate(t *testing.T) {
	good := []struct {
		in   string
		want Rate
	}{
		{"2000/s", 2000},
		{"2000", 2000},
		{" 500 ", 500},
		{"120/m", 2},
		{"120/min", 2},
		{"7200/h", 2},
		{"1.5k/s", 1500},
		{"2k", 2000},
		{"2K", 2000},
		{"1M/s", 1e6},
		{"0.5", 0.5},
		{"1e3", 1000},
		{"10 / s", 10},
	}
	for _, tc := range good {
		got, err := ParseRate(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseRate(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{"", "0", "-5/s", "0/s", "abc", "5/d", "5/", "/s", "k", "NaN", "Inf", "0x10", "1e999", "2m", "5 ops/s", "1_000"} {
		_, err := ParseRate(in)
		if err == nil || !strings.Contains(err.Error(), "want a positive rate") {
			t.Errorf("ParseRate(%q) error = %v; want a 'want a positive rate' error", in, err)
		}
	}
}

func TestParseSize(t *testing.T) {
	good := []struct {
		in   string
		want Size
	}{
		{"512", 512},
		{"512B", 512},
		{"512b", 512},
		{"4KB", 4096},
		{"4KiB", 4096},
		{"4k", 4096},
		{"4 kb", 4096},
		{"2MB", 2 << 20},
		{"1.5KB", 1536},
		{"1GB", 1 << 30},
		{"1TiB", 1 << 40},
		{"0", 0},
		{"1e3", 1000},
	}
	for _, tc := range good {
		got, err := ParseSize(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ParseSize(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{"", "-1", "-1KB", "1.5", "1.5B", "4XB", "KB", "abc", "9999999TB", "NaN", "1 2"} {
		_, err := ParseSize(in)
		if err == nil || !strings.Contains(err.Error(), "1KB = 1024 bytes") {
			t.Errorf("ParseSize(%q) error = %v; want an error describing sizes", in, err)
		}
	}
}

func TestParseDuration(t *testing.T) {
	good := []struct {
		in   string
		want time.Duration
	}{
		{"90s", 90 * time.Second},
		{"1m30s", 90 * time.Second},
		{"500ms", 500 * time.Millisecond},
		{"45", 45 * time.Second},
		{"1.5", 1500 * time.Millisecond},
		{"0", 0},
		{"0s", 0},
		{"2h", 2 * time.Hour},
	}
	for _, tc := range good {
		got, err := ParseDuration(tc.in)
		if err != nil || time.Duration(got) != tc.want {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", tc.in, got, err, tc.want)
		}
	}
	for _, in := range []string{"", "-5s", "-1", "abc", "5 seconds", "1e100", "10d", "NaN"} {
		_, err := ParseDuration(in)
		if err == nil || !strings.Contains(err.Error(), "want a non-negative duration") {
			t.Errorf("ParseDuration(%q) error = %v; want a duration error", in, err)
		}
	}
}

func TestValueStringRoundTrip(t *testing.T) {
	for _, r := range []Rate{1, 2000, 0.5, 1234.5678} {
		if got, err := ParseRate(r.String()); err != nil || got != r {
			t.Errorf("ParseRate(%q) = %v, %v; want %v", r.String(), got, err, r)
		}
	}
	sizes := map[Size]string{0: "0B", 512: "512B", 1536: "1536B", 4 * KB: "4KB", 2 * MB: "2MB", 3 * GB: "3GB", TB: "1TB"}
	for s, text := range sizes {
		if s.String() != text {
			t.Errorf("Size(%d).String() = %q; want %q", s, s.String(), text)
		}
		if got, err := ParseSize(s.String()); err != nil || got != s {
			t.Errorf("ParseSize(%q) = %v, %v; want %v", s.String(), got, err, s)
		}
	}
	for _, d := range []Duration{0, Duration(90 * time.Second), Duration(1500 * time.Microsecond)} {
		if got, err := ParseDuration(d.String()); err != nil || got != d {
			t.Errorf("ParseDuration(%q) = %v, %v; want %v", d.String(), got, err, d)
		}
	}
}

func TestSet(t *testing.T) {
	var r Rate
	var s Size
	var d Duration
	if err := r.Set("2k/s"); err != nil || r != 2000 {
		t.Errorf("Rate.Set(2k/s) gave %v, %v; want 2000", r, err)
	}
	if err := r.Set("-1"); err == nil || r != 2000 {
		t.Errorf("Rate.Set(-1) gave %v, %v; want an error and the value unchanged", r, err)
	}
	if err := s.Set("4KB"); err != nil || s != 4096 {
		t.Errorf("Size.Set(4KB) gave %v, %v; want 4096", s, err)
	}
	if err := d.Set("1m"); err != nil || d != Duration(time.Minute) {
		t.Errorf("Duration.Set(1m) gave %v, %v; want 1m", d, err)
	}
	if r.Type() != "rate" || s.Type() != "size" || d.Type() != "duration" {
		t.Errorf("Type() = %q, %q, %q; want rate, size, duration", r.Type(), s.Type(), d.Type())
	}
}
