package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime/pprof"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/runner"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/template"
	"github.com/mongobench/mongobench/internal/uri"
)

// Version is the tool's version, set at build time with
// -ldflags "-X github.com/mongobench/mongobench/internal/cli.Version=...".
var Version = "dev"

// Exit codes.
const (
	ExitOK          = 0
	ExitFailure     = 1 // the run or command failed
	ExitUsage       = 2 // bad flags, arguments or scenario file
	ExitInterrupted = 130
)

// errInterrupted marks a run stopped by Ctrl-C whose partial result was
// kept; a study's stop is the same error.
var errInterrupted = study.ErrStopped

// usageError is bad input from the user: flags, arguments, files.
type usageError struct{ err error }

func (e usageError) Error() string { return e.err.Error() }
func (e usageError) Unwrap() error { return e.err }

func usage(err error) error { return usageError{err} }

// app is what every command shares.
type app struct {
	ctx    context.Context
	stdout io.Writer
	stderr io.Writer
}

// Main runs the command line and returns the exit code.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	a := &app{ctx: ctx, stdout: stdout, stderr: stderr}
	root := a.root()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	return a.exitCode(err)
}

func (a *app) exitCode(err error) int {
	var ue usageError
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, errInterrupted):
		fmt.Fprintf(a.stderr, "mongobench: %s\n", oneParagraph(err))
		return ExitInterrupted
	case errors.As(err, &ue), errors.Is(err, runner.ErrBadURI), isCobraUsage(err):
		fmt.Fprintf(a.stderr, "mongobench: %s\n", oneParagraph(err))
		return ExitUsage
	}
	fmt.Fprintf(a.stderr, "mongobench: %s\n", oneParagraph(err))
	return ExitFailure
}

// isCobraUsage recognises cobra's own flag and argument errors.
func isCobraUsage(err error) bool {
	var se *spec.Error
	if errors.As(err, &se) {
		return true
	}
	var te *template.Error
	if errors.As(err, &te) {
		return false // a template's problem, whatever the server's words
	}
	msg := err.Error()
	for _, p := range []string{"unknown flag", "unknown shorthand", "unknown command", "invalid argument", "accepts ", "requires ", "flag needs"} {
		if strings.Contains(msg, p) {
			return true
		}
	}
	return false
}

// oneParagraph keeps multi-error messages readable: one problem a line.
func oneParagraph(err error) string {
	return strings.ReplaceAll(strings.TrimSpace(err.Error()), "\n", "\n  ")
}

func (a *app) root() *cobra.Command {
	root := &cobra.Command{
		Use:   "mongobench",
		Short: "Measure what a MongoDB deployment really does",
		Long: `mongobench drives a workload against any MongoDB URI (or the embedded
default server), measures latency from each operation's intended start as
well as its service time, samples the server and host every second, and
stores every run as a document in a MongoDB results collection.

Start here:
  mongobench run --workload kv --rate 1000/s --duration 30s --warmup 5s
  mongobench run --workload kv --threads 16 --ops 100000      # closed loop
  mongobench run scenario.yaml                                 # from a file
  mongobench sla --tps 500 --p99 20ms --runs 5                 # transactions against an SLA
  mongobench load --workload ycsb-a -p recordcount=100000      # YCSB's load phase, measured
  mongobench sweep --workload ycsb-b --rates auto --label a    # saturation throughput
  mongobench compare --label a --label b                       # two stored sweeps side by side
  mongobench results list
  mongobench server status`,
		Version:       Version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(a.runCmd(), a.slaCmd(), a.sweepCmd(), a.compareCmd(), a.calibrateCmd(), a.loadCmd(), a.serverCmd(), a.resultsCmd(), a.tablesCmd(), a.reportCmd(), a.catalogCmd(), a.planCmd(), a.cleanCmd(), a.workloadsCmd())
	var profile string
	root.PersistentFlags().StringVar(&profile, "cpuprofile", "", "write a Go CPU profile of the tool itself to this file")
	_ = root.PersistentFlags().MarkHidden("cpuprofile")
	root.PersistentPreRunE = func(*cobra.Command, []string) error { return a.startProfile(profile) }
	root.PersistentPostRun = func(*cobra.Command, []string) { pprof.StopCPUProfile() }
	return root
}

// startProfile starts CPU profiling of the tool when asked to.
func (a *app) startProfile(path string) error {
	if path == "" {
		return nil
	}
	f, err := os.Create(path)
	if err != nil {
		return usage(fmt.Errorf("--cpuprofile: %w", err))
	}
	return pprof.StartCPUProfile(f)
}

// env returns an environment variable, so tests can see what is read.
func env(name string) string { return os.Getenv(name) }

// redact is how every URI reaches the terminal.
func redact(s string) string { return uri.Redact(s) }
