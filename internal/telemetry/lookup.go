package telemetry

import "strings"

// Lookup returns the number at a dotted path in a serverStatus document,
// and whether it is there. Keys may themselves contain dots or spaces
// ("wiredTiger.cache.tracked dirty bytes in the cache"): at each level the
// longest key that matches a prefix of the remaining path is tried first.
// Integers, floats and booleans (as 1 or 0) count as numbers.
func Lookup(doc map[string]any, path string) (float64, bool) {
	v, ok := lookupValue(doc, path)
	if !ok {
		return 0, false
	}
	return number(v)
}

// lookupValue finds the value at path, backtracking over the ways the path
// can be split into keys.
func lookupValue(doc map[string]any, path string) (any, bool) {
	if v, ok := doc[path]; ok {
		return v, true
	}
	for i := strings.LastIndexByte(path, '.'); i > 0; i = strings.LastIndexByte(path[:i], '.') {
		sub, ok := doc[path[:i]].(map[string]any)
		if !ok {
			continue
		}
		if v, ok := lookupValue(sub, path[i+1:]); ok {
			return v, true
		}
	}
	return nil, false
}

// number converts a plain numeric value to float64.
func number(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int64:
		return float64(n), true
	case int32:
		return float64(n), true
	case int:
		return float64(n), true
	case float32:
		return float64(n), true
	case bool:
		if n {
			return 1, true
		}
		return 0, true
	}
	return 0, false
}
