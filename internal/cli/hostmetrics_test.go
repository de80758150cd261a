package cli_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/server"
	"github.com/mongobench/mongobench/internal/testsupport/nodeexporter"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
	"github.com/mongobench/mongobench/internal/validity"
)

type storedSeries struct {
	Name       string `json:"name"`
	Source     string `json:"source"`
	Member     string `json:"member"`
	Role       string `json:"role"`
	DataPoints []struct {
		Value *float64 `json:"value"`
	} `json:"dataPoints"`
}

type storedMetrics struct {
	Validity result.Validity `json:"validity"`
	Metrics  struct {
		Measurements []storedSeries `json:"measurements"`
		DiskMetrics  []storedSeries `json:"diskMetrics"`
		Members      []storedSeries `json:"members"`
	} `json:"metrics"`
}

func (m storedMetrics) series(name string) *storedSeries {
	for _, s := range append(m.Metrics.Measurements, m.Metrics.DiskMetrics...) {
		if s.Name == name {
			return &s
		}
	}
	return nil
}

// A run with --host-metrics takes host CPU and disk from the node
// exporter, says so in each series, and leaves the intervals after the
// exporter stops missing, not zero; the run completes, judged suspect by
// the telemetry-silent rule with its evidence (the host's figures
// missing from most of the run).
func TestHostMetricsFromNodeExporter(t *testing.T) {
	uri := testenv.URI(t)
	e := nodeexporter.Start(t)
	c := connect(t, uri)
	db := testenv.DBName(t)
	dropAfter(t, c, db)
	results := filepath.Join(t.TempDir(), "results.jsonl")

	stop := time.AfterFunc(3500*time.Millisecond, e.Stop) // mid-run: 1 s warm-up, 8 s measured
	defer stop.Stop()
	o := mb(t, "run", "--uri", uri, "--database", db, "--rate", "100/s", "--warmup", "1s", "--duration", "8s",
		"--host-metrics", e.URL, "-p", "records=200", "--results-file", results, "--no-report", "--json")
	wantCode(t, o, cli.ExitOK)
	var doc storedMetrics
	if err := json.Unmarshal([]byte(o.stdout), &doc); err != nil {
		t.Fatalf("stdout is not one JSON document: %v\n%s", err, o.stdout)
	}
	cpu := doc.series("SYSTEM_NORMALIZED_CPU_USER")
	if cpu == nil || cpu.Source != "node_exporter" {
		t.Fatalf("CPU series: got %+v, want one from node_exporter", cpu)
	}
	var have, missing int
	for _, p := range cpu.DataPoints {
		if p.Value == nil {
			missing++
		} else {
			have++
		}
	}
	if have == 0 || missing == 0 {
		t.Errorf("CPU points: %d with a value, %d missing; want values before the exporter stopped and missing after", have, missing)
	}
	silent := false
	for _, r := range doc.Validity.Rules {
		if r.Rule == validity.TelemetrySilent {
			silent = (r.Outcome == result.Suspect || r.Outcome == result.Invalid) && strings.Contains(r.Evidence, "the host's figures are missing from")
			t.Logf("%s: %s (%s)", r.Rule, r.Outcome, r.Evidence)
		}
	}
	if !silent || doc.Validity.State == result.Valid {
		t.Errorf("validity %+v: want the run not valid, telemetry-silent naming the host's figures", doc.Validity)
	}
	if s := doc.series("PROCESS_NORMALIZED_CPU_USER"); s != nil {
		t.Errorf("process CPU: got a series from %q, want none (the node exporter has no process figures)", s.Source)
	}
	for _, s := range doc.Metrics.DiskMetrics {
		if s.Source != "node_exporter" {
			t.Errorf("disk series %s: source %q, want node_exporter", s.Name, s.Source)
		}
	}

	o = mb(t, "run", "--uri", uri, "--database", db, "--ops", "10", "--host-metrics", "http://user:secret@127.0.0.1:1/metrics")
	wantCode(t, o, cli.ExitUsage)
	wantNoSecret(t, "stderr", o.stderr, "secret")
}

// The Performance Tables report of a catalog run with --host-metrics fills
// every resource column from the node exporter that the local /proc
// source fills: the same test is run both ways on a server of the test's
// own, and the two reports' resource tables compared cell by cell.
func TestCatalogResourceColumnsFromNodeExporter(t *testing.T) {
	h := testenv.Own(t, server.Options{})
	e := nodeexporter.Start(t)
	c := connect(t, h.URI)
	render := func(extra ...string) reportTable {
		args := append([]string{"catalog", "run", "insert_docsize", "--scale", "0.0001", "--uri", h.URI}, extra...)
		wantCode(t, mb(t, args...), cli.ExitOK)
		out := filepath.Join(t.TempDir(), "report.md")
		wantCode(t, mb(t, "report", "-o", out, "--results", h.URI), cli.ExitOK)
		doc, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		for _, rt := range reportTables(t, string(doc)) {
			if len(rt.header) > 1 && rt.header[0] == "Document size (KB)" && rt.header[1] == "CPU % (user+kernel)" {
				if err := c.Database("mongobench").Collection("results").Drop(context.Background()); err != nil {
					t.Fatal(err)
				}
				return rt
			}
		}
		t.Fatal("no resource table for insert_docsize in the report")
		return reportTable{}
	}
	local := render()
	remote := render("--host-metrics", e.URL)
	t.Logf("local: %v\nnode exporter: %v", local.rows, remote.rows)
	if len(local.rows) == 0 || len(local.rows) != len(remote.rows) {
		t.Fatalf("rows: local %d, node exporter %d; want the same, at least one", len(local.rows), len(remote.rows))
	}
	for _, col := range []string{"CPU % (user+kernel)", "iowait %", "OS IOPS", "OS write MB/s", "OS read MB/s"} {
		j := local.col(t, col)
		for i := range local.rows {
			if local.rows[i][j] != "" && remote.rows[i][j] == "" {
				t.Errorf("%s, row %v: local %q, node exporter empty; want it filled", col, local.rows[i][0], local.rows[i][j])
			}
		}
	}
	if j := local.col(t, "CPU % (user+kernel)"); remote.rows[0][j] == "" {
		t.Errorf("CPU from the node exporter: empty, want a figure (the exporter always has CPU)")
	}
}

