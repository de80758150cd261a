package spec

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/price"
)

func TestTargetFlags(t *testing.T) {
	file := filepath.Join(t.TempDir(), "targets.yaml")
	src := "targets:\n  - label: a\n    uri: mongodb://a/\n  - label: b\n    profile: {cpus: 3}\n"
	if err := os.WriteFile(file, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	allCPUs := func([]int) error { return nil }
	noCPU3 := func(cpus []int) error {
		if len(cpus) > 0 && cpus[0] == 3 {
			return errors.New("is not allowed")
		}
		return nil
	}
	tests := []struct {
		name    string
		flags   TargetFlags
		cpus    func([]int) error
		want    []Target
		wantErr string
	}{
		{"flags", TargetFlags{URI: "mongodb://x/", Label: "x", Instance: "{type: m6i.xlarge}", Price: "0.42 USD/h"}, allCPUs,
			[]Target{{Label: "x", URI: "mongodb://x/", Instance: Instance{Type: "m6i.xlarge"}, Price: &price.Price{Amount: 0.42, Currency: "USD", Period: price.PerHour}}}, ""},
		{"environment's URI", TargetFlags{Label: "x"}, allCPUs, []Target{{Label: "x", URI: "mongodb://env/"}}, ""},
		{"file", TargetFlags{File: file}, allCPUs, []Target{{Label: "a", URI: "mongodb://a/", Line: 2}, {Label: "b", Profile: &Profile{CPUs: "3"}, Line: 4}}, ""},
		{"file and label", TargetFlags{File: file, Label: "x"}, allCPUs, nil, "--label: not valid with --targets"},
		{"CPUs refused", TargetFlags{File: file}, noCPU3, nil, `targets.yaml:4: targets[1].profile.cpus: "3" is not allowed`},
		{"bad price", TargetFlags{Price: "cheap"}, allCPUs, nil, "--price: "},
		{"bad instance", TargetFlags{Instance: "[1]"}, allCPUs, nil, "--instance"},
	}
	for _, tt := range tests {
		got, err := tt.flags.Targets("mongodb://env/", tt.cpus)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: got error %v, want one containing %q", tt.name, err, tt.wantErr)
			}
			continue
		}
		if err != nil || !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %+v, %v; want %+v", tt.name, got, err, tt.want)
		}
	}
}

func TestSettingFlag(t *testing.T) {
	sc := &Scenario{Workload: "kv"}
	d, th, w := sc.Flag("duration", "30s"), sc.Flag("threads", ""), sc.Flag("warmup", "")
	if got := []string{d.String(), th.String(), w.String(), d.Type(), th.Type()}; !reflect.DeepEqual(got, []string{"30s", "", "", "duration", "int"}) {
		t.Errorf("String and Type before Set: got %q", got)
	}
	if err := d.Set("fast"); err == nil || strings.Contains(err.Error(), "--duration") || !strings.Contains(err.Error(), `"fast" is not valid`) {
		t.Errorf("Set(fast): got %v, want the problem without the flag's name", err)
	}
	if err := th.Set("0"); err != nil {
		t.Fatalf("Set(0): %v", err)
	}
	// A setting given as 0 counts as given: Validate refuses it rather
	// than filling in the default.
	err := sc.Validate(MapRegistry{"kv": nil})
	if err == nil || !strings.Contains(err.Error(), "--threads") {
		t.Errorf("Validate after --threads 0: got %v, want a --threads error", err)
	}
	if err := th.Set("16"); err != nil || th.String() != "16" || sc.Threads != 16 {
		t.Errorf("Set(16): got %v, %q, %d", err, th.String(), sc.Threads)
	}
}
