package spec

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseHostMetrics(t *testing.T) {
	for _, c := range []struct {
		text string
		want []HostMetric
	}{
		{"", nil},
		{"db1:9100", []HostMetric{{URL: "db1:9100"}}},
		{"http://db1:9100/metrics, http://db2:9100", []HostMetric{{URL: "http://db1:9100/metrics"}, {URL: "http://db2:9100"}}},
		{"db1:27017=http://db1:9100,db2:27017 = db2:9100", []HostMetric{{Member: "db1:27017", URL: "http://db1:9100"}, {Member: "db2:27017", URL: "db2:9100"}}},
		// a "=" in a URL's query is not a member's
		{"http://db1:9100/metrics?collect[]=cpu", []HostMetric{{URL: "http://db1:9100/metrics?collect[]=cpu"}}},
		{"db1:27017=http://db1:9100/metrics?a=b", []HostMetric{{Member: "db1:27017", URL: "http://db1:9100/metrics?a=b"}}},
	} {
		if got := ParseHostMetrics(c.text); !reflect.DeepEqual(got, c.want) {
			t.Errorf("ParseHostMetrics(%q): got %+v, want %+v", c.text, got, c.want)
		}
	}
}

func TestCheckHostMetricItems(t *testing.T) {
	for _, c := range []struct {
		item, err string
	}{
		{"db1:27017=http://db1:9100", ""},
		{"[::1]:27017=http://[::1]:9100", ""},
		{"db1=http://db1:9100", `member "db1" is not host:port`},
		{"db1:0=http://db1:9100", `member "db1:0" is not host:port`},
		{"db1:27017=ftp://db1:9100", "is not http or https"},
		{"db1:27017=http://u:sekrit@db1:9100", "carries credentials"},
	} {
		h := ParseHostMetrics(c.item)
		err := CheckHostFlags(h, nil)
		switch {
		case c.err == "" && err != nil:
			t.Errorf("%q: %v, want no error", c.item, err)
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%q: %v, want an error saying %q", c.item, err, c.err)
		case err != nil && strings.Contains(err.Error(), "sekrit"):
			t.Errorf("%q: the error shows the password: %v", c.item, err)
		}
	}
}

func TestHostMetricsRedacted(t *testing.T) {
	h := HostMetric{Member: "db1:27017", URL: "http://u:sekrit@db1:9100/metrics"}
	for _, s := range []string{h.String(), HostMetricsText([]HostMetric{h}), RedactHostMetrics("db1:27017=http://u:sekrit@db1:9100")} {
		if strings.Contains(s, "sekrit") {
			t.Errorf("%q shows the password", s)
		}
	}
}

// hostMetrics in a scenario file is one URL, or a list of URL or
// MEMBER=URL items; flags given more than once add up the same way.
func TestScenarioHostMetrics(t *testing.T) {
	want := []HostMetric{{Member: "db1:27017", URL: "http://db1:9100"}, {URL: "http://db2:9100"}}
	for _, src := range []string{
		"workload: kv\nhostMetrics: [db1:27017=http://db1:9100, http://db2:9100]\nhostDevice: [db1:27017=sdb]\n",
		"workload: kv\nhostMetrics:\n  - db1:27017=http://db1:9100\n  - http://db2:9100\nhostDevice: db1:27017=sdb\n",
		"workload: kv\nhostMetrics: db1:27017=http://db1:9100,http://db2:9100\nhostDevice: db1:27017=sdb\n",
	} {
		s, w, err := ParseWhere("s.yaml", []byte(src), testReg)
		if err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		if err := s.Validate(testReg); err != nil {
			t.Fatalf("%q: %v", src, err)
		}
		if got := w.Target; !reflect.DeepEqual(got.HostMetrics, want) || !reflect.DeepEqual(got.HostDevice, []HostDevice{{Member: "db1:27017", Device: "sdb"}}) {
			t.Errorf("%q: got %+v and %+v", src, got.HostMetrics, got.HostDevice)
		}
	}
	_, one, err := ParseWhere("s.yaml", []byte("workload: kv\nhostMetrics: db1:9100\n"), testReg)
	if err != nil || !reflect.DeepEqual(one.Target.HostMetrics, []HostMetric{{URL: "db1:9100"}}) {
		t.Errorf("one URL: got %+v, %v", one.Target.HostMetrics, err)
	}
	bad, err := Parse("s.yaml", []byte("workload: kv\nhostMetrics:\n  - http://db1:9100\n  - db2:27017=http://u:sekrit@db2:9100\n"), testReg)
	if err == nil {
		err = bad.Validate(testReg)
	}
	if err == nil || !strings.Contains(err.Error(), "s.yaml:3: hostMetrics:") || !strings.Contains(err.Error(), "carries credentials") || strings.Contains(err.Error(), "sekrit") {
		t.Errorf("a URL with a password: got %v, want the file, line and key, without the password", err)
	}
}

func TestTargetsHostMetrics(t *testing.T) {
	src := `targets:
  - label: rs
    uri: mongodb://db1:27017/?replicaSet=rs0
    hostMetrics: [http://db1:9100, db2:27017=http://10.0.0.2:9100]
    hostDevice: nvme0n1
  - label: one
    uri: mongodb://db3:27017/
    hostMetrics: db3:9100
`
	got, err := ParseTargets("t.yaml", []byte(src))
	if err != nil {
		t.Fatal(err)
	}
	if w := []HostMetric{{URL: "http://db1:9100"}, {Member: "db2:27017", URL: "http://10.0.0.2:9100"}}; !reflect.DeepEqual(got[0].HostMetrics, w) {
		t.Errorf("list: got %+v, want %+v", got[0].HostMetrics, w)
	}
	if w := []HostDevice{{Device: "nvme0n1"}}; !reflect.DeepEqual(got[0].HostDevice, w) {
		t.Errorf("device: got %+v, want %+v", got[0].HostDevice, w)
	}
	if w := []HostMetric{{URL: "db3:9100"}}; !reflect.DeepEqual(got[1].HostMetrics, w) {
		t.Errorf("one URL: got %+v, want %+v", got[1].HostMetrics, w)
	}
	_, err = ParseTargets("t.yaml", []byte("targets:\n  - label: a\n    uri: mongodb://db1/\n    hostMetrics: [db1=http://db1:9100]\n"))
	if err == nil || !strings.Contains(err.Error(), "t.yaml:4: targets[0].hostMetrics:") || !strings.Contains(err.Error(), `member "db1" is not host:port`) {
		t.Errorf("a member without a port: got %v", err)
	}
}

func TestTargetFlagsHostMetrics(t *testing.T) {
	ts, err := TargetFlags{HostMetrics: "http://db1:9100,db2:27017=http://db2:9100", HostDevice: "db2:27017=sdb"}.Targets("mongodb://db1/", func([]int) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if len(ts) != 1 || len(ts[0].HostMetrics) != 2 || ts[0].HostDevice[0].Member != "db2:27017" {
		t.Errorf("got %+v", ts)
	}
	_, err = TargetFlags{HostMetrics: "db2:27017=http://u:sekrit@db2:9100"}.Targets("", func([]int) error { return nil })
	if err == nil || !strings.HasPrefix(err.Error(), "--host-metrics: ") || strings.Contains(err.Error(), "sekrit") {
		t.Errorf("credentials: got %v", err)
	}
}
