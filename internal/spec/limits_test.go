package spec

import (
	"bytes"
	"flag"
	"os"
	"strings"
	"testing"
)

// boundsReg declares parameters as the built-in workloads do: counts
// without a maximum of their own, sizes with one.
var boundsReg = MapRegistry{
	"kv": {
		{Name: "records", Kind: KindInt, Default: "1000", Min: "1"},
		{Name: "docSize", Kind: KindSize, Default: "1KB", Min: "44B", Max: "16MB"},
		{Name: "batchSize", Kind: KindInt, Default: "1000", Min: "1", Max: "100000"},
		{Name: "loaders", Kind: KindInt, Default: "4", Min: "1", Max: "256"},
		{Name: "maxRetries", Kind: KindInt, Default: "100", Min: "0"},
		{Name: "think", Kind: KindDuration, Default: "0s"},
		{Name: "factor", Kind: KindFloat, Default: "2", Min: "0"},
		{Name: "cacheSize", Kind: KindSize, Default: "0"},
	},
	"ycsb": {
		{Name: "recordcount", Kind: KindInt, Default: "1000", Min: "0"},
		{Name: "fieldcount", Kind: KindInt, Default: "10", Min: "1", Max: "10000"},
		{Name: "fieldlength", Kind: KindInt, Default: "100", Min: "0", Max: "1048576"},
	},
}

// TestBounds gives each bounded setting its bound (accepted) and more
// (refused, naming the flag and the bound).
func TestBounds(t *testing.T) {
	tests := []struct {
		name   string
		flags  [][2]string
		params []string
		want   string // "" when accepted
	}{
		{"rate at the bound", [][2]string{{"rate", "10M/s"}}, nil, ""},
		{"rate over", [][2]string{{"rate", "10000001"}}, nil, `--rate: "10000001" is not valid: want a positive rate up to 10M/s`},
		{"rate 1e308", [][2]string{{"rate", "1e308/s"}}, nil, `--rate: "1e308/s" is not valid`},
		{"rate 1e12 a minute", [][2]string{{"rate", "1e12/m"}}, nil, `--rate: "1e12/m" is not valid`},
		{"threads at the bound", [][2]string{{"threads", "10000"}}, nil, ""},
		{"threads a million", [][2]string{{"threads", "1000000"}}, nil, `--threads: "1000000" is not valid: want an integer between 1 and 10000`},
		{"threads 2^31", [][2]string{{"threads", "2147483648"}}, nil, `--threads: "2147483648" is not valid`},
		{"duration a week", [][2]string{{"duration", "168h"}, {"interval", "2m"}}, nil, ""},
		{"duration over a week", [][2]string{{"duration", "169h"}, {"interval", "1m"}}, nil, `--duration: "169h0m0s" is not valid: want a positive duration up to 168h`},
		{"a week of the shortest intervals", [][2]string{{"duration", "168h"}, {"interval", "100ms"}}, nil, ""},
		{"ops over", [][2]string{{"ops", "1e13"}}, nil, `--ops: "10000000000000" is not valid: want a positive integer up to 1e12`},
		{"warmup over", [][2]string{{"warmup", "25h"}}, nil, `--warmup: "25h0m0s" is not valid: want a duration between 0 and 24h`},
		{"max lag over", [][2]string{{"max-lag", "2h"}}, nil, `--max-lag: "2h0m0s" is not valid: want a positive duration up to 1h`},
		{"repetition over", [][2]string{{"repetition", "1000001"}}, nil, `--repetition: "1000001" is not valid`},
		{"label too long", [][2]string{{"label", strings.Repeat("x", 4097)}}, nil, `--label: "xxx`},
		{"tag too long", [][2]string{{"tags", "a," + strings.Repeat("x", 257)}}, nil, `--tags: "a,xxx`},
		{"too many tags", [][2]string{{"tags", strings.Repeat("t,", 65)}}, nil, `want at most 64 tags`},
		{"stages at the bound", [][2]string{{"stages", strings.TrimSuffix(strings.Repeat("10ms:100/s,", 1000), ",")}}, nil, ""},
		{"a million stages", [][2]string{{"stages", strings.TrimSuffix(strings.Repeat("1ms:100/s,", 1_000_000), ",")}}, nil,
			`--stages: "1ms:100/s, 1ms:100/s, 1ms:100/s, 1ms:100/s, 1ms:100/s, 1ms:100/s, 1ms:100/s, 1ms..." is not valid: want at most 1000 stages, got 1000000`},
		{"label with a line break", [][2]string{{"label", "a\nb"}}, nil, `--label: "a\nb" is not valid: want text without control characters`},
		{"records at the ceiling", nil, []string{"records=1e10", "docSize=1KB"}, ""},
		{"records over the ceiling", nil, []string{"records=1e11"}, `-p records: "1e11" is not valid: want an integer between 1 and 1e10`},
		{"docSize 16MB with few records", nil, []string{"docSize=16MB", "records=100"}, ""},
		{"docSize over BSON", nil, []string{"docSize=17MB"}, `-p docSize: "17MB" is not valid: want a size between 44B and 16MB`},
		{"data over 64TB", nil, []string{"records=1e10", "docSize=16MB"}, `-p records: "10000000000" is not valid: want at most 64TB of data to load`},
		{"batchSize declared max", nil, []string{"batchSize=100001"}, `-p batchSize: "100001" is not valid: want an integer between 1 and 100000`},
		{"loaders declared max", nil, []string{"loaders=257"}, `-p loaders: "257" is not valid`},
		{"named ceiling", nil, []string{"maxRetries=10001"}, `-p maxRetries: "10001" is not valid: want an integer between 0 and 10000`},
		{"duration kind ceiling", nil, []string{"think=25h"}, `-p think: "25h" is not valid: want a duration between 0s and 24h`},
		{"float kind ceiling", nil, []string{"factor=1e13"}, `-p factor: "1e13" is not valid: want a number between 0 and 1e12`},
		{"cache size 1TB", nil, []string{"cacheSize=1TB"}, ""},
		{"cache size over", nil, []string{"cacheSize=65TB"}, `-p cacheSize: "65TB" is not valid`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := boundsErr(t, "kv", tc.flags, tc.params)
			check(t, got, tc.want)
		})
	}
}

