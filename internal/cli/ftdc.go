package cli

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/ftdcwindow"
	"github.com/mongobench/mongobench/internal/htmlreport"
	"github.com/mongobench/mongobench/internal/lab"
	"github.com/mongobench/mongobench/internal/options"
	"github.com/mongobench/mongobench/internal/progress"
	"github.com/mongobench/mongobench/internal/telemetry"
)

func (a *app) ftdcCmd() *cobra.Command {
	var f options.FTDC
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
			p := &progress.ReadProgress{W: a.stderr, Live: a.term.live, What: "reading FTDC"}
			r := telemetry.FTDCRead{Path: args[0], Progress: p.Update}
			var err error
			if r.From, r.To, err = f.Window(); err != nil {
				return usage(err)
			}
			// a bound given is a bound, year 1 included
			r.FromSet, r.ToSet = cmd.Flags().Changed("from"), cmd.Flags().Changed("to")
			w := &ftdcwindow.Window{Path: args[0]}
			info, err := r.Visit(cmd.Context(), telemetry.FTDCVisit{
				Sample: w.Sample,
				Figure: func(f telemetry.Figures) { w.Add(f.Start, f.End, f.Server, f.Host) },
				Gap:    w.Gap,
				Stale:  w.StaleSample,
			})
			if p.Done(); err != nil {
				return ftdcError(cmd.Context(), err)
			}
			w.Versions, w.VersionsFromSamples, w.Roles, w.Layouts, w.Torn = info.Versions, info.VersionsFromSamples, info.Roles, info.Layouts, info.Torn
			sum := w.Summary(f.Metrics)
			if f.HTML != "" {
				if err := lab.WriteFile(f.HTML, func(out io.Writer) error { return htmlreport.FTDC(out, sum, w.Charts(f.Metrics)) }); err != nil {
					return err
				}
				a.say("page: %s\n", f.HTML)
			}
			if f.JSON {
				return a.writeJSON(sum)
			}
			return sum.WriteText(a.stdout)
		},
	}
	f.Add(cmd.Flags())
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
