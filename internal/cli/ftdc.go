package cli

import (
	"context"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/htmlreport"
	"github.com/mongobench/mongobench/internal/lab"
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
			p := &report.ReadProgress{W: a.stderr, Live: a.term.live, What: "reading FTDC"}
			r := telemetry.FTDCRead{Path: args[0], From: time.Time(from), To: time.Time(to), Progress: p.Update}
			if !r.From.IsZero() && !r.To.IsZero() && !r.To.After(r.From) {
				return usage(fmt.Errorf("--to %s is not after --from %s", to, from))
			}
			if err := report.CheckFTDCFigures(metrics); err != nil {
				return usage(fmt.Errorf("--metric: %w", err))
			}
			w := &report.FTDCWindow{Path: args[0]}
			info, err := r.Figures(cmd.Context(), func(f telemetry.Figures) { w.Add(f.Start, f.End, f.Server, f.Host) }, func(n int) { w.Samples += n })
			p.Done()
			if err != nil {
				return ftdcError(cmd.Context(), err)
			}
			w.Versions = info.Versions
			sum := w.Summary(metrics)
			if htmlPath != "" {
				if err := lab.WriteFile(htmlPath, func(f io.Writer) error { return htmlreport.FTDC(f, sum, w.Charts(metrics)) }); err != nil {
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
