package study

import (
	"fmt"
	"reflect"
	"strconv"
	"strings"
)

// ptr formats an optional number for messages.
func ptr(p *float64) string {
	if p == nil {
		return "nil"
	}
	return strconv.FormatFloat(*p, 'g', -1, 64)
}

// show formats a struct with its pointer fields dereferenced.
func show(v any) string {
	rv := reflect.ValueOf(v)
	var parts []string
	for i := range rv.NumField() {
		fv := rv.Field(i)
		s := fmt.Sprint(fv.Interface())
		if p, ok := fv.Interface().(*float64); ok {
			s = ptr(p)
		}
		parts = append(parts, rv.Type().Field(i).Name+":"+s)
	}
	return "{" + strings.Join(parts, " ") + "}"
}
