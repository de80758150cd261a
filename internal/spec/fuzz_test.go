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
