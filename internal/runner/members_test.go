package runner

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/hostmap"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/telemetry"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// hostSamples are a node exporter's readings a second apart, the CPU busy
// a tenth of the time, no disk; the third reading failed.
func hostSamples(t0 time.Time, n int) []telemetry.Sample {
	var out []telemetry.Sample
	for i := range n {
		h := &telemetry.HostSample{Time: t0.Add(time.Duration(i) * time.Second), Source: telemetry.SourceNodeExporter, Cores: 2}
		if i != 2 {
			h.CPU = &telemetry.CPUTimes{User: float64(i) * 0.2, Idle: float64(i) * 1.8}
		}
		out = append(out, telemetry.Sample{Time: h.Time, Host: h})
	}
	return out
}

// The main member's node exporter series name it; the other members'
// host series go to metrics.members, each naming its member and role,
// missing points kept missing.
func TestMemberSeries(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	r := &run{
		opts: Options{Scenario: &spec.Scenario{Interval: spec.Duration(time.Second)}},
		hosts: []hostmap.MemberHost{
			{Member: "db1:27017", Role: "primary", URL: "http://db1:9100", Main: true},
			{Member: "db2:27017", Role: "secondary", URL: "http://db2:9100"},
			{Member: "db3:27017", Role: "secondary", URL: "http://db3:9100"},
		},
	}
	for _, h := range r.hosts[1:] {
		r.members = append(r.members, memberSampler{host: h, samples: hostSamples(t0, 5)})
	}
	res := &engine.Result{Start: t0, End: t0.Add(4 * time.Second)}
	m := telemetry.Series(hostSamples(t0, 5), res.Start, res.End, time.Second)
	r.memberSeries(&m, res, time.Second)
	for _, s := range m.Measurements {
		if s.Member != "db1:27017" || s.Role != "primary" {
			t.Errorf("main series %s: member %q, role %q; want db1:27017, primary", s.Name, s.Member, s.Role)
		}
	}
	seen := map[string]int{}
	for _, s := range m.Members {
		seen[s.Member]++
		if s.Role != "secondary" || s.Source != telemetry.SourceNodeExporter {
			t.Errorf("member series %s of %s: role %q, source %q", s.Name, s.Member, s.Role, s.Source)
		}
		if s.Name == result.CPUUser {
			var missing int
			for _, p := range s.DataPoints {
				if p.Value == nil {
					missing++
				} else if *p.Value < 9.99 || *p.Value > 10.01 {
					t.Errorf("%s CPU user: %v, want 10%%", s.Member, *p.Value)
				}
			}
			if len(s.DataPoints) != 4 || missing != 2 {
				t.Errorf("%s CPU user: %d points, %d missing; want 4, the two around the failed reading missing", s.Member, len(s.DataPoints), missing)
			}
		}
	}
	if len(seen) != 2 || seen["db2:27017"] == 0 || seen["db3:27017"] == 0 || seen["db2:27017"] != seen["db3:27017"] {
		t.Errorf("metrics.members by member: %v, want db2:27017 and db3:27017 alike", seen)
	}
}

// A member is reached directly, by the name the replica set gives it,
// with the target's connection settings.
func TestConnectMember(t *testing.T) {
	uri := testenv.URI(t)
	ctx := context.Background()
	var hello struct {
		Me string `bson:"me"`
	}
	main := testenv.Client(t, uri)
	if err := main.Database("admin").RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}).Decode(&hello); err != nil || hello.Me == "" {
		t.Fatalf("hello: %+v, %v", hello, err)
	}
	c, err := connectMember(uri, hello.Me)
	if err != nil {
		t.Fatal(err)
	}
	defer disconnect(context.Background(), c)
	var got struct {
		Me string `bson:"me"`
	}
	if err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}).Decode(&got); err != nil || got.Me != hello.Me {
		t.Errorf("hello over the member's connection: %+v, %v; want me %s", got, err, hello.Me)
	}
	if _, err := connectMember("http://u:p@db1/", hello.Me); err == nil {
		t.Error("a bad target URI: want an error")
	}
}

// The one-member set's replSetGetStatus adds no member hello does not
// list; a standalone's set is left as it is.
func TestWithHidden(t *testing.T) {
	uri := testenv.URI(t)
	c := testenv.Client(t, uri)
	ctx := context.Background()
	fp, err := fingerprint(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	got := withHidden(ctx, c, fp.set)
	if len(fp.set.Members) != 1 || len(got.Members) != 1 || got.Members[0] != fp.set.Members[0] {
		t.Errorf("members: hello %v, with replSetGetStatus %v; want the one member", fp.set.Members, got.Members)
	}
	if s := withHidden(ctx, c, hostmap.ReplicaSet{Topology: "standalone"}); len(s.Members) != 0 {
		t.Errorf("standalone: %v, want no members", s.Members)
	}
}

// With no node exporter named, each member other than the main one is
// asked for its getDiagnosticData over a direct connection: the embedded
// server refuses it, and the member's figures are missing with a note
// naming the member and the refusal (a mongod would give a sampler).
func TestFTDCMembers(t *testing.T) {
	uri := testenv.URI(t)
	c := testenv.Client(t, uri)
	ctx := context.Background()
	fp, err := fingerprint(ctx, c)
	if err != nil {
		t.Fatal(err)
	}
	if len(fp.set.Members) != 1 {
		t.Fatalf("members %v: want the embedded server's set of one, which the test reaches under a second name", fp.set.Members)
	}
	host, port, _ := strings.Cut(fp.set.Main(), ":")
	other := "localhost:" + port
	if host == "localhost" {
		other = "127.0.0.1:" + port
	}
	fp.set.Members = append(fp.set.Members, other)
	proc, err := telemetry.NewHost(os.Getpid(), "")
	if err != nil {
		t.Fatal(err)
	}
	// the main member read by a source before it (this machine's /proc)
	r := &run{opts: Options{Target: Target{Target: spec.Target{URI: uri}}}, fp: fp, main: proc}
	if err := (diagnosticDataSource{}).hosts(ctx, r); err != nil {
		t.Fatal(err)
	}
	defer func() {
		for _, d := range r.ftdc {
			_ = d.Close(ctx)
		}
	}()
	if len(r.ftdc) == 1 && len(r.members) == 1 && r.members[0].host.Member == other { // a mongod: the member is sampled
		return
	}
	if len(r.members) != 0 || len(r.warnings) != 1 || !strings.HasPrefix(r.warnings[0], "member "+other+"'s host and server figures are missing: getDiagnosticData refused (CommandNotFound)") {
		t.Fatalf("members %v, notes %q: want member %s's refusal in one note", r.members, r.warnings, other)
	}
	// The main member refused: its note stands for the set, the others
	// are not asked.
	r = &run{opts: r.opts, fp: fp}
	if err := (diagnosticDataSource{}).hosts(ctx, r); err != nil {
		t.Fatal(err)
	}
	if len(r.members)+len(r.ftdc) != 0 || len(r.warnings) != 1 || !strings.HasPrefix(r.warnings[0], "host figures are missing: getDiagnosticData refused") {
		t.Fatalf("members %v, notes %q after the main member refused: want its note alone, none asked", r.members, r.warnings)
	}
}
