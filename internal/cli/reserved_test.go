package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/spec"
)

// TestReservedDatabaseRefused tries every command that takes a data
// database with every name the tool reserves (and a case variant of
// each): each is refused as bad input before anything connects, in one
// line naming the database, and nothing is written. The target is
// unreachable, so a command that got as far as connecting would fail
// differently (exit 1, "cannot reach", after the connect timeout).
func TestReservedDatabaseRefused(t *testing.T) {
	names := spec.ReservedDatabases()
	for _, n := range spec.ReservedDatabases() {
		names = append(names, strings.ToUpper(n[:1])+n[1:])
	}
	commands := []struct {
		name string
		args func(db, dir string) []string
	}{
		{"run", func(db, dir string) []string {
			return []string{"run", "--uri", unreachable, "--database", db, "--workload", "kv", "--ops", "10", "--results-file", filepath.Join(dir, "r.jsonl"), "--no-report"}
		}},
		{"run scenario file", func(db, dir string) []string {
			f := filepath.Join(dir, "s.yaml")
			if err := os.WriteFile(f, []byte("workload: kv\nops: 10\ndatabase: "+db+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			return []string{"run", f, "--uri", unreachable, "--results-file", filepath.Join(dir, "r.jsonl"), "--no-report"}
		}},
		{"sla", func(db, dir string) []string {
			return []string{"sla", "--uri", unreachable, "--database", db, "--rate", "100", "--p99", "20ms", "--repeat", "1", "--results-file", filepath.Join(dir, "r.jsonl"), "--report-dir", filepath.Join(dir, "rep")}
		}},
		{"sweep", func(db, dir string) []string {
			return []string{"sweep", "--uri", unreachable, "--database", db, "--workload", "kv", "--rate", "100", "--results-file", filepath.Join(dir, "r.jsonl"), "--report-dir", filepath.Join(dir, "rep")}
		}},
		{"calibrate", func(db, dir string) []string {
			return []string{"calibrate", "--uri", unreachable, "--database", db, "--workload", "kv", "--results-file", filepath.Join(dir, "r.jsonl"), "--report-dir", filepath.Join(dir, "rep")}
		}},
		{"load", func(db, dir string) []string {
			return []string{"load", "--uri", unreachable, "--database", db, "--workload", "ycsb-a", "--results-file", filepath.Join(dir, "r.jsonl"), "--report-dir", filepath.Join(dir, "rep")}
		}},
		{"catalog run", func(db, dir string) []string {
			return []string{"catalog", "run", "insert_docsize", "--uri", unreachable, "--database", db, "--results-file", filepath.Join(dir, "r.jsonl")}
		}},
		{"clean", func(db, _ string) []string {
			return []string{"clean", "--uri", unreachable, "--database", db}
		}},
	}
	for _, c := range commands {
		for _, db := range names {
			t.Run(c.name+" "+db, func(t *testing.T) {
				dir := t.TempDir()
				args := c.args(db, dir)
				before := entries(t, dir)
				o := mb(t, args...)
				wantCode(t, o, cli.ExitUsage)
				wantQuick(t, o, usageFast)
				lines := strings.Split(strings.TrimRight(o.stderr, "\n"), "\n")
				msg := lines[len(lines)-1] // catalog run describes its test first
				if c.name != "catalog run" {
					msg = errorLine(t, o, false)
				}
				if !strings.Contains(msg, "reserved") || !strings.Contains(msg, db) {
					t.Errorf("error: got %q, want it to say %q is reserved", msg, db)
				}
				if after := entries(t, dir); after != before {
					t.Errorf("files in the test's directory: got %q, want %q (nothing written)", after, before)
				}
			})
		}
	}
}

func entries(t *testing.T, dir string) string {
	t.Helper()
	es, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range es {
		names = append(names, e.Name())
	}
	return strings.Join(names, ",")
}
