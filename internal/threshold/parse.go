package threshold

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
)

// Kind is the figure a threshold bounds.
type Kind int

// The kinds of figure.
const (
	Latency     Kind = iota // a latency statistic, from intended start (ms)
	Service                 // a service-time statistic, from send (ms)
	Errors                  // failed operations: a count or a share of completed ones
	Rate                    // the achieved rate: ops/s, or a share of the target
	ClientBound             // the client-bound verdict
	ServerBound             // the server-bound verdict
	Throughput              // the achieved rate in ops/s, or its change against a baseline
	Headroom                // the share of a capacity plan candidate's throughput left at a stage's demand
)

// Unit is what a threshold's limit and measured value are in.
type Unit string

// The units.
const (
	Millis  Unit = "ms"
	Count   Unit = "errors"
	Percent Unit = "%"
	PerSec  Unit = "ops/s"
	Bool    Unit = "bool"
)

// Cmp is a comparison.
type Cmp string

// The comparisons.
const (
	LT Cmp = "<"
	LE Cmp = "<="
	GT Cmp = ">"
	GE Cmp = ">="
	EQ Cmp = "=="
	NE Cmp = "!="
)

var cmps = []Cmp{LT, LE, GT, GE, EQ, NE}

// Error classes an errors threshold may name, as stored in ops[].errors.
var classes = []string{"timeout", "network", "writeConflict", "duplicateKey", "overload", "other"}

// Threshold is one parsed threshold expression.
type Threshold struct {
	Text string // as given, trimmed
	Kind Kind
	// Stat names a latency statistic: "p99", "p99.9", "min", "mean",
	// "max"; Pct is its percentile (0 for min and mean, 100 for max).
	Stat string
	Pct  float64
	// Op is the operation type named in parentheses; "" is every type
	// (latency, service time) or all operations (errors).
	Op string
	// Class is the error class an errors threshold counts; "" is every
	// class.
	Class string
	Cmp   Cmp
	Limit float64 // in Unit; a Bool limit is 1 (true) or 0 (false)
	Unit  Unit
	// Relative says the limit is a change against a baseline's figure,
	// in percent (+5 is 5% above it, -10 is 10% below): a latency,
	// service-time or throughput bound written with a sign, such as
	// "p95(READ) <= +5%". Only a capacity plan has a baseline.
	Relative bool
}

// Bounds: an expression is at most MaxLen bytes, and a run is judged on
// at most MaxCount thresholds.
const (
	MaxLen   = 256
	MaxCount = 64
)

// Grammar is the threshold grammar in one line, for messages and help.
const Grammar = `METRIC CMP VALUE, e.g. "p99(READ) < 5ms", "svc.p50 <= 1ms", "errors < 0.1%", "errors(timeout) < 1", "rate >= 99%", "clientbound == false", "p95(READ) <= +5%"`

const (
	wantMetric = "a metric: pN[(OP)] such as p99 or p99.9(READ), min, mean, max, svc.pN[(OP)] (service time), errors[(CLASS or OP)], rate, throughput, headroom, clientbound or serverbound"
	wantCmp    = "one of <, <=, >, >=, ==, !="
)

// Error is a threshold that cannot be parsed: the expression, the word at
// fault and its column (1-based), and what would be valid there.
type Error struct {
	Expr   string
	Column int
	Word   string // "" at the end of the expression
	Want   string
}

func (e *Error) Error() string {
	where := "at the end"
	if e.Word != "" {
		where = fmt.Sprintf("%q at column %d", e.Word, e.Column)
	}
	return fmt.Sprintf("threshold %q: %s: want %s", e.Expr, where, e.Want)
}

// token is one word, operator or parenthesis of an expression.
type token struct {
	text string
	col  int // 1-based, in runes
}

// tokens splits an expression into words (letters, digits and . _ % / µ
// + -), comparison operators (runs of < > = !) and parentheses.
func tokens(s string) ([]token, *token) {
	var out []token
	rs := []rune(s)
	for i := 0; i < len(rs); {
		r := rs[i]
		switch {
		case unicode.IsSpace(r):
			i++
		case r == '(' || r == ')':
			out = append(out, token{string(r), i + 1})
			i++
		case strings.ContainsRune("<>=!", r):
			j := i
			for j < len(rs) && strings.ContainsRune("<>=!", rs[j]) {
				j++
			}
			out = append(out, token{string(rs[i:j]), i + 1})
			i = j
		case isWord(r):
			j := i
			for j < len(rs) && isWord(rs[j]) {
				j++
			}
			out = append(out, token{string(rs[i:j]), i + 1})
			i = j
		default:
			return nil, &token{string(r), i + 1}
		}
	}
	return out, nil
}

func isWord(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || strings.ContainsRune("._%/+-", r)
}

