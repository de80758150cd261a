package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/ftdc"
	"github.com/mongobench/mongobench/internal/htmlreport"
	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/telemetry"
)

// ftdcTimeLayouts are the forms --from and --to take.
var ftdcTimeLayouts = []string{time.RFC3339Nano, "2006-01-02T15:04:05", "2006-01-02 15:04:05", "2006-01-02T15:04", "2006-01-02"}

// parseFTDCTime reads a --from or --to value: an RFC 3339 time, or a
// date and time without a zone, taken as UTC (FTDC's own).
func parseFTDCTime(flag, s string) (time.Time, error) {
	if s == "" {
		return time.Time{}, nil
	}
	for _, l := range ftdcTimeLayouts {
		if t, err := time.Parse(l, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("--%s: %q is not valid: want a time such as 2026-03-01T12:00:00Z, 2026-03-01T12:00:00 (UTC) or 2026-03-01", flag, s)
}

func (a *app) ftdcCmd() *cobra.Command {
	var from, to, htmlPath string
	var metrics []string
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "ftdc DIR",
		Short: "Summarise a window of a server's FTDC files (diagnostic.data)",
		Long: `Read the FTDC files of a mongod or mongos (its diagnostic.data directory,
or one metrics.* file) and summarise a window of them second by second:
operations, server latency from opLatencies, tickets, the cache's fill and
dirty share, checkpoints (their durations among them), eviction by
application threads, and the host's CPU and data disk. For each figure it
prints the window's minimum, median, p99 and maximum. --html writes a page
with the same figures over time, as interactive charts. See docs/ftdc.md.`,
		Example: `  mongobench ftdc /var/lib/mongodb/diagnostic.data
  mongobench ftdc diagnostic.data --from 2026-03-01T12:00:00Z --to 2026-03-01T13:00:00Z --html window.html
  mongobench ftdc diagnostic.data --metric "disk writes" --metric "checkpoint duration" --json`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			f, err := parseFTDCTime("from", from)
			if err != nil {
				return usage(err)
			}
			t, err := parseFTDCTime("to", to)
			if err != nil {
				return usage(err)
			}
			if !f.IsZero() && !t.IsZero() && !t.After(f) {
				return usage(fmt.Errorf("--to %s is not after --from %s", to, from))
			}
			names := report.FTDCFigureNames()
			for _, m := range metrics {
				if !slices.Contains(names, m) {
					return usage(fmt.Errorf("--metric: %q is not a figure; valid: %s", m, strings.Join(names, ", ")))
				}
			}
			w := &report.FTDCWindow{Path: args[0]}
			info, err := a.readFTDC(cmd.Context(), args[0], f, t, func(before, after telemetry.Sample) {
				fig := telemetry.FigureOf(before, after)
				w.Add(fig.Start, fig.End, fig.Server, fig.Host)
			}, func(n int) { w.Samples += n })
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
				b, err := json.MarshalIndent(sum, "", "  ")
				if err != nil {
					return err
				}
				_, err = fmt.Fprintln(a.stdout, string(b))
				return err
			}
			return sum.WriteText(a.stdout)
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "the window's start (RFC 3339, or a UTC date and time); default: the first sample")
	cmd.Flags().StringVar(&to, "to", "", "the window's end; default: the last sample")
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

// progressFloor is the size of FTDC files from which reading them shows
// its progress on a terminal.
const progressFloor = 32 << 20

// readFTDC reads the samples of [from, to] (zero: open) of an FTDC
// directory or file and calls pair with each two consecutive samples
// within it, and samples with the number of samples each chunk had in
// the window. On a terminal, a large directory's progress is shown on
// standard error.
func (a *app) readFTDC(ctx context.Context, dir string, from, to time.Time, pair func(before, after telemetry.Sample), samples func(int)) (ftdc.Info, error) {
	files, err := ftdc.Files(dir)
	if err != nil {
		return ftdc.Info{}, err
	}
	var last time.Time
	shown := false
	progress := func(done, total int64) {
		if !a.term.live || total < progressFloor || time.Since(last) < 200*time.Millisecond {
			return
		}
		last, shown = time.Now(), true
		fmt.Fprintf(a.stderr, "\rreading FTDC: %3.0f%% (%d of %d MB)", 100*float64(done)/float64(total), done>>20, total>>20)
	}
	in := func(t time.Time) bool { return (from.IsZero() || !t.Before(from)) && (to.IsZero() || !t.After(to)) }
	var pairs telemetry.FTDCPairs
	info, err := ftdc.Scan{Files: files, From: from, To: to, Progress: progress}.Run(func(c *ftdc.Chunk, _ ftdc.Document) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		n := 0
		for _, t := range c.Times() {
			if in(t) {
				n++
			}
		}
		samples(n)
		pairs.Add(c, func(before, after telemetry.Sample) {
			if in(before.Time) && in(after.Time) {
				pair(before, after)
			}
		})
		return nil
	})
	if shown {
		fmt.Fprint(a.stderr, "\r\033[K")
	}
	return info, err
}