// TestBoundsYCSBRecord bounds a YCSB record's fields × length by the
// BSON document limit, naming the parameter the user gave.
func TestBoundsYCSBRecord(t *testing.T) {
	tests := []struct {
		params []string
		want   string
	}{
		{[]string{"fieldcount=16", "fieldlength=1048576"}, ""},
		{[]string{"fieldcount=10000", "fieldlength=1048576"}, `-p fieldlength: "1048576" is not valid: want fieldcount × fieldlength at most 16MB`},
		{[]string{"fieldcount=10000"}, ""},
		{[]string{"fieldcount=10000", "fieldlength=2000"}, `-p fieldlength: "2000" is not valid`},
		{[]string{"fieldlength=1048576", "fieldcount=17"}, `-p fieldlength: "1048576" is not valid`},
		{[]string{"fieldcount=200000"}, `-p fieldcount: "200000" is not valid: want an integer between 1 and 10000`},
		{[]string{"recordcount=1e10", "fieldcount=100", "fieldlength=100000"}, `-p recordcount: "10000000000" is not valid: want at most 64TB of data`},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.params, " "), func(t *testing.T) {
			check(t, boundsErr(t, "ycsb", nil, tc.params), tc.want)
		})
	}
}

// TestBoundsInFile reports a bound by file line.
func TestBoundsInFile(t *testing.T) {
	_, err := Parse("s.yaml", []byte("workload: kv\nrate: 1e9/s\nthreads: 1000000\nparams:\n  records: 1e12\n"), boundsReg)
	for _, want := range []string{
		`s.yaml:2: rate: "1e9/s" is not valid: want a positive rate up to 10M/s`,
		`s.yaml:3: threads: "1000000" is not valid: want an integer between 1 and 10000`,
		`s.yaml:5: params.records: "1e12" is not valid: want an integer between 1 and 1e10`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Parse error:\n%v\nwant it to contain\n%s", err, want)
		}
	}
}