// Parse reads one threshold expression:
//
//	METRIC CMP VALUE
//	METRIC := [svc.]STAT[(OPTYPE)] | errors[(CLASS|OPTYPE)] | rate | throughput
//	          | headroom | clientbound | serverbound
//	STAT   := pN (p50, p95, p99, p99.9; p999 is p99.9) | min | mean | max
//	CMP    := < | <= | > | >= | == | !=
//	VALUE  := a duration (500us, 5ms, 1s) for a statistic, or a signed
//	          change against the baseline's (+5%, -10%); a count (5) or
//	          a percentage of completed operations (0.1%) for errors; a
//	          percentage of the target rate (99%) or ops/s (1000/s) for
//	          rate; ops/s (1000/s) or a signed change against the
//	          baseline's (-10%) for throughput; a percentage (20%) for
//	          headroom; true or false for clientbound and serverbound
//
// Names are case-insensitive; spaces between the parts are optional. A
// capacity plan's constraints are written in the same grammar, and the
// operation type may follow a statistic or errors as a word of its own:
// "p95 READ <= +5%" is "p95(READ) <= +5%".
func Parse(expr string) (Threshold, error) {
	t := Threshold{Text: strings.TrimSpace(expr)}
	if len(t.Text) > MaxLen {
		return Threshold{}, fmt.Errorf("threshold %q: %d bytes: want at most %d", t.Text[:40]+"...", len(t.Text), MaxLen)
	}
	toks, bad := tokens(t.Text)
	fail := func(tok *token, want string) (Threshold, error) {
		e := &Error{Expr: t.Text, Want: want}
		if tok != nil {
			e.Word, e.Column = tok.text, tok.col
		}
		return Threshold{}, e
	}
	if bad != nil {
		return fail(bad, Grammar)
	}
	at := func(i int) *token {
		if i < len(toks) {
			return &toks[i]
		}
		return nil
	}
	if len(toks) == 0 || !isWord([]rune(toks[0].text)[0]) {
		return fail(at(0), wantMetric)
	}
	if err := t.metric(toks[0].text); err != "" {
		return fail(at(0), err)
	}
	i := 1
	if tok := at(i); tok != nil && tok.text == "(" {
		arg, close := at(i+1), at(i+2)
		switch {
		case !t.takesArgument():
			return fail(tok, wantCmp+" ("+toks[0].text+" takes no operation type)")
		case arg == nil || !isWord([]rune(arg.text)[0]):
			return fail(arg, t.wantArgument())
		case close == nil || close.text != ")":
			return fail(close, `")"`)
		}
		t.argument(arg.text)
		i += 3
	} else if tok != nil && t.takesArgument() && isWord([]rune(tok.text)[0]) && !isCmp(tok.text) {
		t.argument(tok.text) // the plan file's form: "p95 READ <= +5%"
		i++
	}
	op := at(i)
	if op == nil || !isCmp(op.text) {
		return fail(op, wantCmp)
	}
	t.Cmp = Cmp(op.text)
	val := at(i + 1)
	if val == nil || !isWord([]rune(val.text)[0]) {
		return fail(val, t.wantValue())
	}
	if !t.value(val.text) {
		return fail(val, t.wantValue())
	}
	if extra := at(i + 2); extra != nil {
		return fail(extra, "nothing after the value")
	}
	return t, nil
}

func isCmp(s string) bool {
	for _, c := range cmps {
		if string(c) == s {
			return true
		}
	}
	return false
}

// metric reads the metric word; it returns what would be valid when it
// is not one.
func (t *Threshold) metric(word string) string {
	w := strings.ToLower(word)
	switch w {
	case "errors":
		t.Kind = Errors
		return ""
	case "rate":
		t.Kind = Rate
		return ""
	case "clientbound":
		t.Kind, t.Unit = ClientBound, Bool
		return ""
	case "serverbound":
		t.Kind, t.Unit = ServerBound, Bool
		return ""
	case "throughput":
		t.Kind, t.Unit = Throughput, PerSec
		return ""
	case "headroom":
		t.Kind, t.Unit = Headroom, Percent
		return ""
	}
	t.Kind = Latency
	if rest, ok := strings.CutPrefix(w, "svc."); ok {
		t.Kind, w = Service, rest
	}
	t.Unit = Millis
	switch w {
	case "min", "mean", "max":
		t.Stat = w
		if w == "max" {
			t.Pct = 100
		}
		return ""
	case "p999":
		t.Stat, t.Pct = "p99.9", 99.9
		return ""
	}
	n, ok := strings.CutPrefix(w, "p")
	if !ok {
		return wantMetric
	}
	p, err := strconv.ParseFloat(n, 64)
	if err != nil || strings.ContainsAny(n, "eE+-") || p <= 0 || p > 100 || math.IsNaN(p) {
		return "a percentile above p0 and up to p100, such as p50, p99 or p99.9 (min for the smallest value), or " + wantMetric
	}
	t.Stat, t.Pct = "p"+strconv.FormatFloat(p, 'f', -1, 64), p
	return ""
}

