package cli

import (
	"context"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/htmlreport"
	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/telemetry"
)

func (a *app) ftdcCmd() *cobra.Command {
	var from, to spec.Time
	var htmlPath string
	var metrics []string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "ftdc DIR",
		Short: "Summarise a window of a server's FTDC files (diagnostic.data)",
		Long: `Summarise a window of a mongod's or mongos's FTDC files (diagnostic.data, or
one metrics.* file) second by second: each figure's minimum, median, p99 and
maximum; --html writes its charts over time. Manual: docs/ftdc.md.`,
		Example: `  mongobench ftdc /var/lib/mongodb/diagnostic.data
  mongobench ftdc diagnostic.data --from 2026-03-01T12:00:00Z --to 2026-03-01T13:00:00Z --html window.html
  mongobench ftdc diagnostic.data --metric "disk writes" --metric "checkpoint duration" --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			r := telemetry.FTDCRead{Path: args[0], From: time.Time(from), To: time.Time(to), Progress: a.ftdcProgress()}
			if !r.From.IsZero() && !r.To.IsZero() && !r.To.After(r.From) {
				return usage(fmt.Errorf("--to %s is not after --from %s", to, from))
			}
			if err := report.CheckFTDCFigures(metrics); err != nil {
				return usage(fmt.Errorf("--metric: %w", err))
			}
			w := &report.FTDCWindow{Path: args[0]}
			info, err := r.Figures(cmd.Context(), func(f telemetry.Figures) { w.Add(f.Start, f.End, f.Server, f.Host) }, func(n int) { w.Samples += n })
			a.ftdcProgressDone()
			if err != nil {
				return ftdcError(cmd.Context(), err)
			}
			w.Versions = info.Versions
			sum := w.Summary(metrics)
			if htmlPath != "" {
				if err := writeFile(htmlPath, func(f *os.File) error { return htmlreport.FTDC(f, sum, w.Charts(metrics)) }); err != nil {
					return err
				}
				a.say("page: %s\n", htmlPath)
			}
			if asJSON {
				return a.writeJSON(sum)
			}
			return sum.WriteText(a.stdout)
		},
	}
	cmd.Flags().Var(&from, "from", "the window's start (RFC 3339, or a UTC date and time); default: the first sample")
	cmd.Flags().Var(&to, "to", "the window's end; default: the last sample")
	cmd.Flags().StringArrayVar(&metrics, "metric", nil, "summarise only this figure (repeatable): "+strings.Join(report.FTDCFigureNames(), ", "))
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the summary as JSON")
	cmd.Flags().StringVar(&htmlPath, "html", "", "also write the window's page, with its charts, to this file")
	return cmd
}

// ftdcError is a failed read of FTDC files: an interruption, or bad
// input (the files are what the user gave).
func ftdcError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%w: reading FTDC files", errInterrupted)
	}
	return usage(err)
}

// writeFile creates path and writes it with fn, removing it on failure.
func writeFile(path string, fn func(*os.File) error) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if err := fn(f); err != nil {
		_ = f.Close()
		_ = os.Remove(path)
		return fmt.Errorf("%s: %w", path, err)
	}
	return f.Close()
}

// ftdcProgress shows, on a terminal, how far the reading of FTDC files
// of 32 MB or more has gone, on standard error; ftdcProgressDone clears
// it.
func (a *app) ftdcProgress() func(done, total int64) {
	var last time.Time
	return func(done, total int64) {
		if !a.term.live || total < 32<<20 || time.Since(last) < 200*time.Millisecond {
			return
		}
		last, a.progressShown = time.Now(), true
		fmt.Fprintf(a.stderr, "\rreading FTDC: %3.0f%% (%d of %d MB)", 100*float64(done)/float64(total), done>>20, total>>20)
	}
}

func (a *app) ftdcProgressDone() {
	if a.progressShown {
		fmt.Fprint(a.stderr, "\r\033[K")
		a.progressShown = false
	}
}
