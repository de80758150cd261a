// Package secret keeps credentials in: every string that may carry a
// connection string or one of its options (a URI to show or store, an
// error, a line of output) passes through it before it leaves the process.
//
// URI shows a connection string the way the driver reads it: it is parsed
// with the driver's own parser (x/mongo/driver/connstring), so the user
// information ends where the driver ends it (a '?' or '/' in a password
// is still the password), and then rebuilt from the parts that are not
// secret. A string the driver cannot parse falls back to uri.Redact, which
// shows its scheme and hosts or nothing. Text and Error remove every
// secret of the given connection strings from free text, such as a
// driver's error message, which can quote a password or an option value.
package secret

import (
	"fmt"
	"io"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"

	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/connstring"

	"github.com/mongobench/mongobench/internal/uri"
)

// Redacted stands in for a secret value.
const Redacted = uri.Redacted

// URI returns the connection string s as it may be shown, stored or
// logged: no password, no value of a secret option, no value of an option
// the driver does not know (which may be a misspelled secret).
func URI(s string) string {
	cs, ok := parse(s)
	if !ok {
		return uri.Redact(s)
	}
	scheme, rest, _ := strings.Cut(s, "://")
	var b strings.Builder
	b.WriteString(scheme + "://")
	if cs.UsernameSet {
		user, _, _ := strings.Cut(rest[:strings.Index(rest, "@")], ":")
		b.WriteString(user + "@")
	}
	if at := strings.Index(rest, "@"); at >= 0 {
		rest = rest[at+1:]
	}
	end := strings.IndexAny(rest, "/?")
	if end < 0 {
		end = len(rest)
	}
	b.WriteString(rest[:end])
	path, query, hasQuery := strings.Cut(rest[end:], "?")
	b.WriteString(path)
	if hasQuery {
		b.WriteString("?" + redactQuery(query, cs))
	}
	return b.String()
}

// parse reads s with the driver's parser, without the DNS lookups a
// mongodb+srv string would make: redaction never touches the network.
func parse(s string) (*connstring.ConnString, bool) {
	probe := s
	if rest, ok := strings.CutPrefix(s, connstring.SchemeMongoDBSRV+"://"); ok {
		probe = connstring.SchemeMongoDB + "://" + rest
	}
	if !strings.HasPrefix(probe, connstring.SchemeMongoDB+"://") {
		return nil, false
	}
	cs, err := connstring.Parse(probe)
	return cs, err == nil
}

// redactQuery keeps the options in the order given, each key as written,
// with the value hidden unless the driver knows the option and it is not
// secret.
func redactQuery(q string, cs *connstring.ConnString) string {
	pairs := splitQuery(q)
	for i, p := range pairs {
		k, _, ok := strings.Cut(p, "=")
		if ok && hidden(k, cs) {
			pairs[i] = k + "=" + Redacted
		}
	}
	return strings.Join(pairs, "&")
}

func hidden(rawKey string, cs *connstring.ConnString) bool {
	key, err := url.QueryUnescape(rawKey)
	if err != nil {
		return true
	}
	key = strings.ToLower(key)
	_, unknown := cs.UnknownOptions[key]
	return unknown || uri.SecretOption(key)
}

// splitQuery splits options as the driver does, at '&' and ';'.
func splitQuery(q string) []string {
	return strings.FieldsFunc(q, func(r rune) bool { return r == ';' || r == '&' })
}

// UnknownOptions lists the options of s, as written, that the driver does
// not know and ignores (such as proxyPassword, or a misspelled option).
func UnknownOptions(s string) []string {
	cs, ok := parse(s)
	if !ok {
		return nil
	}
	var names []string
	_, rest, _ := strings.Cut(s, "://")
	if at := strings.Index(rest, "@"); at >= 0 {
		rest = rest[at+1:]
	}
	_, query, _ := strings.Cut(rest, "?")
	for _, p := range splitQuery(query) {
		k, _, _ := strings.Cut(p, "=")
		key, err := url.QueryUnescape(k)
		if err != nil {
			continue
		}
		if _, unknown := cs.UnknownOptions[strings.ToLower(key)]; unknown && !slices.Contains(names, key) {
			names = append(names, key)
		}
	}
	return names
}