// takesArgument reports whether t's metric takes an operation type (or
// an error class).
func (t *Threshold) takesArgument() bool {
	return t.Kind == Latency || t.Kind == Service || t.Kind == Errors
}

// argument reads the word in parentheses: an error class for errors when
// it names one, else an operation type.
func (t *Threshold) argument(word string) {
	if t.Kind == Errors {
		for _, c := range classes {
			if strings.EqualFold(c, word) {
				t.Class = c
				return
			}
		}
	}
	t.Op = word
}

// wantArgument says what may stand in parentheses after t's metric.
func (t *Threshold) wantArgument() string {
	if t.Kind == Errors {
		return "an error class (" + strings.Join(classes, ", ") + ") or an operation type such as READ"
	}
	return "an operation type such as READ"
}

// wantValue says what the value of t's metric may be.
func (t *Threshold) wantValue() string {
	switch t.Kind {
	case Errors:
		return "a count such as 0 or 10, or a percentage of completed operations such as 0.1%"
	case Rate:
		return "a percentage of the target rate such as 99%, or a rate such as 1000/s"
	case ClientBound, ServerBound:
		return "true or false"
	case Throughput:
		return "a rate such as 1000/s, or a change against the baseline such as -10%"
	case Headroom:
		return "a percentage of the throughput such as 20%"
	}
	return "a duration such as 500us, 5ms or 1s"
}

// value reads the limit.
func (t *Threshold) value(word string) bool {
	switch t.Kind {
	case ClientBound, ServerBound:
		switch strings.ToLower(word) {
		case "true":
			t.Limit = 1
		case "false":
			t.Limit = 0
		default:
			return false
		}
		return true
	case Errors:
		if n, ok := strings.CutSuffix(word, "%"); ok {
			t.Unit = Percent
			return number(n, &t.Limit) && t.Limit <= 100
		}
		t.Unit = Count
		return number(word, &t.Limit)
	case Rate:
		if n, ok := strings.CutSuffix(word, "%"); ok {
			t.Unit = Percent
			return number(n, &t.Limit)
		}
		n, ok := strings.CutSuffix(word, "/s")
		t.Unit = PerSec
		return ok && number(n, &t.Limit)
	case Throughput:
		if strings.HasSuffix(word, "%") {
			return t.relative(word)
		}
		n, ok := strings.CutSuffix(word, "/s")
		return ok && number(n, &t.Limit)
	case Headroom:
		n, ok := strings.CutSuffix(word, "%")
		return ok && number(n, &t.Limit) && t.Limit < 100
	}
	if strings.HasSuffix(word, "%") {
		return t.relative(word)
	}
	if !strings.ContainsFunc(word, unicode.IsLetter) {
		return false // a bare number: the unit is not guessed
	}
	d, err := time.ParseDuration(word)
	if err != nil || d < 0 {
		return false
	}
	t.Limit = float64(d) / float64(time.Millisecond)
	return true
}

// relative reads a change against the baseline, in percent: a sign and a
// number ("+5%", "-10%"), or "0%".
func (t *Threshold) relative(word string) bool {
	n := strings.TrimSuffix(word, "%")
	sign := 1.0
	switch {
	case strings.HasPrefix(n, "+"):
		n = n[1:]
	case strings.HasPrefix(n, "-"):
		n, sign = n[1:], -1
	case n != "0":
		return false // a share would read as a limit of its own: the sign says it is a change
	}
	if !number(n, &t.Limit) || sign < 0 && t.Limit >= 100 {
		return false
	}
	t.Limit *= sign
	t.Relative = true
	return true
}

// number reads a finite number >= 0 written in decimal.
func number(s string, dst *float64) bool {
	if s == "" || strings.ContainsAny(s, "eExXpP_+-") {
		return false
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return false
	}
	*dst = v
	return true
}

// String returns the expression as given.
func (t Threshold) String() string { return t.Text }

// ForOp returns t bounding the one operation type op, when t bounds a
// statistic of every type; its text names the type after the metric, as
// in "p95 READ <= +5%" for "p95 <= +5%". Any other threshold is returned
// as it is.
func (t Threshold) ForOp(op string) Threshold {
	if t.Op != "" || t.Kind != Latency && t.Kind != Service {
		return t
	}
	toks, bad := tokens(t.Text)
	if bad != nil || len(toks) == 0 {
		return t
	}
	word := toks[0].text
	t.Op, t.Text = op, word+" "+op+t.Text[len(word):]
	return t
}

// ParseAll parses every expression, naming the first that fails; more
// than MaxCount are refused.
func ParseAll(exprs []string) ([]Threshold, error) {
	if len(exprs) > MaxCount {
		return nil, fmt.Errorf("%d thresholds: want at most %d", len(exprs), MaxCount)
	}
	out := make([]Threshold, 0, len(exprs))
	for _, e := range exprs {
		t, err := Parse(e)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, nil
}
