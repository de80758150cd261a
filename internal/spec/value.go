package spec

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// Rate is a target rate in operations per second. Zero means no target
// (closed loop).
type Rate float64

// Size is a number of bytes. Units are binary: 1KB = 1KiB = 1k = 1024 bytes,
// 1MB = 1024KB, 1GB = 1024MB, 1TB = 1024GB.
type Size int64

// Duration is a length of time. It reads Go syntax ("90s", "1m30s", "500ms")
// and a bare number of seconds ("45", "1.5").
type Duration time.Duration

const (
	wantRate     = "a positive rate up to 10M/s, such as 2000/s or 500"
	wantSize     = "a size such as 512, 512B, 4KB or 2MB (1KB = 1024 bytes)"
	wantDuration = "a non-negative duration such as 90s, 1m30s, 500ms or 45 (seconds)"
)

// ParseRate reads a rate up to MaxRate: a positive number with an optional k (thousand) or
// M (million) multiplier and an optional "/s", "/m" or "/h" period; the
// period defaults to seconds. "2000/s", "2000", "120/m", "1.5k/s" and "2k"
// are all valid.
func ParseRate(s string) (Rate, error) {
	text := strings.TrimSpace(s)
	num, per := text, 1.0
	if i := strings.IndexByte(text, '/'); i >= 0 {
		p, ok := ratePeriods[strings.TrimSpace(text[i+1:])]
		if !ok {
			return 0, invalid(s, wantRate)
		}
		num, per = strings.TrimSpace(text[:i]), p
	}
	v, ok := parseScaled(num)
	if !ok || v <= 0 || math.IsInf(v/per, 0) || Rate(v/per) > MaxRate {
		return 0, invalid(s, wantRate)
	}
	return Rate(v / per), nil
}

var ratePeriods = map[string]float64{
	"s": 1, "sec": 1, "second": 1,
	"m": 60, "min": 60, "minute": 60,
	"h": 3600, "hour": 3600,
}

// parseScaled reads a decimal number with an optional k or M multiplier.
func parseScaled(s string) (float64, bool) {
	mult := 1.0
	switch {
	case strings.HasSuffix(s, "k"), strings.HasSuffix(s, "K"):
		mult, s = 1e3, s[:len(s)-1]
	case strings.HasSuffix(s, "M"):
		mult, s = 1e6, s[:len(s)-1]
	}
	v, ok := parseDecimal(s)
	return v * mult, ok && !math.IsInf(v*mult, 0)
}

// String returns the rate in operations per second, such as "2000/s".
func (r Rate) String() string {
	return strconv.FormatFloat(float64(r), 'f', -1, 64) + "/s"
}

// Set parses text into r, so that *Rate serves as a command-line flag value.
func (r *Rate) Set(text string) error { return set(r, text, ParseRate) }

// Type names the value for command-line help.
func (*Rate) Type() string { return "rate" }

// ParseSize reads a size: a non-negative number with an optional unit B, K,
// KB, KiB, M, MB, MiB, G, GB, GiB, T, TB or TiB (case-insensitive). All
// units are binary: "4KB", "4KiB" and "4k" all mean 4096 bytes. A fraction
// is allowed with a unit larger than a byte and rounds to the nearest byte.
func ParseSize(s string) (Size, error) {
	text := strings.TrimSpace(s)
	num := strings.TrimRightFunc(text, func(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' })
	unit := strings.ToLower(text[len(num):])
	num = strings.TrimSpace(num)
	mult, ok := sizeUnits[unit]
	v, isNum := parseDecimal(num)
	if !ok || !isNum || v < 0 || (mult == 1 && v != math.Trunc(v)) {
		return 0, invalid(s, wantSize)
	}
	bytes := math.Round(v * float64(mult))
	if bytes >= math.MaxInt64 {
		return 0, invalid(s, wantSize)
	}
	return Size(bytes), nil
}

// Size units.
const (
	KB Size = 1 << (10 * (iota + 1))
	MB
	GB
	TB
)

var sizeUnits = map[string]Size{
	"": 1, "b": 1,
	"k": KB, "kb": KB, "kib": KB,
	"m": MB, "mb": MB, "mib": MB,
	"g": GB, "gb": GB, "gib": GB,
	"t": TB, "tb": TB, "tib": TB,
}

// String returns the size in the largest unit that divides it exactly, such
// as "4KB" or "1536B".
func (s Size) String() string {
	for _, u := range []struct {
		size Size
		name string
	}{{TB, "TB"}, {GB, "GB"}, {MB, "MB"}, {KB, "KB"}} {
		if s != 0 && s%u.size == 0 {
			return strconv.FormatInt(int64(s/u.size), 10) + u.name
		}
	}
	return strconv.FormatInt(int64(s), 10) + "B"
}

// Set parses text into s, so that *Size serves as a command-line flag value.
func (s *Size) Set(text string) error { return set(s, text, ParseSize) }

// Type names the value for command-line help.
func (*Size) Type() string { return "size" }

// ParseDuration reads a non-negative duration in Go syntax ("90s", "1m30s",
// "500ms") or a bare number of seconds ("45", "1.5").
func ParseDuration(s string) (Duration, error) {
	text := strings.TrimSpace(s)
	if secs, ok := parseDecimal(text); ok {
		ns := math.Round(secs * float64(time.Second))
		if secs < 0 || ns >= math.MaxInt64 {
			return 0, invalid(s, wantDuration)
		}
		return Duration(ns), nil
	}
	d, err := time.ParseDuration(text)
	if err != nil || d < 0 {
		return 0, invalid(s, wantDuration)
	}
	return Duration(d), nil
}

// String returns the duration in Go syntax, such as "1m30s".
func (d Duration) String() string { return time.Duration(d).String() }

// Set parses text into d, so that *Duration serves as a command-line flag value.
func (d *Duration) Set(text string) error { return set(d, text, ParseDuration) }

// Type names the value for command-line help.
func (*Duration) Type() string { return "duration" }

func set[T any](dst *T, text string, parse func(string) (T, error)) error {
	v, err := parse(text)
	if err != nil {
		return err
	}
	*dst = v
	return nil
}

// parseDecimal reads a finite decimal number such as "12", "-1.5" or "2e3".
// It refuses the hexadecimal, infinite and NaN forms strconv also reads.
func parseDecimal(s string) (float64, bool) {
	if s == "" || strings.Trim(s, "0123456789.eE+-") != "" {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil && !math.IsInf(v, 0)
}

// parseInt reads a whole number, in plain ("100000") or exponent ("1e5")
// notation.
func parseInt(s string) (int64, bool) {
	text := strings.TrimSpace(s)
	if n, err := strconv.ParseInt(text, 10, 64); err == nil {
		return n, true
	}
	f, ok := parseDecimal(text)
	if !ok || f != math.Trunc(f) || f < math.MinInt64 || f >= math.MaxInt64 {
		return 0, false
	}
	return int64(f), true
}
