package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// TestDeprecatedNamesStillWork: each deprecated flag name is read as its
// flag's and says, on one line of stderr, which name to use.
func TestDeprecatedNamesStillWork(t *testing.T) {
	for _, tc := range []struct {
		args    []string
		note    string // the deprecation line
		want    string // an error that shows the value was read
		notWant string // the error the value's absence would give
	}{
		{[]string{"sweep", "--rates", "100", "--workload", "nope"}, "Flag --rates has been deprecated, use --rate instead", `"nope"`, "--rate: required"},
		{[]string{"sla", "--tps", "auto", "--tps-start", "0", "--tps-step", "5", "--tps-max", "10", "--p99", "20ms"}, "Flag --tps has been deprecated, use --rate instead",
			"--rate auto: --start-rate and --rate-step must be positive", "--rate: required"},
		{[]string{"sla", "--tps", "auto", "--tps-start", "0", "--p99", "20ms"}, "Flag --tps-start has been deprecated, use --start-rate instead", "--start-rate and --rate-step", ""},
		{[]string{"sla", "--rate", "auto", "--start", "0", "--p99", "20ms"}, "Flag --start has been deprecated, use --start-rate instead", "--start-rate and --rate-step", ""},
		{[]string{"sla", "--rate", "100", "--runs", "0", "--p99", "20ms"}, "Flag --runs has been deprecated, use --repeat instead", "--repeat: got 0", ""},
		{[]string{"sweep", "--workload", "nope", "--rate", "100", "--sla", "20ms"}, "Flag --sla has been deprecated, use --p99 instead", `"nope"`, ""},
		{[]string{"calibrate", "--workload", "kv", "--factor", "1"}, "Flag --factor has been deprecated, use --threads-factor instead", "--threads-factor", ""},
		{[]string{"compare", "--label", "a", "--label", "b", "--cost-per-hour", "c=3"}, "Flag --cost-per-hour has been deprecated, use --price instead",
			`--price: "c=3 USD/h" names no --label`, ""},
		{[]string{"sweep", "--workload", "nope", "--rate", "100", "--cost-per-hour", "-1"}, "Flag --cost-per-hour has been deprecated, use --price instead", "--price: got -1", ""},
		{[]string{"run", "--workload", "kv", "--results-uri", "nope://x"}, "Flag --results-uri has been deprecated, use --results instead", `--results: "nope://x"`, ""},
	} {
		o := mb(t, tc.args...)
		wantCode(t, o, cli.ExitUsage)
		if !slices.Contains(strings.Split(o.stderr, "\n"), tc.note) {
			t.Errorf("%v: stderr: want the line %q\n%s", tc.args, tc.note, o)
		}
		if !strings.Contains(o.stderr, tc.want) || tc.notWant != "" && strings.Contains(o.stderr, tc.notWant) {
			t.Errorf("%v: stderr: got %q, want it to contain %q and not %q", tc.args, o.stderr, tc.want, tc.notWant)
		}
		if o.stdout != "" {
			t.Errorf("%v: stdout: got %q, want nothing (the note goes to stderr)", tc.args, o.stdout)
		}
	}
}

// TestEnvironmentSetsFlags: MONGOBENCH_<FLAG> is a flag's default under
// every command that has the flag; the command line wins; a value the
// flag refuses is bad input naming the variable.
func TestEnvironmentSetsFlags(t *testing.T) {
	t.Setenv("MONGOBENCH_REPEAT", "0")
	t.Setenv("MONGOBENCH_WORKLOAD", "nope")
	o := mb(t, "sla", "--rate", "100", "--p99", "20ms")
	wantCode(t, o, cli.ExitUsage)
	if !strings.Contains(o.stderr, "--repeat: got 0") {
		t.Errorf("sla with MONGOBENCH_REPEAT=0: got %q, want the --repeat error", o.stderr)
	}
	o = mb(t, "sla", "--rate", "100", "--p99", "20ms", "--repeat", "1", "--modes", "bulk")
	if strings.Contains(o.stderr, "--repeat") || !strings.Contains(o.stderr, `--modes: "bulk"`) {
		t.Errorf("sla --repeat 1 with MONGOBENCH_REPEAT=0: got %q, want the flag to win", o.stderr)
	}
	t.Setenv("MONGOBENCH_REPEAT", "") // sweep's --repeat is the same option
	o = mb(t, "sweep", "--rate", "100")
	wantCode(t, o, cli.ExitUsage)
	if !strings.Contains(o.stderr, `"nope"`) {
		t.Errorf("sweep with MONGOBENCH_WORKLOAD=nope: got %q, want the workload refused", o.stderr)
	}
	t.Setenv("MONGOBENCH_REPEAT", "many")
	o = mb(t, "sla", "--rate", "100", "--p99", "20ms")
	wantCode(t, o, cli.ExitUsage)
	if line := errorLine(t, o, false); !strings.Contains(line, `MONGOBENCH_REPEAT=many: --repeat: "many" is not valid`) {
		t.Errorf("MONGOBENCH_REPEAT=many: got %q, want the variable named", line)
	}
}

