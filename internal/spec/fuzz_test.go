package spec

import (
	"os"
	"strings"
	"testing"
)

// FuzzParse checks that Parse never panics and that it either returns a
// scenario that passes Validate or an error that starts with the file name.
func FuzzParse(f *testing.F) {
	if data, err := os.ReadFile("testdata/kv-mixed.yaml"); err == nil {
		f.Add(data)
	}
	for _, seed := range []string{
		"workload: kv\n",
		"workload: ycsb\nrate: 1.5k/s\nops: 10\n",
		"workload: kv\nparams: {records: 10, docSize: 4KB, readPercent: 95%, mode: upsert, think: 1, ordered: yes}\n",
		"workload: &w kv\nname: *w\ntags: [a, *w]\nresults: {uri: 'mongodb://h/', file: r.jsonl}\n",
		"",
		"---\n",
		"- a\n",
		"workload: kv\ndurration: 5s\nrate: -1\nthreads: 0\n",
		"workload: kv\nrate: [1\n",
		"workload: kv\n---\nworkload: kv\n",
		"workload: kv\nparams:\n  records: 0\n  records: 1\n  recrods: 2\n",
		"<<: {workload: kv}\n",
		"a: &a [*a]\n",
		"workload: kv\ntags: &t [*t]\n",
		"workload: kv\ndatabase: \"a b\"\ninterval: 1h1s\nmaxLag: 0\n",
		"workload: kv\nrate: 1e308/s\nthreads: 2147483648\n",
		"workload: kv\nduration: 1e9\nops: 1e19\nwarmup: 25h\n",
		"workload: kv\nduration: 10001s\nparams: {records: 1e10, docSize: 16MB}\n",
		"workload: kv\nlabel: " + strings.Repeat("x", 5000) + "\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("fuzz.yaml", data, testReg)
		if err != nil {
			for _, line := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(line, "fuzz.yaml") {
					t.Fatalf("Parse(%q) error line %q does not start with the file name", data, line)
				}
			}
			return
		}
		if err := s.Validate(testReg); err != nil {
			t.Fatalf("Parse(%q) returned a scenario that fails Validate: %v", data, err)
		}
	})
}

// FuzzParseTargets checks that ParseTargets never panics, that its error
// lines start with the file name, and that what it accepts holds: unique
// non-empty labels, exactly one of URI and profile, at most one baseline.
func FuzzParseTargets(f *testing.F) {
	if data, err := os.ReadFile("../../suites/targets-local.yaml"); err == nil {
		f.Add(data)
	}
	for _, seed := range []string{
		"targets:\n  - {label: a, uri: 'mongodb://h/', price: 0.42 USD/h, baseline: true}\n",
		"targets:\n  - label: a\n    profile: {cpus: 0-1, cacheSize: 1GB}\n    instance: {type: x, iops: 3000, diskSizeGB: 1.5, vCPU: 2, ramGB: 4}\n",
		"targets:\n  - {label: a, profile: }\n  - {label: a, uri: 'mongodb://h/'}\n",
		"targets: []\n", "targets:\n  - a\n", "", "- a\n", "targets: &t [*t]\n",
		"targets:\n  - {label: a, uri: 'mongodb://h/', profile: {cpus: 9-1}, price: 1 $/h, baseline: 2}\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		targets, err := ParseTargets("fuzz.yaml", data)
		if err != nil {
			for _, line := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(line, "fuzz.yaml") {
					t.Fatalf("ParseTargets(%q) error line %q does not start with the file name", data, line)
				}
			}
			return
		}
		labels, baselines := map[string]bool{}, 0
		for _, tg := range targets {
			if tg.Label == "" || labels[tg.Label] || (tg.URI == "") == (tg.Profile == nil) {
				t.Fatalf("ParseTargets(%q) accepted %+v", data, tg)
			}
			labels[tg.Label] = true
			if tg.Baseline {
				baselines++
			}
		}
		if len(targets) == 0 || baselines > 1 {
			t.Fatalf("ParseTargets(%q) accepted %d targets, %d baselines", data, len(targets), baselines)
		}
	})
}

// FuzzFlags sets flags and -p parameters to arbitrary values: SetFlag,
// SetParam and Validate never panic, every error names its flag, and a
// scenario that validates holds within every bound.
func FuzzFlags(f *testing.F) {
	for _, seed := range [][3]string{
		{"rate", "1e308/s", "records=1e10"},
		{"--threads", "2147483648", "docSize=16MB"},
		{"threads", "1000000", "docSize=17MB"},
		{"duration", "1e9", "records=-1"},
		{"--max-lag", "9223372036s", "think=1e300h"},
		{"interval", "1ns", "readPercent=101%"},
		{"ops", "1e19", "skew=NaN"},
		{"tags", strings.Repeat("x,", 100), "mode=UPSERT"},
		{"warmup", "-0", "ordered=maybe"},
		{"rate", "0.001/s", "records"},
		{"label", "\x00\xff", "=1"},
		{"nosuch", "1", "nosuch=1"},
		{"rate", "10M/s", "records=100"},
		{"duration", "10001s", "records=1e10"},
	} {
		f.Add(seed[0], seed[1], seed[2])
	}
	f.Fuzz(func(t *testing.T, flag, value, param string) {
		var s Scenario
		if err := s.SetFlag("workload", "kv"); err != nil {
			t.Fatal(err)
		}
		if err := s.SetFlag(flag, value); err != nil {
			if e, ok := err.(*Error); !ok || !strings.HasPrefix(e.Field, "--") {
				t.Fatalf("SetFlag(%q, %q) = %v, want an error naming the flag", flag, value, err)
			}
		}
		if err := s.SetParam(boundsReg, param); err != nil {
			if e, ok := err.(*Error); !ok || !strings.HasPrefix(e.Field, "-p") {
				t.Fatalf("SetParam(%q) = %v, want an error naming -p", param, err)
			}
		}
		if err := s.Validate(boundsReg); err != nil {
			for _, line := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(line, "--") && !strings.HasPrefix(line, "-p") {
					t.Fatalf("flag %q=%q -p %q: error line %q names no flag", flag, value, param, line)
				}
			}
			return
		}
		switch {
		case s.Rate < 0 || s.Rate > MaxRate, s.Threads < 1 || s.Threads > MaxThreads,
			s.Duration > MaxDuration, s.Ops > MaxOps, s.Warmup > MaxWarmup, s.MaxLag > MaxLag,
			s.Interval < MinInterval || s.Interval > MaxInterval, len(s.Label) > MaxLabelLen, len(s.Tags) > MaxTags:
			t.Fatalf("flag %q=%q -p %q: accepted %+v", flag, value, param, s)
		}
		if size, _, ok := s.dataSize(); ok && size > MaxDataBytes {
			t.Fatalf("-p %q: accepted %s of data", param, size)
		}
		if n := s.Params.Int("records"); n > 1e10 {
			t.Fatalf("-p %q: accepted records=%d", param, n)
		}
	})
}
