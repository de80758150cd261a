package template

import (
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Lookup finds a column in an output document: as a top-level field
// first, since names may contain dots; failing that, as a dotted path
// through nested documents. ok says whether the field is present (it may
// be null).
func Lookup(doc map[string]any, column string) (v any, ok bool) {
	if v, ok := doc[column]; ok {
		return v, true
	}
	if !strings.Contains(column, ".") {
		return nil, false
	}
	var cur any = doc
	for _, part := range strings.Split(column, ".") {
		m, isMap := cur.(map[string]any)
		if !isMap {
			return nil, false
		}
		if cur, ok = m[part]; !ok {
			return nil, false
		}
	}
	return cur, true
}

// FormatValue prints a value for a cell: nil as empty, numbers plainly,
// times in RFC 3339, documents and arrays as JSON.
func FormatValue(v any) string {
	if f, ok := number(v); ok {
		return formatNumber(v, f)
	}
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case bool:
		return strconv.FormatBool(x)
	case time.Time:
		return x.UTC().Format(time.RFC3339Nano)
	case map[string]any, []any:
		b, err := json.Marshal(x)
		if err == nil {
			return string(b)
		}
	}
	return fmt.Sprint(v)
}

// number converts Go's numeric types to float64.
func number(v any) (float64, bool) {
	switch x := v.(type) {
	case int:
		return float64(x), true
	case int32:
		return float64(x), true
	case int64:
		return float64(x), true
	case uint32:
		return float64(x), true
	case uint64:
		return float64(x), true
	case float32:
		return float64(x), true
	case float64:
		return x, true
	}
	return 0, false
}

// formatNumber prints integers whole and floats to 6 significant digits
// (never fewer than the integer part needs), without an exponent unless
// the magnitude is extreme.
func formatNumber(v any, f float64) string {
	switch x := v.(type) {
	case int:
		return strconv.Itoa(x)
	case int32:
		return strconv.FormatInt(int64(x), 10)
	case int64:
		return strconv.FormatInt(x, 10)
	case uint32:
		return strconv.FormatUint(uint64(x), 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	}
	return formatFloat(f)
}

func formatFloat(f float64) string {
	switch {
	case math.IsNaN(f) || math.IsInf(f, 0):
		return strconv.FormatFloat(f, 'g', -1, 64)
	case f == 0:
		return "0"
	}
	mag := math.Abs(f)
	if mag >= 1e21 || mag < 1e-6 {
		return strconv.FormatFloat(f, 'g', 6, 64)
	}
	digits := int(math.Floor(math.Log10(mag))) + 1 // digits before the point
	decimals := max(0, 6-digits)
	s := strconv.FormatFloat(f, 'f', decimals, 64)
	if strings.Contains(s, ".") {
		s = strings.TrimRight(strings.TrimRight(s, "0"), ".")
	}
	if s == "-0" {
		return "0"
	}
	return s
}