// TestEnvironmentSetsRunSettings: in run, a variable is a default: the
// scenario file's setting wins over it, and a flag over both.
func TestEnvironmentSetsRunSettings(t *testing.T) {
	uri := testenv.URI(t)
	db := testenv.DBName(t)
	dropAfter(t, connect(t, uri), db)
	file := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(file, []byte("workload: kv\nops: 30\nparams: {records: 100}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Setenv("MONGOBENCH_OPS", "20")
	t.Setenv("MONGOBENCH_THREADS", "3")
	t.Setenv("MONGOBENCH_LABEL", "from-env")
	o := mb(t, "run", file, "--uri", uri, "--database", db, "--label", "from-flag", "--no-report", "--json", "--results-file", filepath.Join(t.TempDir(), "r.jsonl"))
	wantCode(t, o, cli.ExitOK)
	var d struct {
		ID     struct{ Label string } `json:"_id"`
		Config struct {
			Ops     int64 `json:"ops"`
			Threads int   `json:"numberOfThreads"`
		} `json:"test_config"`
	}
	if err := json.Unmarshal([]byte(o.stdout), &d); err != nil {
		t.Fatalf("run --json: %v\n%s", err, o)
	}
	if d.Config.Ops != 30 || d.Config.Threads != 3 || d.ID.Label != "from-flag" {
		t.Errorf("ops %d, threads %d, label %q: want 30 (the file's), 3 (MONGOBENCH_THREADS) and from-flag (the flag's)", d.Config.Ops, d.Config.Threads, d.ID.Label)
	}
}

// TestUnknownVariableWarns: a MONGOBENCH_ variable that is no flag's is
// reported with the nearest flag's, a deprecated name's with its flag's; the
// variables read elsewhere are not.
func TestUnknownVariableWarns(t *testing.T) {
	t.Setenv("MONGOBENCH_TRHEADS", "4")
	t.Setenv("MONGOBENCH_TPS", "100")
	t.Setenv("MONGOBENCH_SERVER_BIN", "")
	o := mb(t, "catalog", "list")
	wantCode(t, o, cli.ExitOK)
	for _, want := range []string{
		"warning: MONGOBENCH_TRHEADS is not read: no command has the flag it would set; the closest variable is MONGOBENCH_THREADS (--threads)\n",
		"warning: MONGOBENCH_TPS is not read: --tps is a deprecated name of --rate; set MONGOBENCH_RATE\n",
	} {
		if !strings.Contains(o.stderr, want) {
			t.Errorf("stderr: got %q, want %q", o.stderr, want)
		}
	}
	if n := strings.Count(o.stderr, "\n"); n != 2 {
		t.Errorf("stderr: got %d lines, want the two warnings:\n%s", n, o.stderr)
	}
}

// TestHelpShowsTypedFlags: help names each flag's kind.
func TestHelpShowsTypedFlags(t *testing.T) {
	for cmd, wants := range map[string][]string{
		"run":         {"--threads int", "--duration duration", "--rate rate", "--ops int", "--max-lag duration", "--tags strings", "--results string"},
		"sweep":       {"--rate rates", "--price price", "--start-rate float", "--duration duration", "--threads int", "--json"},
		"sla":         {"--rate rates", "--start-rate float", "--rate-step float", "--max-rate float", "--json"},
		"catalog run": {"--scale scale", "--price price", "--cache-size size", "--report-dir string", "--json"},
		"compare":     {"--price label=price"},
		"calibrate":   {"--json"},
		"load":        {"--json"},
	} {
		o := mb(t, append(strings.Fields(cmd), "--help")...)
		wantCode(t, o, cli.ExitOK)
		for _, w := range wants {
			if !strings.Contains(o.stdout, w+" ") && !strings.Contains(o.stdout, w+"\n") {
				t.Errorf("%s --help: want %q in\n%s", cmd, w, o.stdout)
			}
		}
		for _, hidden := range []string{"--tps", "--rates", "--cost-per-hour", "--results-uri", "float64"} {
			if strings.Contains(o.stdout, hidden) {
				t.Errorf("%s --help shows %q", cmd, hidden)
			}
		}
	}
}

// TestVersion: the tool's, Go's and the driver's versions, and the
// embedded server's (or that none is installed), as text and JSON.
func TestVersion(t *testing.T) {
	o := mb(t, "version")
	wantCode(t, o, cli.ExitOK)
	lines := strings.Split(strings.TrimSpace(o.stdout), "\n")
	prefixes := []string{"mongobench ", "go         go1.", "driver     go.mongodb.org/mongo-driver/v2 v2.", "server     "}
	if len(lines) != len(prefixes) {
		t.Fatalf("version: got %d lines, want %d:\n%s", len(lines), len(prefixes), o.stdout)
	}
	for i, p := range prefixes {
		if !strings.HasPrefix(lines[i], p) {
			t.Errorf("version line %d: got %q, want it to start %q", i+1, lines[i], p)
		}
	}
	o = mb(t, "version", "--json")
	wantCode(t, o, cli.ExitOK)
	var v struct {
		Version, Go, Driver string
		Server              *struct{ Kind, Version, Path, Error string }
	}
	if err := json.Unmarshal([]byte(o.stdout), &v); err != nil {
		t.Fatalf("version --json: %v\n%s", err, o.stdout)
	}
	if v.Version != cli.Version || !strings.HasPrefix(v.Go, "go1.") || !strings.HasPrefix(v.Driver, "v2.") {
		t.Errorf("version --json: got %+v", v)
	}
	if v.Server != nil && (v.Server.Path == "" || v.Server.Version == "" && v.Server.Error == "") {
		t.Errorf("version --json: server %+v, want its path and version (or why not)", *v.Server)
	}
	if !testing.Short() && (v.Server == nil || v.Server.Version == "") {
		t.Errorf("version --json: server %+v, want the installed test server's version", v.Server)
	}
}

// TestStudiesPrintJSON: sweep, sla and load print their runs' stored
// documents as JSON with --json, and nothing else on stdout.
func TestStudiesPrintJSON(t *testing.T) {
	uri := testenv.URI(t)
	db := testenv.DBName(t)
	dropAfter(t, connect(t, uri), db)
	file := filepath.Join(t.TempDir(), "r.jsonl")
	short := []string{"--uri", uri, "--database", db, "--duration", "1s", "--warmup", "0s", "--results-file", file, "--report-dir", "", "--json"}
	for _, tc := range []struct {
		args []string
		test string
	}{
		{append([]string{"sweep", "--workload", "kv", "--rate", "50", "-p", "records=100"}, short...), "kv"},
		{append([]string{"sla", "--rate", "20", "--p99", "1s", "--repeat", "1", "--modes", "per-op", "-p", "accounts=100"}, short...), "txn_sla"},
	} {
		o := mb(t, tc.args...)
		wantCode(t, o, cli.ExitOK)
		var docs []struct {
			ID struct{ Testname string } `json:"_id"`
		}
		if err := json.Unmarshal([]byte(o.stdout), &docs); err != nil {
			t.Fatalf("%s --json: %v\n%s", tc.args[0], err, o)
		}
		if len(docs) != 1 || docs[0].ID.Testname != tc.test {
			t.Errorf("%s --json: got %+v, want one run of %s", tc.args[0], docs, tc.test)
		}
	}
	o := mb(t, "load", "--uri", uri, "--database", db, "--workload", "ycsb-a", "-p", "recordcount=100", "--results-file", file, "--report-dir", "", "--json")
	wantCode(t, o, cli.ExitOK)
	var d struct {
		ID struct{ Testname string } `json:"_id"`
	}
	if err := json.Unmarshal([]byte(o.stdout), &d); err != nil || d.ID.Testname != "ycsb-a" {
		t.Errorf("load --json: got %+v, %v\n%s", d, err, o)
	}
}
