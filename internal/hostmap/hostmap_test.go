package hostmap

import (
	"reflect"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/spec"
)

// rs3 is a three-member replica set on three hosts, db1 the primary.
var rs3 = ReplicaSet{Name: "rs0", Members: []string{"db1.example.net:27017", "db2.example.net:27017", "db3.example.net:27017"},
	Primary: "db1.example.net:27017", Me: "db1.example.net:27017", Topology: "replicaSet rs0"}

func TestMap(t *testing.T) {
	n1, n2, n3 := "http://db1.example.net:9100/metrics", "http://db2.example.net:9100/metrics", "http://db3.example.net:9100/metrics"
	primary := func(url, dev string) MemberHost {
		return MemberHost{Member: "db1.example.net:27017", Role: "primary", URL: url, Device: dev, Main: true}
	}
	secondary := func(n int, url, dev string) MemberHost {
		return MemberHost{Member: []string{"", "db1", "db2", "db3"}[n] + ".example.net:27017", Role: "secondary", URL: url, Device: dev}
	}
	for _, c := range []struct {
		name    string
		metrics string
		devices string
		rs      ReplicaSet
		want    []MemberHost
	}{
		{"none", "", "", rs3, nil},
		{"one URL is the connected server's host, whatever its name", "http://10.0.0.9:9100", "", rs3,
			[]MemberHost{primary("http://10.0.0.9:9100", "")}},
		{"one URL on a standalone server", "db1:9100", "sda", ReplicaSet{Topology: "standalone"},
			[]MemberHost{{URL: "db1:9100", Device: "sda", Main: true}}},
		{"by host name, the primary first", strings.Join([]string{n3, n1, n2}, ","), "", rs3,
			[]MemberHost{primary(n1, ""), secondary(2, n2, ""), secondary(3, n3, "")}},
		{"host names match in any case", "http://DB2.example.net:9100,http://db1.EXAMPLE.net:9100", "", rs3,
			[]MemberHost{primary("http://db1.EXAMPLE.net:9100", ""), secondary(2, "http://DB2.example.net:9100", "")}},
		{"by MEMBER=URL", "db2.example.net:27017=http://10.0.0.2:9100,db1.example.net:27017=http://10.0.0.1:9100", "", rs3,
			[]MemberHost{primary("http://10.0.0.1:9100", ""), secondary(2, "http://10.0.0.2:9100", "")}},
		{"mixed, secondaries only", "db3.example.net:27017=http://10.0.0.3:9100," + n2, "", rs3,
			[]MemberHost{secondary(2, n2, ""), secondary(3, "http://10.0.0.3:9100", "")}},
		{"one MEMBER=URL", "db3.example.net:27017=" + n3, "", rs3,
			[]MemberHost{secondary(3, n3, "")}},
		{"devices: one for all, one per member", strings.Join([]string{n1, n2, n3}, ","), "nvme0n1,db3.example.net:27017=sdb", rs3,
			[]MemberHost{primary(n1, "nvme0n1"), secondary(2, n2, "nvme0n1"), secondary(3, n3, "sdb")}},
		{"a direct connection to a secondary reads its host first", strings.Join([]string{n1, n2}, ","), "",
			ReplicaSet{Name: "rs0", Members: rs3.Members, Primary: "db1.example.net:27017", Me: "db2.example.net:27017"},
			[]MemberHost{{Member: "db2.example.net:27017", Role: "secondary", URL: n2, Main: true}, {Member: "db1.example.net:27017", Role: "primary", URL: n1}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := Map(spec.ParseHostMetrics(c.metrics), spec.ParseHostDevices(c.devices), c.rs)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, c.want) {
				t.Errorf("got  %+v\nwant %+v", got, c.want)
			}
		})
	}
}

func TestMapErrors(t *testing.T) {
	sameHost := ReplicaSet{Name: "rs1", Members: []string{"db1:27017", "db1:27018", "db2:27017"}, Primary: "db1:27017", Me: "db1:27017"}
	for _, c := range []struct {
		name, metrics, devices string
		rs                     ReplicaSet
		want                   []string // parts of the one-line error
	}{
		{"a URL on no member's host", "http://db1.example.net:9100,http://db9.example.net:9100", "", rs3,
			[]string{`--host-metrics: "http://db9.example.net:9100"`, "host db9.example.net", "no member",
				"replica set rs0 has members db1.example.net:27017, db2.example.net:27017, db3.example.net:27017"}},
		{"a member the set does not have", "db9.example.net:27017=http://10.0.0.9:9100", "", rs3,
			[]string{`"db9.example.net:27017=http://10.0.0.9:9100"`, "not a member", "db1.example.net:27017, db2.example.net:27017, db3.example.net:27017"}},
		{"two URLs for one member", "http://db1.example.net:9100,db1.example.net:27017=http://10.0.0.1:9100", "", rs3,
			[]string{`"db1.example.net:27017=http://10.0.0.1:9100" is a second node exporter for member db1.example.net:27017`, `the first is "http://db1.example.net:9100"`}},
		{"a host with two members", "http://db1:9100,http://db2:9100", "", sameHost,
			[]string{`"http://db1:9100"`, "several members (db1:27017, db1:27018)", "MEMBER=URL", "replica set rs1 has members db1:27017, db1:27018, db2:27017"}},
		{"a list for a standalone server", "http://db1:9100,http://db2:9100", "", ReplicaSet{Topology: "standalone"},
			[]string{"not a replica set (standalone)", "one node exporter URL"}},
		{"a member for a mongos", "db1:27017=http://db1:9100", "", ReplicaSet{Topology: "sharded"},
			[]string{"not a replica set (sharded)"}},
		{"a device for a member not measured", "http://db1.example.net:9100", "db2.example.net:27017=sdb", rs3,
			[]string{`--host-device: "db2.example.net:27017=sdb"`, "no node exporter", "db1.example.net:27017"}},
		{"two devices without a member", "http://db1.example.net:9100,http://db2.example.net:9100", "sda,sdb", rs3,
			[]string{"--host-device", "two devices without a member"}},
		{"a device without node exporters", "", "sda", rs3, []string{"--host-device", "--host-metrics as well"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := Map(spec.ParseHostMetrics(c.metrics), spec.ParseHostDevices(c.devices), c.rs)
			if err == nil {
				t.Fatalf("got %+v, want an error", got)
			}
			msg := err.Error()
			if strings.Contains(msg, "\n") {
				t.Errorf("error spans lines: %q", msg)
			}
			for _, w := range c.want {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q: want it to say %q", msg, w)
				}
			}
			if _, ok := err.(*spec.Error); !ok {
				t.Errorf("error is a %T, want a *spec.Error (a usage error)", err)
			}
		})
	}
}
