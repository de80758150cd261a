package spec

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Age is how long ago something happened: whole days ("90d") or a Go
// duration ("36h"), more than zero.
type Age time.Duration

const (
	wantAge  = "days such as 90d or a duration such as 36h"
	wantTime = "a time such as 2026-03-01T12:00:00Z, 2026-03-01T12:00:00 (UTC) or 2026-03-01"
)

// ParseAge reads an age: whole days ("90d", at most a century) or a Go
// duration ("36h"), more than zero.
func ParseAge(s string) (Age, error) {
	text := strings.TrimSpace(s)
	var age time.Duration
	if days, ok := strings.CutSuffix(text, "d"); ok {
		n, err := strconv.Atoi(days)
		if err != nil {
			return 0, invalid(s, wantAge)
		}
		if n > maxAgeDays {
			return 0, invalid(s, fmt.Sprintf("at most %dd (a century)", maxAgeDays))
		}
		age = time.Duration(n) * 24 * time.Hour
	} else {
		d, err := time.ParseDuration(text)
		if err != nil {
			return 0, invalid(s, wantAge)
		}
		if d > maxAgeDays*24*time.Hour {
			return 0, invalid(s, fmt.Sprintf("at most %dh (a century)", maxAgeDays*24))
		}
		age = d
	}
	if age <= 0 {
		return 0, invalid(s, "a positive age such as 90d")
	}
	return Age(age), nil
}

// maxAgeDays bounds an age: a century.
const maxAgeDays = 100 * 366

// Before is the time the age is before now.
func (a Age) Before(now time.Time) time.Time { return now.Add(-time.Duration(a)) }

// String returns the age as a Go duration, such as "2160h0m0s".
func (a Age) String() string { return time.Duration(a).String() }

// Set parses text into a, so that *Age serves as a command-line flag value.
func (a *Age) Set(text string) error { return set(a, text, ParseAge) }

// Type names the value for command-line help.
func (*Age) Type() string { return "age" }

// Time is a point in time given as text: RFC 3339, or a date (and time)
// without a zone, taken as UTC. The zero Time is none given.
type Time time.Time

// timeLayouts are the forms a Time takes.
var timeLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02T15:04", "2006-01-02"}

// ParseTime reads a time: RFC 3339 (2026-03-01T12:00:00Z), or a date and
// time without a zone (2026-03-01T12:00:00, 2026-03-01 12:00:00,
// 2026-03-01T12:00, 2026-03-01), taken as UTC. It returns the time in UTC.
func ParseTime(s string) (time.Time, error) {
	for _, l := range timeLayouts {
		if t, err := time.Parse(l, strings.TrimSpace(s)); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, invalid(s, wantTime)
}

// String returns the time in RFC 3339, or "" when none is given.
func (t Time) String() string {
	if time.Time(t).IsZero() {
		return ""
	}
	return time.Time(t).Format(time.RFC3339Nano)
}

// Set parses text into t, so that *Time serves as a command-line flag value.
func (t *Time) Set(text string) error {
	v, err := ParseTime(text)
	if err != nil {
		return err
	}
	*t = Time(v)
	return nil
}

// Type names the value for command-line help.
func (*Time) Type() string { return "time" }
