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
