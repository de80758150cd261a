package spec

import (
	"cmp"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Error is one problem with a scenario. It says where the problem is (File
// and Line for a scenario file, or Field alone for a command-line flag),
// what was given, and what would be valid.
//
// Its message reads like
//
//	scenario.yaml:7: rate: "-5/s" is not valid: want a positive rate such as 2000/s or 500
//	scenario.yaml:3: unknown key "durration" (did you mean "duration"? valid keys: ...)
//	--rate: "0" is not valid: want a positive rate such as 2000/s or 500
type Error struct {
	File    string // scenario file name; empty for flags and values built in code
	Line    int    // 1-based line in File; 0 when unknown
	Field   string // key path such as "rate" or "params.records", or a flag such as "--rate" or "-p records"
	Value   string // the value given, as text
	Want    string // what would be valid
	Problem string // replaces `"<Value>" is not valid` when the problem is not a bad value
	Err     error  // underlying cause, if any
}

// maxProblems bounds how many problems one error lists.
const maxProblems = 20

// maxValueLen bounds how much of a given value an error message repeats.
const maxValueLen = 80

func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			b.WriteString(":" + strconv.Itoa(e.Line))
		}
		b.WriteString(": ")
	}
	if e.Field != "" {
		b.WriteString(clip(e.Field) + ": ")
	}
	if e.Problem != "" {
		b.WriteString(e.Problem)
	} else {
		fmt.Fprintf(&b, "%q is not valid", clip(e.Value))
	}
	if e.Want != "" {
		b.WriteString(": want " + e.Want)
	}
	return b.String()
}

// Unwrap returns the underlying cause.
func (e *Error) Unwrap() error { return e.Err }

// invalid reports a bad value without saying where it came from; callers
// that know add the location.
func invalid(value, want string) *Error {
	return &Error{Value: value, Want: want}
}

func clip(s string) string {
	if len(s) <= maxValueLen {
		return s
	}
	cut := maxValueLen
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "..."
}

// joinErrors sorts problems by file position and joins them into one error.
func joinErrors(errs []*Error) error {
	if len(errs) == 0 {
		return nil
	}
	slices.SortStableFunc(errs, func(a, b *Error) int { return cmp.Compare(a.Line, b.Line) })
	var all []error
	for _, e := range errs[:min(len(errs), maxProblems)] {
		all = append(all, e)
	}
	if more := len(errs) - maxProblems; more > 0 {
		all = append(all, &Error{File: errs[0].File, Problem: fmt.Sprintf("and %d more problems", more)})
	}
	return errors.Join(all...)
}

// asError returns err as an *Error, wrapping other errors.
func asError(err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		c := *e
		return &c
	}
	return &Error{Problem: err.Error(), Err: err}
}

// oneOf describes a choice, with a suggestion when word is close to one of
// the options: `"kv", "ycsb" (did you mean "kv"?)`.
func oneOf(word string, options []string) string {
	if len(options) == 0 {
		return "a registered name, but there are none"
	}
	s := "one of " + strings.Join(options, ", ")
	if m := closest(word, options); m != "" {
		s += fmt.Sprintf(" (did you mean %q?)", m)
	}
	return s
}

// unknownKey describes a key that is not valid in a mapping.
func unknownKey(what, key string, valid []string) string {
	hint := ""
	if m := closest(key, valid); m != "" {
		hint = fmt.Sprintf("did you mean %q? ", m)
	}
	list := strings.Join(valid, ", ")
	if list == "" {
		list = "none"
	}
	return fmt.Sprintf("unknown %s %q (%svalid %ss: %s)", what, clip(key), hint, what, list)
}

// closest returns the option nearest to word in edit distance, ignoring
// case, or "" when none is close enough to be a likely typo.
func closest(word string, options []string) string { return Closest(word, options, 3) }

// Closest returns the option nearest to word in edit distance, ignoring
// case, when it is within fewer than limit edits (and fewer than the
// option's own length); "" otherwise.
func Closest(word string, options []string, limit int) string {
	w := []rune(strings.ToLower(word))
	best, bestDist := "", limit
	for _, o := range options {
		r := []rune(strings.ToLower(o))
		if abs(len(r)-len(w)) >= bestDist {
			continue
		}
		if d := distance(w, r); d < bestDist && d < len(r) {
			best, bestDist = o, d
		}
	}
	return best
}

// distance is the Levenshtein edit distance between a and b.
func distance(a, b []rune) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := range a {
		cur[0] = i + 1
		for j := range b {
			cost := 1
			if a[i] == b[j] {
				cost = 0
			}
			cur[j+1] = min(prev[j+1]+1, cur[j]+1, prev[j]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// Nearest returns the option nearest to word in edit distance, ignoring
// case, however far it is; "" when there are no options.
func Nearest(word string, options []string) string {
	w := []rune(strings.ToLower(word))
	best, bestDist := "", -1
	for _, o := range options {
		if d := distance(w, []rune(strings.ToLower(o))); bestDist < 0 || d < bestDist {
			best, bestDist = o, d
		}
	}
	return best
}