// TestBoundedWantsMatchConstants keeps the texts that name a bound in
// step with the constant.
func TestBoundedWantsMatchConstants(t *testing.T) {
	tests := []struct{ key, bound string }{
		{"rate", rateText(MaxRate)},
		{"threads", "10000"},
		{"duration", strings.TrimSuffix(MaxDuration.String(), "0m0s")},
		{"ops", "1e12"},
		{"warmup", strings.TrimSuffix(MaxWarmup.String(), "0m0s")},
		{"maxLag", strings.TrimSuffix(MaxLag.String(), "0m0s")},
		{"repetition", "1000000"},
	}
	for _, tc := range tests {
		if got := want(tc.key); !strings.Contains(got, tc.bound) {
			t.Errorf("want(%q) = %q, does not name its bound %s", tc.key, got, tc.bound)
		}
	}
	if n, ok := parseInt("1e12"); !ok || n != MaxOps || MaxThreads != 10000 || MaxRepetition != 1000000 {
		t.Errorf("the texts name 1e12, 10000 and 1000000; the constants are %d, %d, %d", MaxOps, MaxThreads, MaxRepetition)
	}
}

var update = flag.Bool("update", false, "rewrite docs/limits.md's table from the code")

// TestLimitsDocumented checks that docs/limits.md holds the table the
// code enforces (go test ./internal/spec -run TestLimitsDocumented
// -update rewrites it).
func TestLimitsDocumented(t *testing.T) {
	const path = "../../docs/limits.md"
	const begin, end = "<!-- limits table: begin -->\n", "<!-- limits table: end -->"
	doc, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var table bytes.Buffer
	if err := WriteLimits(&table); err != nil {
		t.Fatal(err)
	}
	head, rest, ok1 := strings.Cut(string(doc), begin)
	_, tail, ok2 := strings.Cut(rest, end)
	if !ok1 || !ok2 {
		t.Fatalf("%s has no %q ... %q markers", path, begin, end)
	}
	want := head + begin + table.String() + end + tail
	if *update {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if string(doc) != want {
		t.Errorf("%s's table differs from spec.Limits(); run go test ./internal/spec -run TestLimitsDocumented -update", path)
	}
}

func boundsErr(t *testing.T, workload string, flags [][2]string, params []string) error {
	t.Helper()
	var s Scenario
	if err := s.SetFlag("workload", workload); err != nil {
		t.Fatal(err)
	}
	for _, f := range flags {
		if err := s.SetFlag(f[0], f[1]); err != nil {
			return err
		}
	}
	for _, p := range params {
		if err := s.SetParam(boundsReg, p); err != nil {
			return err
		}
	}
	return s.Validate(boundsReg)
}

func check(t *testing.T, got error, want string) {
	t.Helper()
	switch {
	case want == "" && got != nil:
		t.Errorf("got %v, want it accepted", got)
	case want != "" && (got == nil || !strings.Contains(got.Error(), want)):
		t.Errorf("got %v\nwant an error containing %s", got, want)
	}
}

// TestEstimate estimates data and client memory from the parameters.
func TestEstimate(t *testing.T) {
	tests := []struct {
		workload string
		params   []string
		flags    [][2]string
		want     string
		ok       bool
	}{
		{"kv", []string{"records=1000000", "docSize=1KB"}, [][2]string{{"threads", "8"}}, "about 976.6MB of data in 1000000 documents; client memory about 5.9MB", true},
		{"kv", []string{"records=100", "docSize=16MB"}, [][2]string{{"threads", "8"}}, "about 1.6GB of data in 100 documents; client memory about 322.0MB", true},
		{"ycsb", []string{"recordcount=1000", "fieldcount=10", "fieldlength=100"}, nil, "about 976.6KB of data in 1000 documents; client memory about 5.8MB", true},
	}
	for _, tc := range tests {
		var s Scenario
		_ = s.SetFlag("workload", tc.workload)
		for _, f := range tc.flags {
			if err := s.SetFlag(f[0], f[1]); err != nil {
				t.Fatal(err)
			}
		}
		for _, p := range tc.params {
			if err := s.SetParam(boundsReg, p); err != nil {
				t.Fatal(err)
			}
		}
		if err := s.Validate(boundsReg); err != nil {
			t.Fatal(err)
		}
		e, ok := s.Estimate()
		if got := e.String(); ok != tc.ok || got != tc.want {
			t.Errorf("%s %v: got %q %v, want %q %v", tc.workload, tc.params, got, ok, tc.want, tc.ok)
		}
	}
}