// --host-metrics maps node exporters to the members of the replica set
// the target is (the embedded server is a one-member set): by MEMBER=URL
// and by the URL's host name, the stored series naming the member and
// its role; a URL on a host that runs no member, a member the set does
// not have and two URLs for one member are usage errors that list the
// set's members, given before anything is measured.
func TestHostMetricsOfMembers(t *testing.T) {
	uri := testenv.URI(t)
	e := nodeexporter.Start(t)
	c := connect(t, uri)
	var hello struct {
		SetName string   `bson:"setName"`
		Hosts   []string `bson:"hosts"`
		Me      string   `bson:"me"`
	}
	if err := c.Database("admin").RunCommand(context.Background(), bson.D{{Key: "hello", Value: 1}}).Decode(&hello); err != nil {
		t.Fatal(err)
	}
	if hello.SetName == "" || len(hello.Hosts) != 1 || hello.Me == "" {
		t.Fatalf("hello: %+v; want a one-member replica set", hello)
	}
	member := hello.Me
	if !strings.HasPrefix(e.URL, "http://127.0.0.1:") || !strings.HasPrefix(member, "127.0.0.1:") {
		t.Fatalf("exporter %s, member %s: want both on 127.0.0.1, so the URL's host names the member", e.URL, member)
	}
	db := testenv.DBName(t)
	dropAfter(t, c, db)
	results := filepath.Join(t.TempDir(), "results.jsonl")
	run := func(hostMetrics ...string) outcome {
		args := []string{"run", "--uri", uri, "--database", db, "--duration", "2s", "-p", "records=200", "--results-file", results, "--no-report", "--json"}
		for _, h := range hostMetrics {
			args = append(args, "--host-metrics", h)
		}
		return mb(t, args...)
	}
	for _, c := range []struct {
		name string
		args []string
	}{
		{"MEMBER=URL", []string{member + "=" + e.URL}},
		{"by host name", []string{e.URL}},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := run(c.args...)
			wantCode(t, o, cli.ExitOK)
			var doc storedMetrics
			if err := json.Unmarshal([]byte(o.stdout), &doc); err != nil {
				t.Fatalf("stdout is not one JSON document: %v\n%s", err, o.stdout)
			}
			host := 0
			for _, s := range append(doc.Metrics.Measurements, doc.Metrics.DiskMetrics...) {
				if s.Source != "node_exporter" {
					continue
				}
				host++
				if s.Member != member || s.Role != "primary" {
					t.Errorf("series %s: member %q, role %q; want %q, primary", s.Name, s.Member, s.Role, member)
				}
			}
			if host == 0 || doc.series("SYSTEM_NORMALIZED_CPU_USER") == nil {
				t.Errorf("no host series from the node exporter: %+v", doc.Metrics)
			}
			// metrics.members holds each member's state series (every
			// replica set's); no member's host series when one member
			// is measured.
			for _, m := range doc.Metrics.Members {
				if m.Name != result.MemberState {
					t.Errorf("metrics.members: series %s of %s, want only the state series (one member measured)", m.Name, m.Member)
				}
			}
		})
	}
	stored, err := os.ReadFile(results)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(stored), "\n"); n != 2 || strings.Count(string(stored), `"member":"`+member+`"`) < 2 {
		t.Errorf("stored results: %d rows, want 2, each with series naming member %s", n, member)
	}

	port := strings.TrimPrefix(e.URL, "http://127.0.0.1:")
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"a URL on a host that runs no member", []string{member + "=" + e.URL, "http://localhost:" + port},
			[]string{`--host-metrics: "http://localhost:` + port + `" is on host localhost, which runs no member`}},
		{"a member the set does not have", []string{"db9.invalid:27017=" + e.URL},
			[]string{`"db9.invalid:27017=` + e.URL + `" names db9.invalid:27017, which is not a member`}},
		{"two URLs on the member's host", []string{e.URL + "," + strings.Replace(e.URL, "/metrics", "/metrics?x=1", 1)},
			[]string{"is a second node exporter for member " + member}},
	} {
		t.Run(c.name, func(t *testing.T) {
			o := run(c.args...)
			wantCode(t, o, cli.ExitUsage)
			want := append(c.want, "replica set "+hello.SetName+" has members "+member)
			for _, w := range want {
				if !strings.Contains(o.stderr, w) {
					t.Errorf("stderr: want %q in\n%s", w, o.stderr)
				}
			}
			if strings.Contains(o.stderr, "measuring") || strings.Contains(o.stderr, "preload") {
				t.Errorf("the run measured or loaded before refusing the mapping:\n%s", o.stderr)
			}
		})
	}
}
