package cli_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/mongobench/mongobench/internal/result"

	"go.mongodb.org/mongo-driver/v2/bson"
	"golang.org/x/sys/unix"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/server"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// firstCPU returns a CPU this process may run on.
func firstCPU(t *testing.T) int {
	t.Helper()
	var set unix.CPUSet
	if err := unix.SchedGetaffinity(0, &set); err != nil {
		t.Fatalf("read this process's CPU set: %v", err)
	}
	for c := range 1024 {
		if set.IsSet(c) {
			return c
		}
	}
	t.Fatal("no CPU in this process's CPU set")
	return 0
}

// TestCatalogTargetProfiles runs insert_instancesize and insert_iops on two
// tiny local profiles. The embedded default server (here a server of the
// test's own) is the results store: each profile gets a server of its own,
// started and stopped by the run, and the stored variants carry their
// target's label, order, instance description and cost. The shipped report
// then renders one row per profile in both tests' tables.
func TestCatalogTargetProfiles(t *testing.T) {
	root := t.TempDir()
	h := testenv.Own(t, server.Options{Dir: filepath.Join(root, "server")})
	t.Setenv("MONGOBENCH_SERVER_DIR", h.Dir)
	targets := filepath.Join(root, "targets.yaml")
	src := fmt.Sprintf(`targets:
  - label: tiny-a
    profile: {cpus: "%d", cacheSize: 256MB}
    instance: {type: tiny A}
    price: 0.10 USD/h
    baseline: true
  - label: tiny-b
    profile: {cacheSize: 512MB}
    instance: {type: tiny B, diskType: local, iops: 3000, diskSizeGB: 10}
    price: 146 EUR/month
`, firstCPU(t))
	if err := os.WriteFile(targets, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}

	o := mb(t, "catalog", "run", "insert_instancesize", "insert_iops", "--targets", targets, "--scale", "0.00005")
	wantCode(t, o, cli.ExitOK)

	started := regexp.MustCompile(`profile (tiny-[ab]): \S+ \S+ at \S+ \(pid (\d+)\)`).FindAllStringSubmatch(o.stderr, -1)
	stopped := regexp.MustCompile(`profile (tiny-[ab]): (?:stopped|killed after ignoring SIGTERM) \(pid (\d+)\)`).FindAllStringSubmatch(o.stderr, -1)
	if len(started) != 2 || len(stopped) != 2 || started[0][1] != "tiny-a" || started[1][1] != "tiny-b" {
		t.Fatalf("profile servers: started %v, stopped %v; want tiny-a then tiny-b, each started and stopped\n%s", started, stopped, o)
	}
	for i := range started {
		pid, _ := strconv.Atoi(started[i][2])
		if started[i][2] != stopped[i][2] || pid == h.PID {
			t.Errorf("profile %s: started pid %s, stopped pid %s (results server pid %d)", started[i][1], started[i][2], stopped[i][2], h.PID)
		}
		if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
			t.Errorf("profile %s: pid %d still exists after the run (kill 0: %v)", started[i][1], pid, err)
		}
	}
	if left, _ := os.ReadDir(filepath.Join(root, "profiles")); len(left) != 0 {
		t.Errorf("profile directories left behind: %v", left)
	}

	type row struct {
		ID struct {
			Label    string `bson:"label"`
			Order    int    `bson:"order"`
			Instance struct {
				Cost float64 `bson:"cost"`
			} `bson:"instance"`
		} `bson:"_id"`
		Variant struct {
			Instance map[string]any `bson:"instance"`
		} `bson:"variant"`
		BenchConfig map[string]any `bson:"bench_config"`
		Target      struct {
			Kind string `bson:"kind"`
		} `bson:"target"`
		TestResults result.TestResults `bson:"testResults"`
	}
	coll := connect(t, h.URI).Database(store.DefaultDatabase).Collection(store.ResultsCollection)
	for _, test := range []string{"insert_instancesize", "insert_iops"} {
		cur, err := coll.Find(context.Background(), bson.D{{Key: "_id.testname", Value: test}})
		if err != nil {
			t.Fatal(err)
		}
		var rows []row
		if err := cur.All(context.Background(), &rows); err != nil {
			t.Fatal(err)
		}
		slices.SortFunc(rows, func(a, b row) int { return a.ID.Order - b.ID.Order })
		if len(rows) != 2 {
			t.Fatalf("%s: %d rows in the results store, want 2 (one per target)", test, len(rows))
		}
		want := []struct {
			label, instance string
			cost            float64
			iops            any
		}{{"tiny-a", "tiny A", 10, nil}, {"tiny-b", "tiny B", 20, int64(3000)}}
		for i, r := range rows {
			w := want[i]
			if r.ID.Label != w.label || r.ID.Order != i || r.ID.Instance.Cost != w.cost {
				t.Errorf("%s row %d: _id label %q order %d cost %v; want %q, %d, %v", test, i, r.ID.Label, r.ID.Order, r.ID.Instance.Cost, w.label, i, w.cost)
			}
			if got := r.Variant.Instance["atlasInstanceType"]; got != w.instance {
				t.Errorf("%s %s: variant.instance.atlasInstanceType %v, want %q", test, w.label, got, w.instance)
			}
			if got := r.Variant.Instance["atlasIOPS"]; got != w.iops {
				t.Errorf("%s %s: variant.instance.atlasIOPS %v, want %v", test, w.label, got, w.iops)
			}
			if got := r.BenchConfig["atlasInstanceType"]; got != w.instance {
				t.Errorf("%s %s: bench_config.atlasInstanceType %v, want %q", test, w.label, got, w.instance)
			}
			if !strings.HasPrefix(r.Target.Kind, "profile-") {
				t.Errorf("%s %s: target.kind %q, want profile-…", test, w.label, r.Target.Kind)
			}
			if rate := r.TestResults.DocsPerSecond; rate == nil || *rate <= 0 {
				t.Errorf("%s %s: DocsPerSecond %v, want a rate > 0", test, w.label, rate)
			}
		}
	}

	out := filepath.Join(root, "report", "performance-tables.md")
	wantCode(t, mb(t, "report", "-o", out, "--results", h.URI), cli.ExitOK)
	doc, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	for _, test := range []string{"insert_iops", "insert_instancesize"} {
		tables := sectionTables(t, string(doc), test)
		if len(tables) != 3 {
			t.Fatalf("%s: %d tables, want performance, resource usage and what limited each target", test, len(tables))
		}
		for i, r := range tables[2].rows {
			if r[0] != [2]string{"tiny-a", "tiny-b"}[i] || !strings.HasPrefix(r[tables[2].col(t, "Evidence (mongobench's diagnosis of the run)")], "limited by: ") {
				t.Errorf("%s: what limited row %d: %v, want the target and its run's diagnosis", test, i, r)
			}
		}
		perf := tables[0]
		wantRows := [][2]string{{"tiny-a", "0.1"}, {"tiny-b", "0.2"}}
		if len(perf.rows) != 2 || len(tables[1].rows) != 2 {
			t.Fatalf("%s: %d and %d rows, want 2 and 2", test, len(perf.rows), len(tables[1].rows))
		}
		for i, r := range perf.rows {
			if r[perf.col(t, "Target")] != wantRows[i][0] || r[perf.col(t, "Price per hour")] != wantRows[i][1] {
				t.Errorf("%s row %d: %v, want target %s at price %s", test, i, r, wantRows[i][0], wantRows[i][1])
			}
			if v, err := strconv.ParseFloat(r[perf.col(t, "Speed (docs/s)")], 64); err != nil || v <= 0 {
				t.Errorf("%s row %d: docs/s %q, want a number > 0", test, i, r[perf.col(t, "Speed (docs/s)")])
			}
		}
		if got := perf.rows[1][perf.col(t, "Disk IOPS")]; got != "3000" {
			t.Errorf("%s tiny-b: Disk IOPS %q, want 3000", test, got)
		}
	}
}

