package cli

import (
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// measuringCommands are the commands that measure: each declares the one
// option set, measureOptions, and opens one lab.
var measuringCommands = []string{"run", "load", "sweep", "sla", "calibrate", "catalog run", "plan"}

// optionSet is every flag of the one option set.
var optionSet = []string{
	"threshold", "abort-on-fail",
	"clients", "client-index", "group", "group-timeout",
	"host-metrics", "host-device",
	"atlas-project", "atlas-cluster", "atlas-process", "atlas-credentials", "atlas-wait",
	"disk-limit", "link", "metrics-addr", "status-interval",
	"report-dir", "no-report", "json", "results", "results-file",
}

// command finds a command by its path under the root, "catalog run".
func command(t *testing.T, root *cobra.Command, path string) *cobra.Command {
	t.Helper()
	c, _, err := root.Find(strings.Fields(path))
	if err != nil || c == root {
		t.Fatalf("no command %q: %v", path, err)
	}
	return c
}

// visibleFlags lists a command's flags that are not hidden or deprecated.
func visibleFlags(c *cobra.Command) []string {
	var names []string
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden && f.Deprecated == "" && f.Name != "help" {
			names = append(names, f.Name)
		}
	})
	slices.Sort(names)
	return names
}

// TestMeasuringCommandsShareTheOptionSet fails when a command that
// measures lacks a flag of the one option set.
func TestMeasuringCommandsShareTheOptionSet(t *testing.T) {
	a := &app{stdout: io.Discard, stderr: io.Discard}
	root := a.root()
	for _, path := range measuringCommands {
		c := command(t, root, path)
		have := visibleFlags(c)
		for _, want := range optionSet {
			if !slices.Contains(have, want) {
				t.Errorf("%s: no --%s (the option set every measuring command accepts)", path, want)
			}
		}
		t.Logf("%s: %s", path, strings.Join(have, " "))
	}
}

// TestScopedFlagNames: a name means one thing across commands; the old
// names still work, hidden, with a note.
func TestScopedFlagNames(t *testing.T) {
	a := &app{stdout: io.Discard, stderr: io.Discard}
	root := a.root()
	for _, tc := range []struct {
		cmd       string
		canonical []string
		hidden    []string
	}{
		{"sweep", []string{"start-rate", "rate-factor", "max-rate", "p99"}, []string{"start", "factor", "max", "sla"}},
		{"sla", []string{"start-rate", "rate-step", "max-rate", "p99", "repeat"}, []string{"start", "step", "max", "runs"}},
		{"calibrate", []string{"start-threads", "threads-factor", "max-threads"}, []string{"start", "factor", "max"}},
		{"plan", []string{"repeat"}, []string{"runs"}},
		{"compare", []string{"p99"}, []string{"sla"}},
	} {
		c := command(t, root, tc.cmd)
		have := visibleFlags(c)
		for _, n := range tc.canonical {
			if !slices.Contains(have, n) {
				t.Errorf("%s: no --%s", tc.cmd, n)
			}
		}
		for _, n := range tc.hidden {
			f := c.Flags().Lookup(n)
			if f == nil || f.Deprecated == "" {
				t.Errorf("%s: --%s is not a deprecated alias", tc.cmd, n)
			}
		}
	}
}

// TestGroupRefusedWhereAStudyCannotRunAsOne: the commands that cannot
// run as a run group say why.
func TestGroupRefusedWhereAStudyCannotRunAsOne(t *testing.T) {
	for _, args := range [][]string{
		{"sla", "--rate", "100", "--p99", "20ms", "--clients", "2", "--client-index", "0", "--group", "g1"},
		{"calibrate", "--workload", "kv", "--clients", "2", "--client-index", "0", "--group", "g1"},
		{"catalog", "run", "insert_docsize", "--clients", "2", "--client-index", "0", "--group", "g1"},
		{"plan", "../../suites/plan-local.yaml", "--clients", "2", "--client-index", "0", "--group", "g1"},
	} {
		var stderr strings.Builder
		code := Main(t.Context(), args, io.Discard, &stderr)
		if code != ExitUsage || !strings.Contains(stderr.String(), "cannot run as a run group") {
			t.Errorf("%v: exit %d, %q; want exit %d and why it cannot run as a group", args, code, stderr.String(), ExitUsage)
		}
	}
}
