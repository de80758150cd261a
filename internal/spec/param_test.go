package spec

import (
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestParseParam(t *testing.T) {
	good := []struct {
		in   string
		name string
		want any
	}{
		{"records=10000", "records", int64(10000)},
		{"records=1e6", "records", int64(1000000)},
		{" records = 5 ", "records", int64(5)},
		{"docSize=4KB", "docSize", 4 * KB},
		{"readPercent=95", "readPercent", 95.0},
		{"readPercent=99.5%", "readPercent", 99.5},
		{"mode=UPSERT", "mode", "upsert"},
		{"think=500ms", "think", Duration(500 * time.Millisecond)},
		{"think=2", "think", Duration(2 * time.Second)},
		{"ordered=no", "ordered", false},
		{"skew=1.2", "skew", 1.2},
		{"collection=a=b", "collection", "a=b"},
	}
	for _, tc := range good {
		name, v, err := ParseParam(testReg, "kv", tc.in)
		if err != nil || name != tc.name || !reflect.DeepEqual(v, tc.want) {
			t.Errorf("ParseParam(%q) = %q, %#v, %v; want %q, %#v", tc.in, name, v, err, tc.name, tc.want)
		}
	}
	bad := []struct{ workload, in, want string }{
		{"kv", "records", `-p: "records" is not valid: want name=value`},
		{"kv", "=5", `-p: "=5" is not valid`},
		{"kv", "records=0", `-p records: "0" is not valid: want an integer between 1 and 100000000`},
		{"kv", "records=1.5", `-p records: "1.5" is not valid: want an integer between 1 and 100000000`},
		{"kv", "records=abc", `want an integer`},
		{"kv", "docSize=8B", `-p docSize: "8B" is not valid: want a size between 16B and 16MB`},
		{"kv", "readPercent=101", `-p readPercent: "101" is not valid: want a percentage between 0 and 100`},
		{"kv", "readPercent=-1", `want a percentage between 0 and 100`},
		{"kv", "mode=upsret", `-p mode: "upsret" is not valid: want one of insert, upsert (did you mean "upsert"?)`},
		{"kv", "think=2m", `want a duration between 0s and 1m`},
		{"kv", "ordered=maybe", `want true or false`},
		{"kv", "skew=-1", `want a number between 0 and 1e12`},
		{"kv", "recrods=5", `-p: unknown kv parameter "recrods" (did you mean "records"? valid kv parameters: records, docSize`},
		{"ycsb", "records=5", `unknown ycsb parameter "records" (valid ycsb parameters: none)`},
		{"kvv", "records=5", `-p records: "kvv" is not valid: want one of kv, ycsb (did you mean "kv"?)`},
		{"", "records=5", `-p records: no workload is given: want one of kv, ycsb`},
	}
	for _, tc := range bad {
		_, _, err := ParseParam(testReg, tc.workload, tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseParam(%q, %q) error = %v; want it to contain %q", tc.workload, tc.in, err, tc.want)
		}
	}
}

func TestCheckParamSpecs(t *testing.T) {
	if err := CheckParamSpecs(testReg["kv"]); err != nil {
		t.Errorf("CheckParamSpecs(kv) = %v; want nil", err)
	}
	bad := []struct {
		spec ParamSpec
		want string
	}{
		{ParamSpec{Kind: KindInt}, "the name must be non-empty"},
		{ParamSpec{Name: "a.b", Kind: KindInt}, "the name must be non-empty"},
		{ParamSpec{Name: "x"}, "unknown kind ParamKind(0)"},
		{ParamSpec{Name: "x", Kind: KindEnum}, "an enum needs Values"},
		{ParamSpec{Name: "x", Kind: KindInt, Min: "abc"}, `min "abc" is not a valid int`},
		{ParamSpec{Name: "x", Kind: KindSize, Max: "1XB"}, `max "1XB" is not a valid size`},
		{ParamSpec{Name: "x", Kind: KindInt, Min: "5", Max: "1"}, "min is greater than max"},
		{ParamSpec{Name: "x", Kind: KindBool, Min: "1"}, "numeric kinds only"},
		{ParamSpec{Name: "x", Kind: KindInt, Min: "1"}, `default "" is not valid: want an integer between 1 and 1e12`},
		{ParamSpec{Name: "x", Kind: KindPercent, Default: "150"}, `default "150" is not valid`},
		{ParamSpec{Name: "x", Kind: KindEnum, Values: []string{"a"}, Default: "b"}, `default "b" is not valid: want one of a`},
	}
	for _, tc := range bad {
		err := CheckParamSpecs([]ParamSpec{tc.spec})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("CheckParamSpecs(%+v) = %v; want it to contain %q", tc.spec, err, tc.want)
		}
	}
	dup := []ParamSpec{{Name: "x", Kind: KindInt}, {Name: "x", Kind: KindInt}}
	if err := CheckParamSpecs(dup); err == nil || !strings.Contains(err.Error(), "declared twice") {
		t.Errorf("CheckParamSpecs(duplicate) = %v; want 'declared twice'", err)
	}
}

func TestParamsAccessors(t *testing.T) {
	ps := Params{"n": int64(3), "f": 0.5, "s": 4 * KB, "d": Duration(time.Second), "b": true, "t": "x"}
	if ps.Int("n") != 3 || ps.Float("f") != 0.5 || ps.Size("s") != 4096 || ps.Duration("d") != Duration(time.Second) || !ps.Bool("b") || ps.String("t") != "x" {
		t.Errorf("accessors on %v returned wrong values", ps)
	}
	if ps.Int("missing") != 0 || ps.String("missing") != "" {
		t.Errorf("accessors for a missing name returned non-zero values")
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(r.(string), `parameter "t" holds string, not int64`) {
			t.Errorf("Int on a string parameter: got panic %v; want a type panic", r)
		}
	}()
	ps.Int("t")
}

func TestParamKindString(t *testing.T) {
	if got := KindPercent.String(); got != "percent" {
		t.Errorf("KindPercent.String() = %q; want percent", got)
	}
}
