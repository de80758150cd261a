package result

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxIDLen is the longest run id or group id accepted.
const MaxIDLen = 100

// CheckID checks a run id or a group id (what says which, for the
// error): 1 to MaxIDLen letters, digits, '.', '_' or '-', not starting
// with '.' and without "..". An id names files (a run's report is
// RUNID.md), so it is a name and never a path. A prefix of a run id
// passes as well.
func CheckID(what, id string) error {
	ok := id != "" && len(id) <= MaxIDLen && id[0] != '.' && !strings.Contains(id, "..")
	for i := 0; ok && i < len(id); i++ {
		c := id[i]
		ok = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
	}
	if !ok {
		return fmt.Errorf("%s %q: want 1 to %d letters, digits, '.', '_' or '-', not starting with '.' and without \"..\"", what, Cut(id), MaxIDLen)
	}
	return nil
}

// CheckText checks a label, a test name or a tag (what says which, for
// the error): valid UTF-8 without control characters (no line breaks,
// tabs or terminal escapes), so that it prints on one line of a report
// or a terminal as written.
func CheckText(what, s string) error {
	if !utf8.ValidString(s) {
		return fmt.Errorf("%s %q: want valid UTF-8", what, Cut(s))
	}
	if i := strings.IndexFunc(s, unicode.IsControl); i >= 0 {
		return fmt.Errorf("%s %q: want no control characters (found %U at byte %d)", what, Cut(s), []rune(s[i:])[0], i)
	}
	return nil
}

// MaxEcho is how many bytes of a value an error message repeats.
const MaxEcho = 100

// Cut shortens a value echoed in a message to MaxEcho bytes (on a rune
// boundary), marking the cut with "…" and how long the value was.
func Cut(s string) string {
	if len(s) <= MaxEcho {
		return s
	}
	n := MaxEcho
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return fmt.Sprintf("%s… (%d bytes)", s[:n], len(s))
}
