package spec

import (
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// files is a registry that knows kv and the workload files it is told
// of, recording the paths it opens.
type files struct {
	MapRegistry
	opened []string
	bad    error
}

func (f *files) OpenWorkloadFile(path string) error {
	f.opened = append(f.opened, path)
	if f.bad != nil {
		return f.bad
	}
	f.MapRegistry[path] = nil
	return nil
}

// TestScenarioWorkloadFile: a scenario's workload file is found beside
// the scenario file, and its problems are reported at the workload key.
func TestScenarioWorkloadFile(t *testing.T) {
	reg := &files{MapRegistry: MapRegistry{"kv": nil}}
	s, err := Parse(filepath.Join("dir", "s.yaml"), []byte("workload: w.yaml\n"), reg)
	if err != nil {
		t.Fatal(err)
	}
	if want := filepath.Join("dir", "w.yaml"); s.Workload != want || len(reg.opened) != 1 || reg.opened[0] != want || s.Name != "w.yaml" {
		t.Errorf("workload %q, opened %v, test name %q; want %q, test name w.yaml", s.Workload, reg.opened, s.Name, want)
	}
	reg.bad = errors.New("w.yaml:3:5: collections: no collections")
	_, err = Parse("s.yaml", []byte("name: x\nworkload: other.yaml\n"), reg)
	if err == nil || !strings.Contains(err.Error(), "s.yaml:2: workload: w.yaml:3:5: collections: no collections") {
		t.Errorf("error %v", err)
	}
	if IsWorkloadFile("kv") || !IsWorkloadFile("a/B.YML") || !IsWorkloadFile("x.yaml") {
		t.Error("IsWorkloadFile")
	}
}
