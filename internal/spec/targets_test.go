package spec

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/price"
)

func TestParseTargets(t *testing.T) {
	src := `targets:
  - label: m6i-xlarge
    uri: mongodb://db1:27017/
    instance: {type: m6i.xlarge, diskType: gp3, iops: 3000, diskSizeGB: 100, vCPU: 4, ramGB: 16}
    price: 0.42 USD/h
    baseline: true
  - label: local-1cpu
    profile: {cpus: 0, cacheSize: 256MB}
    price: 694 EUR/month
  - label: local-default
    profile:
`
	got, err := ParseTargets("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	want := []Target{
		{Label: "m6i-xlarge", URI: "mongodb://db1:27017/", Baseline: true, Line: 2,
			Instance: Instance{Type: "m6i.xlarge", DiskType: "gp3", IOPS: 3000, DiskSizeGB: 100, VCPU: 4, RAMGB: 16},
			Price:    &price.Price{Amount: 0.42, Currency: "USD", Period: price.PerHour}},
		{Label: "local-1cpu", Profile: &Profile{CPUs: "0", CacheSize: 256 * MB}, Line: 7, Price: &price.Price{Amount: 694, Currency: "EUR", Period: price.PerMonth}},
		{Label: "local-default", Profile: &Profile{}, Line: 10},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("ParseTargets:\n got %+v\nwant %+v", got, want)
	}
}

func TestParseTargetsErrors(t *testing.T) {
	tests := []struct {
		name, src string
		want      []string // each must appear in the error
	}{
		{"empty file", "", []string{"t.yaml:1: the file is empty", "targets: [{label"}},
		{"no targets key", "other: 1\n", []string{`t.yaml:1: unknown key "other"`, "t.yaml:1: targets: is missing"}},
		{"empty list", "targets: []\n", []string{"t.yaml:1: targets: the list is empty: want a list of at least one target"}},
		{"not a list", "targets: a\n", []string{"t.yaml:1: targets: a value is not valid"}},
		{"item not a mapping", "targets:\n  - a\n", []string{"t.yaml:2: targets[0]: a value is not valid: want a mapping with label"}},
		{"label missing", "targets:\n  - uri: mongodb://h/\n", []string{"t.yaml:2: targets[0].label: is missing: want a unique name"}},
		{"label empty", "targets:\n  - label: ''\n    uri: mongodb://h/\n", []string{"t.yaml:2: targets[0].label: is empty"}},
		{"duplicate label", "targets:\n  - {label: a, uri: 'mongodb://h/'}\n  - {label: a, uri: 'mongodb://g/'}\n",
			[]string{`t.yaml:3: targets[1].label: duplicate label "a" (first at line 2)`}},
		{"neither uri nor profile", "targets:\n  - label: a\n", []string{"t.yaml:2: targets[0]: neither uri nor profile is given: want exactly one of uri"}},
		{"both uri and profile", "targets:\n  - label: a\n    uri: mongodb://h/\n    profile: {cpus: 0}\n",
			[]string{"t.yaml:2: targets[0]: both uri and profile are given"}},
		{"bad uri", "targets:\n  - label: a\n    uri: http://h/\n", []string{`t.yaml:3: targets[0].uri: "http://h/" is not valid: want a connection string`}},
		{"bad cpus", "targets:\n  - label: a\n    profile: {cpus: 1-0}\n", []string{`t.yaml:3: targets[0].profile.cpus: "1-0" is not valid: want a CPU list`}},
		{"cpus letters", "targets:\n  - label: a\n    profile: {cpus: all}\n", []string{`targets[0].profile.cpus: "all" is not valid`}},
		{"small cache", "targets:\n  - label: a\n    profile: {cacheSize: 512KB}\n", []string{`t.yaml:3: targets[0].profile.cacheSize: "512KB" is not valid: want a size of at least 1MB`}},
		{"bad cache", "targets:\n  - label: a\n    profile: {cacheSize: big}\n", []string{`targets[0].profile.cacheSize: "big" is not valid`}},
		{"profile typo", "targets:\n  - label: a\n    profile: {cpu: 0}\n", []string{`t.yaml:3: targets[0].profile: unknown key "cpu" (did you mean "cpus"?`}},
		{"profile list", "targets:\n  - label: a\n    profile: [0]\n", []string{"t.yaml:3: targets[0].profile: a list is not valid"}},
		{"bad price", "targets:\n  - label: a\n    uri: mongodb://h/\n    price: 0.42\n",
			[]string{`t.yaml:4: targets[0].price: "0.42" is not valid: want an amount, a currency and a period such as "0.42 USD/h"`}},
		{"bad iops", "targets:\n  - label: a\n    uri: mongodb://h/\n    instance: {iops: 0, vCPU: 1.5, ramGB: -1, diskSizeGB: x}\n",
			[]string{`t.yaml:4: targets[0].instance.iops: "0" is not valid: want a positive whole number`,
				`targets[0].instance.vCPU: "1.5" is not valid`, `targets[0].instance.ramGB: "-1" is not valid`,
				`targets[0].instance.diskSizeGB: "x" is not valid`}},
		{"instance typo", "targets:\n  - label: a\n    uri: mongodb://h/\n    instance: {IOPS: 3000}\n",
			[]string{`targets[0].instance: unknown key "IOPS" (did you mean "iops"?`}},
		{"unknown target key", "targets:\n  - label: a\n    uri: mongodb://h/\n    cost: 3\n",
			[]string{`t.yaml:4: targets[0]: unknown key "cost"`}},
		{"bad baseline", "targets:\n  - label: a\n    uri: mongodb://h/\n    baseline: yes\n",
			[]string{`t.yaml:4: targets[0].baseline: "yes" is not valid: want true or false`}},
		{"two baselines", "targets:\n  - {label: a, uri: 'mongodb://h/', baseline: true}\n  - {label: b, uri: 'mongodb://g/', baseline: true}\n",
			[]string{"t.yaml:3: targets[1].baseline: a second baseline (the first is at line 2): want at most one"}},
		{"syntax", "targets:\n  - {label: a\n", []string{"t.yaml:2: invalid yaml"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ParseTargets("t.yaml", []byte(tt.src))
			if err == nil {
				t.Fatalf("got no error, want %q", tt.want)
			}
			for _, w := range tt.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error:\n%v\nwant it to contain %q", err, w)
				}
			}
			for _, line := range strings.Split(err.Error(), "\n") {
				if !strings.HasPrefix(line, "t.yaml:") {
					t.Errorf("error line %q does not start with the file and line", line)
				}
			}
		})
	}
}