// Warnings are the warnings a connection string s deserves: each option
// the driver ignores (a misspelled option, or proxy options the Go driver
// does not honour), and w=0, which hides every write error. s is shown
// redacted.
func Warnings(s string) []string {
	var out []string
	for _, o := range UnknownOptions(s) {
		out = append(out, fmt.Sprintf("%s: option %s is not one the MongoDB Go driver reads; it is ignored", URI(s), o))
	}
	if Unacknowledged(s) {
		out = append(out, URI(s)+": w=0 asks for unacknowledged writes: the server reports no write error, so failed writes count as done")
	}
	return out
}

// Unacknowledged reports whether s asks for unacknowledged writes (w=0):
// the server then confirms nothing, so a write that failed looks stored.
func Unacknowledged(s string) bool {
	cs, ok := parse(s)
	return ok && cs.WNumberSet && cs.WNumber == 0
}

// minSecret is the shortest secret Text replaces in free text: shorter
// ones would blank ordinary words. Connection strings themselves are
// always rebuilt without them (URI).
const minSecret = 3

// secrets returns what of s must never be shown, longest first: s itself
// (shown as URI(s) instead), the user information, the password as given
// and unescaped, and the values of secret and unknown options (each
// authMechanismProperties value as well), as given and unescaped.
func secrets(s string) []string {
	var out []string
	add := func(v string) {
		if len(v) >= minSecret && !slices.Contains(out, v) {
			out = append(out, v)
		}
		if u, err := url.QueryUnescape(v); err == nil && u != v && len(u) >= minSecret && !slices.Contains(out, u) {
			out = append(out, u)
		}
		if u, err := url.PathUnescape(v); err == nil && u != v && len(u) >= minSecret && !slices.Contains(out, u) {
			out = append(out, u)
		}
	}
	_, rest, ok := strings.Cut(s, "://")
	if !ok {
		rest = s
	}
	cs, parsed := parse(s)
	if at := strings.Index(rest, "@"); at >= 0 {
		info := rest[:at]
		if _, pw, ok := strings.Cut(info, ":"); ok {
			add(pw)
			add(info)
		}
		rest = rest[at+1:]
	} else if !parsed {
		// No user information the driver would find, and a string it
		// cannot read: what looks like hosts may be a password.
		end := strings.IndexAny(rest, "/?")
		if end < 0 {
			end = len(rest)
		}
		add(rest[:end])
	}
	_, query, _ := strings.Cut(rest, "?")
	for _, p := range splitQuery(query) {
		k, v, _ := strings.Cut(p, "=")
		key, err := url.QueryUnescape(k)
		if err == nil && parsed && !hidden(k, cs) {
			continue
		}
		if err == nil && !parsed && !uri.SecretOption(strings.ToLower(key)) && uri.KnownOption(strings.ToLower(key)) {
			continue
		}
		add(v)
		if strings.EqualFold(key, "authMechanismProperties") {
			for _, prop := range strings.Split(v, ",") {
				_, pv, _ := strings.Cut(prop, ":")
				add(pv)
			}
		}
	}
	slices.SortStableFunc(out, func(a, b string) int { return len(b) - len(a) })
	return out
}

// Text returns text with every connection string of uris shown as URI
// shows it, and every secret of theirs replaced.
func Text(text string, uris ...string) string {
	for _, u := range uris {
		if u == "" {
			continue
		}
		text = strings.ReplaceAll(text, u, URI(u))
		for _, s := range secrets(u) {
			text = strings.ReplaceAll(text, s, Redacted)
		}
	}
	return text
}

