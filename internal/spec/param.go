package spec

import (
	"cmp"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// ParamKind is the type of a workload parameter.
type ParamKind int

// Parameter kinds. The comment names the Go type a validated value has in
// Params.
const (
	KindInt      ParamKind = iota + 1 // int64
	KindFloat                         // float64
	KindPercent                       // float64 between 0 and 100; text may end in "%"
	KindSize                          // Size
	KindDuration                      // Duration
	KindBool                          // bool; true/false, yes/no, on/off, 1/0
	KindString                        // string
	KindEnum                          // string, one of ParamSpec.Values
)

var kindNames = map[ParamKind]string{
	KindInt: "int", KindFloat: "float", KindPercent: "percent", KindSize: "size",
	KindDuration: "duration", KindBool: "bool", KindString: "string", KindEnum: "enum",
}

func (k ParamKind) String() string {
	if n, ok := kindNames[k]; ok {
		return n
	}
	return "ParamKind(" + strconv.Itoa(int(k)) + ")"
}

// ParamSpec declares one workload parameter. A workload declares its
// parameters as a []ParamSpec; scenario files ("params:") and "-p
// name=value" flags are checked against them.
type ParamSpec struct {
	Name    string
	Kind    ParamKind
	Default string   // text form, such as "1KB"; empty means zero, or the first of Values for KindEnum
	Min     string   // optional inclusive lower bound in text form; numeric kinds only
	Max     string   // optional inclusive upper bound in text form; numeric kinds only
	Values  []string // the choices of a KindEnum parameter
	Help    string   // one line for command-line help
}

// Params holds validated parameter values by name: int64, float64, Size,
// Duration, bool or string, as the parameter's Kind says.
type Params map[string]any

// Int returns an int parameter. The accessors return the zero value for a
// missing parameter and panic when the parameter has another type, which is
// a bug in the workload's declaration.
func (ps Params) Int(name string) int64 { return get[int64](ps, name) }

// Float returns a float or percent parameter.
func (ps Params) Float(name string) float64 { return get[float64](ps, name) }

// Size returns a size parameter.
func (ps Params) Size(name string) Size { return get[Size](ps, name) }

// Duration returns a duration parameter.
func (ps Params) Duration(name string) Duration { return get[Duration](ps, name) }

// Bool returns a bool parameter.
func (ps Params) Bool(name string) bool { return get[bool](ps, name) }

// String returns a string or enum parameter.
func (ps Params) String(name string) string { return get[string](ps, name) }

func get[T any](ps Params, name string) T {
	var zero T
	v, ok := ps[name]
	if !ok {
		return zero
	}
	t, ok := v.(T)
	if !ok {
		panic(fmt.Sprintf("spec: parameter %q holds %T, not %T", name, v, zero))
	}
	return t
}

// ParseParam reads a "-p name=value" assignment for a workload and returns
// the parameter's name and validated value.
func ParseParam(reg Registry, workload, assignment string) (name string, value any, err error) {
	name, text, ok := strings.Cut(assignment, "=")
	name = strings.TrimSpace(name)
	if !ok || name == "" {
		return "", nil, &Error{Field: "-p", Value: assignment, Want: "name=value, such as records=10000"}
	}
	specs, ok := paramSpecs(reg, workload)
	if !ok {
		e := workloadError(reg, workload)
		e.Field = "-p " + name
		return "", nil, e
	}
	p, ok := findParam(specs, name)
	if !ok {
		return "", nil, &Error{Field: "-p", Problem: unknownKey(workload+" parameter", name, paramNames(specs))}
	}
	v, e := p.parse(text)
	if e != nil {
		e.Field = "-p " + name
		return "", nil, e
	}
	return name, v, nil
}

// CheckParamSpecs reports mistakes in a workload's parameter declarations:
// empty, duplicate or malformed names, unknown kinds, enums without values,
// and defaults or bounds that do not parse or lie outside the bounds.
// Workload tests call it on every declaration.
func CheckParamSpecs(specs []ParamSpec) error {
	var errs []*Error
	seen := map[string]bool{}
	for _, p := range specs {
		bad := func(format string, args ...any) {
			errs = append(errs, &Error{Field: "param " + strconv.Quote(p.Name), Problem: fmt.Sprintf(format, args...)})
		}
		switch {
		case p.Name == "" || strings.ContainsAny(p.Name, "= \t.$"):
			bad("the name must be non-empty, without spaces, '=', '.' or '$'")
		case seen[p.Name]:
			bad("the name is declared twice")
		}
		seen[p.Name] = true
		if _, ok := kindNames[p.Kind]; !ok {
			bad("unknown kind %v", p.Kind)
			continue
		}
		if p.Kind == KindEnum && len(p.Values) == 0 {
			bad("an enum needs Values")
			continue
		}
		if msg := p.checkLimits(); msg != "" {
			bad("%s", msg)
			continue
		}
		if _, err := p.defaultValue(); err != nil {
			bad("default %q is not valid: want %s", p.Default, p.want(p.Default))
		}
	}
	return joinErrors(errs)
}

func (p ParamSpec) checkLimits() string {
	if !p.numeric() {
		if p.Min != "" || p.Max != "" {
			return "Min and Max apply to numeric kinds only"
		}
		return ""
	}
	lo, hasLo, err1 := p.bound(p.Min)
	hi, hasHi, err2 := p.bound(p.Max)
	switch {
	case err1 != nil:
		return fmt.Sprintf("min %q is not a valid %v", p.Min, p.Kind)
	case err2 != nil:
		return fmt.Sprintf("max %q is not a valid %v", p.Max, p.Kind)
	case hasLo && hasHi && compare(lo, hi) > 0:
		return "min is greater than max"
	}
	return ""
}

func (p ParamSpec) numeric() bool {
	return p.Kind == KindInt || p.Kind == KindFloat || p.Kind == KindPercent || p.Kind == KindSize || p.Kind == KindDuration
}

// parse converts text to the parameter's type and checks its range.
func (p ParamSpec) parse(text string) (any, *Error) {
	v, e := p.convert(text)
	if e != nil {
		return nil, e
	}
	if v, e = p.check(v); e != nil {
		e.Value = text
	}
	return v, e
}

// defaultValue returns the parameter's validated default.
func (p ParamSpec) defaultValue() (any, *Error) {
	if p.Default == "" {
		return p.check(p.zero())
	}
	return p.parse(p.Default)
}

func (p ParamSpec) zero() any {
	switch p.Kind {
	case KindInt:
		return int64(0)
	case KindFloat, KindPercent:
		return 0.0
	case KindSize:
		return Size(0)
	case KindDuration:
		return Duration(0)
	case KindBool:
		return false
	case KindEnum:
		if len(p.Values) > 0 {
			return p.Values[0]
		}
	}
	return ""
}

// convert reads text as the parameter's type, without checking its range.
func (p ParamSpec) convert(text string) (any, *Error) {
	v, ok := p.convertText(strings.TrimSpace(text))
	if !ok {
		return nil, invalid(text, p.want(text))
	}
	return v, nil
}

func (p ParamSpec) convertText(t string) (any, bool) {
	switch p.Kind {
	case KindInt:
		return parseInt(t)
	case KindFloat:
		return parseDecimal(t)
	case KindPercent:
		return parseDecimal(strings.TrimSpace(strings.TrimSuffix(t, "%")))
	case KindSize:
		v, err := ParseSize(t)
		return v, err == nil
	case KindDuration:
		v, err := ParseDuration(t)
		return v, err == nil
	case KindBool:
		v, ok := bools[strings.ToLower(t)]
		return v, ok
	case KindEnum:
		for _, c := range p.Values {
			if strings.EqualFold(c, t) {
				return c, true
			}
		}
		return nil, false
	case KindString:
		return t, true
	}
	return nil, false
}

var bools = map[string]bool{
	"true": true, "yes": true, "on": true, "1": true,
	"false": false, "no": false, "off": false, "0": false,
}

// check brings a value to the parameter's Go type and checks its range.
// Text is parsed; plain Go numbers (int, time.Duration, ...) are converted.
func (p ParamSpec) check(v any) (any, *Error) {
	if t, ok := v.(string); ok && p.Kind != KindString && p.Kind != KindEnum {
		return p.parse(t)
	}
	c, ok := p.coerce(v)
	if t, isText := v.(string); !ok && isText {
		return nil, invalid(t, p.want(t))
	}
	if !ok {
		return nil, &Error{Problem: fmt.Sprintf("a value of Go type %T is not valid", v), Want: p.want("")}
	}
	if !p.inRange(c) {
		return nil, invalid(formatValue(c), p.want(""))
	}
	return c, nil
}

func (p ParamSpec) coerce(v any) (any, bool) {
	switch p.Kind {
	case KindInt:
		switch x := v.(type) {
		case int64:
			return x, true
		case int:
			return int64(x), true
		}
	case KindFloat, KindPercent:
		switch x := v.(type) {
		case float64:
			return x, true
		case int:
			return float64(x), true
		case int64:
			return float64(x), true
		}
	case KindSize:
		switch x := v.(type) {
		case Size:
			return x, true
		case int:
			return Size(x), true
		case int64:
			return Size(x), true
		}
	case KindDuration:
		switch x := v.(type) {
		case Duration:
			return x, true
		case time.Duration:
			return Duration(x), true
		}
	case KindBool:
		x, ok := v.(bool)
		return x, ok
	case KindString:
		x, ok := v.(string)
		return x, ok
	case KindEnum:
		if x, ok := v.(string); ok {
			return p.convertText(strings.TrimSpace(x))
		}
	}
	return nil, false
}

func (p ParamSpec) inRange(v any) bool {
	if !p.numeric() {
		return true
	}
	if !naturalRange(p.Kind, v) {
		return false
	}
	lo, hasLo, err1 := p.bound(p.Min)
	hi, hasHi, err2 := p.bound(p.maxText())
	return (err1 != nil || !hasLo || compare(v, lo) >= 0) && (err2 != nil || !hasHi || compare(v, hi) <= 0)
}

// naturalRange reports whether v is within the range every parameter of
// the kind has: finite numbers, non-negative sizes and durations, and
// percentages from 0 to 100.
func naturalRange(k ParamKind, v any) bool {
	switch x := v.(type) {
	case float64:
		return !math.IsNaN(x) && !math.IsInf(x, 0) && (k != KindPercent || x >= 0 && x <= 100)
	case Size:
		return x >= 0
	case Duration:
		return x >= 0
	}
	return true
}

// bound converts a Min or Max text; has is false when it is empty.
func (p ParamSpec) bound(text string) (v any, has bool, err *Error) {
	if text == "" {
		return nil, false, nil
	}
	v, err = p.convert(text)
	return v, err == nil, err
}

func compare(a, b any) int {
	switch x := a.(type) {
	case int64:
		return cmp.Compare(x, b.(int64))
	case float64:
		return cmp.Compare(x, b.(float64))
	case Size:
		return cmp.Compare(x, b.(Size))
	case Duration:
		return cmp.Compare(x, b.(Duration))
	}
	return 0
}

// want describes the valid values; given is the value to suggest a
// correction for.
func (p ParamSpec) want(given string) string {
	switch p.Kind {
	case KindInt:
		return "an integer" + p.rangeText("", "")
	case KindFloat:
		return "a number" + p.rangeText("", "")
	case KindPercent:
		return "a percentage" + p.rangeText("0", "100") + ", such as 95"
	case KindSize:
		return "a size" + p.rangeText("", "") + ", such as 512, 4KB or 2MB (1KB = 1024 bytes)"
	case KindDuration:
		return "a duration" + p.rangeText("0s", "") + ", such as 90s, 500ms or 45 (seconds)"
	case KindBool:
		return "true or false"
	case KindEnum:
		return oneOf(given, p.Values)
	}
	return "text"
}

// rangeText says " between MIN and MAX", " >= MIN" or " <= MAX", with
// implicit bounds filling in for missing ones.
func (p ParamSpec) rangeText(implicitMin, implicitMax string) string {
	lo, hi := cmp.Or(p.Min, implicitMin), cmp.Or(p.maxText(), implicitMax)
	switch {
	case lo != "" && hi != "":
		return " between " + lo + " and " + hi
	case lo != "":
		return " >= " + lo
	case hi != "":
		return " <= " + hi
	}
	return ""
}

func formatValue(v any) string {
	switch x := v.(type) {
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case fmt.Stringer:
		return x.String()
	}
	return fmt.Sprint(v)
}

func findParam(specs []ParamSpec, name string) (ParamSpec, bool) {
	for _, p := range specs {
		if p.Name == name {
			return p, true
		}
	}
	return ParamSpec{}, false
}

func paramNames(specs []ParamSpec) []string {
	names := make([]string, len(specs))
	for i, p := range specs {
		names[i] = p.Name
	}
	return names
}