// sectionTables returns the tables rendered in the report's section on
// one test (its heading names the test in backquotes).
func sectionTables(t *testing.T, doc, test string) []reportTable {
	t.Helper()
	i := strings.Index(doc, "(`"+test+"`)")
	if i < 0 {
		t.Fatalf("the report has no section on %s", test)
	}
	section := doc[i:]
	if end := strings.Index(section, "\n## "); end >= 0 {
		section = section[:end]
	}
	return reportTables(t, section)
}

// TestCatalogSingleTargetDescribed runs insert_iops on one target described
// by flags: the variant carries the label, the instance and the cost.
func TestCatalogSingleTargetDescribed(t *testing.T) {
	uri := testenv.URI(t)
	file := filepath.Join(t.TempDir(), "results.jsonl")
	db := testenv.DBName(t)
	dropAfter(t, connect(t, uri), db)
	o := mb(t, "catalog", "run", "insert_iops", "--scale", "0.00002", "--uri", uri, "--database", db, "--results-file", file,
		"--label", "db1", "--instance", "{type: m6i.xlarge, diskType: gp3, iops: 3000, diskSizeGB: 100}", "--price", "0.42 USD/h")
	wantCode(t, o, cli.ExitOK)
	docs, err := store.NewFile(file).List(context.Background(), 0)
	if err != nil || len(docs) != 1 {
		t.Fatalf("stored variants: got %d (%v), want 1", len(docs), err)
	}
	d := docs[0]
	label, _ := d.ID.Get("label")
	order, _ := d.ID.Get("order")
	inst := map[string]string{}
	switch doc := d.Variant["instance"].(type) {
	case map[string]any:
		for k, v := range doc {
			inst[k] = fmt.Sprint(v)
		}
	case bson.D:
		for _, e := range doc {
			inst[e.Key] = fmt.Sprint(e.Value)
		}
	}
	if label != "db1" || fmt.Sprint(order) != "0" || inst["cost"] != "42" || inst["atlasIOPS"] != "3000" || inst["price"] != "0.42 USD/h" || inst["atlasInstanceType"] != "m6i.xlarge" {
		t.Errorf("_id label %v, order %v, variant.instance %v; want db1, 0, cost 42, atlasIOPS 3000, price 0.42 USD/h, m6i.xlarge", label, order, inst)
	}
	if fmt.Sprint(d.BenchConfig["atlasIOPS"]) != "3000" || d.BenchConfig["atlasDiskType"] != "gp3" {
		t.Errorf("bench_config %v, want the given disk (gp3, 3000 IOPS)", d.BenchConfig)
	}
}

// TestCatalogTargetsErrors checks bad targets input fails at once, naming
// the file, line and field, or the conflicting flag.
func TestCatalogTargetsErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.yaml")
	if err := os.WriteFile(bad, []byte("targets:\n  - label: a\n    profile: {cpus: \"0\"}\n    price: 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"--targets", bad}, bad + `:4: targets[0].price: "3" is not valid`},
		{[]string{"--targets", bad, "--uri", unreachable}, "--uri: not valid with --targets"},
		{[]string{"--targets", filepath.Join(dir, "missing.yaml")}, "missing.yaml"},
		{[]string{"--price", "3 dollars", "--uri", unreachable}, `--price: "3 dollars" is not valid`},
	} {
		o := mb(t, append([]string{"catalog", "run", "insert_iops"}, tt.args...)...)
		wantCode(t, o, cli.ExitUsage)
		wantQuick(t, o, usageFast)
		if msg := errorLine(t, o, false); !strings.Contains(msg, tt.want) {
			t.Errorf("%v: got %q, want it to contain %q", tt.args, msg, tt.want)
		}
	}
}