func TestParseInstance(t *testing.T) {
	got, err := ParseInstance("--instance", "{type: m6i.xlarge, iops: 3000, diskSizeGB: 50}")
	want := Instance{Type: "m6i.xlarge", IOPS: 3000, DiskSizeGB: 50}
	if err != nil || got != want {
		t.Errorf("ParseInstance: got %+v, %v; want %+v", got, err, want)
	}
	for _, tt := range []struct{ in, want string }{
		{"{iops: many}", `--instance.iops: "many" is not valid: want a positive whole number`},
		{"m6i.xlarge", "--instance: a value is not valid: want a mapping of type, diskType"},
		{"{typ: x}", `--instance: unknown key "typ" (did you mean "type"?`},
		{"{", `--instance: "{" is not valid`},
	} {
		_, err := ParseInstance("--instance", tt.in)
		if err == nil || !strings.HasPrefix(err.Error(), tt.want) {
			t.Errorf("ParseInstance(%q): got %v, want an error starting %q", tt.in, err, tt.want)
		}
	}
}

func TestProfileCPUList(t *testing.T) {
	for _, tt := range []struct {
		cpus string
		want []int
	}{
		{"", nil}, {"0", []int{0}}, {"0-1", []int{0, 1}}, {"0,2-3", []int{0, 2, 3}}, {"1,1,0", []int{1, 0}},
	} {
		if got := (Profile{CPUs: tt.cpus}).CPUList(); !slices.Equal(got, tt.want) {
			t.Errorf("Profile{CPUs: %q}.CPUList() = %v, want %v", tt.cpus, got, tt.want)
		}
	}
}