// scrubbed is an error whose message has had the secrets of its
// connection strings removed; errors.Is and errors.As still see the
// original.
type scrubbed struct {
	msg string
	err error
}

func (e *scrubbed) Error() string { return e.msg }
func (e *scrubbed) Unwrap() error { return e.err }

// Error returns err with the secrets of uris removed from its message
// (nil for nil). Every error that may come from the driver goes through
// it, or through ParseError, before it is shown.
func Error(err error, uris ...string) error {
	if err == nil {
		return nil
	}
	return &scrubbed{msg: Text(err.Error(), uris...), err: err}
}

// ParseError is Error for the driver's complaint about the connection
// string s itself: such messages quote the part they could not read, a
// piece of a password as often as not, so every quoted part is hidden
// except the name of an option s gives.
func ParseError(err error, s string) error {
	if err == nil {
		return nil
	}
	return &scrubbed{msg: hideQuoted(Text(err.Error(), s), s), err: err}
}

// hideQuoted replaces every Go-quoted string in msg, other than an option
// name of s, with a quoted Redacted.
func hideQuoted(msg, s string) string {
	var b strings.Builder
	for {
		i := strings.IndexByte(msg, '"')
		if i < 0 {
			b.WriteString(msg)
			return b.String()
		}
		b.WriteString(msg[:i])
		q, err := strconv.QuotedPrefix(msg[i:])
		if err != nil {
			b.WriteString(`"` + Redacted + `"`)
			return b.String() // an unterminated quote: hide the rest
		}
		if v, _ := strconv.Unquote(q); isOptionName(v, s) {
			b.WriteString(q)
		} else {
			b.WriteString(`"` + Redacted + `"`)
		}
		msg = msg[i+len(q):]
	}
}

func isOptionName(name, s string) bool {
	if name == "" {
		return false
	}
	_, query, _ := strings.Cut(s, "?")
	for _, p := range splitQuery(query) {
		if k, _, _ := strings.Cut(p, "="); strings.EqualFold(k, name) {
			return true
		}
	}
	return false
}

// known are the connection strings this process has been given; Writer
// keeps their secrets out of everything written through it.
var known struct {
	sync.Mutex
	uris   []string
	tokens []string // secrets that are not in a connection string: API keys
}

// RememberToken adds secrets given on their own, such as an API key's
// private part, to those Writer removes (each shown as "***").
func RememberToken(tokens ...string) {
	known.Lock()
	defer known.Unlock()
	for _, t := range tokens {
		if len(t) >= 4 && !slices.Contains(known.tokens, t) {
			known.tokens = append(known.tokens, t)
		}
	}
}

// Remember adds connection strings to those whose secrets Writer removes.
// Anything that reads a connection string from the user remembers it.
func Remember(uris ...string) {
	known.Lock()
	defer known.Unlock()
	for _, u := range uris {
		if strings.Contains(u, "://") && !slices.Contains(known.uris, u) {
			known.uris = append(known.uris, u)
		}
	}
}

func remembered() []string {
	known.Lock()
	defer known.Unlock()
	return slices.Clone(known.uris)
}

// Writer passes what is written to it on to its writer with the secrets of
// every remembered connection string removed: the last line of defence
// for output, behind URI and Error at each place a string is made.
type Writer struct{ w io.Writer }

// NewWriter returns a Writer writing to w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write writes p without secrets and reports p as written.
func (sw *Writer) Write(p []byte) (int, error) {
	uris := remembered()
	known.Lock()
	tokens := slices.Clone(known.tokens)
	known.Unlock()
	if len(uris) == 0 && len(tokens) == 0 {
		return sw.w.Write(p)
	}
	out := Text(string(p), uris...)
	for _, t := range tokens {
		out = strings.ReplaceAll(out, t, "***")
	}
	if _, err := sw.w.Write([]byte(out)); err != nil {
		return 0, err
	}
	return len(p), nil
}
