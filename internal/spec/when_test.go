package spec

import (
	"strings"
	"testing"
	"time"
)

func TestParseAge(t *testing.T) {
	for in, want := range map[string]time.Duration{"90d": 90 * 24 * time.Hour, "36h": 36 * time.Hour, " 1d ": 24 * time.Hour, "90m": 90 * time.Minute} {
		got, err := ParseAge(in)
		if err != nil || time.Duration(got) != want {
			t.Errorf("ParseAge(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for in, want := range map[string]string{
		"":         `"" is not valid: want days such as 90d`,
		"3 days":   `"3 days" is not valid: want days such as 90d or a duration such as 36h`,
		"xd":       `"xd" is not valid: want days`,
		"99999d":   `"99999d" is not valid: want at most 36600d (a century)`,
		"1000000d": `"1000000d" is not valid: want at most 36600d (a century)`,
		"900000h":  `"900000h" is not valid: want at most 878400h (a century)`,
		"0d":       `"0d" is not valid: want a positive age such as 90d`,
		"-5h":      `"-5h" is not valid: want a positive age`,
	} {
		if _, err := ParseAge(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseAge(%q): %v, want %q in it", in, err, want)
		}
	}
	var a Age
	if err := a.Set("2d"); err != nil || a.Before(time.Date(2026, 3, 3, 0, 0, 0, 0, time.UTC)) != time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC) {
		t.Errorf("Age 2d before 3 March: %v (%v)", a.Before(time.Date(2026, 3, 3, 0, 0, 0, 0, time.UTC)), err)
	}
}

func TestParseTime(t *testing.T) {
	want := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	for _, in := range []string{"2026-03-01T12:00:00Z", "2026-03-01T13:00:00+01:00", "2026-03-01T12:00:00", "2026-03-01 12:00:00", "2026-03-01T12:00"} {
		got, err := ParseTime(in)
		if err != nil || !got.Equal(want) || got.Location() != time.UTC {
			t.Errorf("ParseTime(%q) = %v, %v; want %v in UTC", in, got, err, want)
		}
	}
	if got, err := ParseTime("2026-03-01"); err != nil || !got.Equal(want.Add(-12*time.Hour)) {
		t.Errorf("ParseTime(a date) = %v, %v", got, err)
	}
	if _, err := ParseTime("yesterday"); err == nil || err.Error() != `"yesterday" is not valid: want a time such as 2026-03-01T12:00:00Z, 2026-03-01T12:00:00 (UTC) or 2026-03-01` {
		t.Errorf("ParseTime(yesterday): %v", err)
	}
	var v Time
	if v.String() != "" || v.Set("2026-03-01T12:00:00") != nil || v.String() != "2026-03-01T12:00:00Z" {
		t.Errorf("Time as a flag value: %q", v.String())
	}
}
