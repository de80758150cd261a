package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/options"
	"github.com/mongobench/mongobench/internal/runner"
	"github.com/mongobench/mongobench/internal/secret"
	"github.com/mongobench/mongobench/internal/server"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/workload"
)

// Version is the tool's version, set at build time with
// -ldflags "-X github.com/mongobench/mongobench/internal/cli.Version=...".
var Version = "dev"

// Exit codes.
const (
	ExitOK          = 0
	ExitFailure     = 1  // the run or command failed
	ExitUsage       = 2  // bad flags, arguments or scenario file
	ExitVerdict     = 99 // a threshold or a study's verdict failed (as k6's thresholds)
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
	warned map[string]bool // connection strings already warned about
	// term says whether standard error is a terminal (the live line) and
	// statusInterval how often a run prints a status line when it is not.
	term           terminal
	statusInterval time.Duration
	registry       *workload.Registry // workloads(): built once
}

// Main runs the command line and returns the exit code.
func Main(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	t := terminalOf(stderr)
	options.RememberSecrets(args, environ())
	stdout, stderr = secret.NewWriter(stdout), secret.NewWriter(stderr)
	a := &app{ctx: ctx, stdout: stdout, stderr: stderr, term: t, statusInterval: options.DefaultStatusInterval}
	root := a.root()
	options.QuietDeprecations(root, stderr)
	for _, w := range options.UnknownEnv(root, environ()) {
		a.say("%s\n", w)
	}
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	return a.exitCode(err)
}

func (a *app) exitCode(err error) int {
	var ue usageError
	var se *spec.Error
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, errInterrupted), errors.Is(err, runner.ErrInterrupted):
		fmt.Fprintf(a.stderr, "mongobench: %s\n", oneParagraph(err))
		return ExitInterrupted
	case errors.As(err, &ue), errors.As(err, &se), errors.Is(err, runner.ErrBadURI), isUnknownCommand(err):
		fmt.Fprintf(a.stderr, "mongobench: %s\n", oneParagraph(err))
		return ExitUsage
	case errors.Is(err, study.ErrVerdict):
		fmt.Fprintf(a.stderr, "mongobench: %s\n", oneParagraph(err))
		return ExitVerdict
	}
	fmt.Fprintf(a.stderr, "mongobench: %s\n", oneParagraph(err))
	return ExitFailure
}

// unknownCommand is the error cobra returns, unwrapped, for a word after
// "mongobench" that names no command (followed by its suggestions).
var unknownCommand = regexp.MustCompile(`^unknown command ".*" for "mongobench"`)

// isUnknownCommand recognises cobra's unknown-command error. Every other
// error of cobra's own is a usage error already: flag errors go through the
// root's flag error function and argument checks are wrapped by
// options.WrapArgErrors, so nothing depends on what a message says, such as a
// server's "requires authentication".
func isUnknownCommand(err error) bool {
	return unknownCommand.MatchString(err.Error())
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
default server), measures latency from each operation's intended start and
its service time, samples the server and host, and stores every run as a
document. Manual: README.md and docs/.`,
		Example: `  mongobench run --workload kv --rate 1000/s --duration 30s --warmup 5s
  mongobench sla --rate 500 --p99 20ms --repeat 5
  mongobench sweep --workload ycsb-b --rate auto --label a
  mongobench compare --label a --label b
  mongobench results list`,
		Version:       Version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(a.runCmd(), a.slaCmd(), a.sweepCmd(), a.compareCmd(), a.changesCmd(), a.calibrateCmd(), a.loadCmd(), a.serverCmd(), a.resultsCmd(), a.serveCmd(), a.tablesCmd(), a.reportCmd(), a.catalogCmd(), a.planCmd(), a.cleanCmd(), a.workloadsCmd(), a.versionCmd(), a.ftdcCmd(), a.recordCmd(), a.replayCmd(), a.canaryCmd())
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usage(options.FlagError(err)) })
	options.WrapArgErrors(root, usage) // argument errors are usage errors
	var profile string
	root.PersistentFlags().StringVar(&profile, "cpuprofile", "", "write a Go CPU profile of the tool itself to this file")
	_ = root.PersistentFlags().MarkHidden("cpuprofile")
	root.PersistentPreRunE = func(cmd *cobra.Command, _ []string) error {
		if err := options.FromEnv(cmd.Flags(), env); err != nil {
			return usage(err)
		}
		return a.startProfile(profile)
	}
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
// cli is the only package that reads the environment; others get what they
// need from it, such as serverEnv.
func env(name string) string { return os.Getenv(name) }

// environ lists the environment's variables as name=value.
func environ() []string { return os.Environ() }

// serverEnv is the environment the server package finds binaries and
// directories in.
func serverEnv() server.Env { return server.EnvFrom(env) }
