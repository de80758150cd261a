package cli

import (
	"fmt"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/diagnosis"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/telemetry"
)

// resultsAttachFTDCCmd reads a run's window from a server's FTDC files
// into the run's series and diagnoses it again.
func (a *app) resultsAttachFTDCCmd() *cobra.Command {
	var resultsURI, diskLimit, link string
	cmd := &cobra.Command{
		Use:   "attach-ftdc RUN_ID DIR",
		Short: "Read a run's seconds from the server's FTDC files into its series, and diagnose it again",
		Long: `Read the samples of a stored run's measured phase from the server's FTDC
files (its diagnostic.data directory, or one metrics.* file) into the run's
series, one a second with source "ftdc": the host's CPU and data disk, the
server's latency, and the cache, checkpoint, ticket and queue figures the
diagnosis reads. A series the run measured itself is kept; one an earlier
attach-ftdc stored is replaced. The diagnosis (what limited the run, and
what its p99 tail coincided with) is computed again, and the run is stored
again under its own id: in the history, and as its test's row in results
unless that row is newer, or complete while the run is partial. See
docs/ftdc.md.`,
		Example: "  mongobench results attach-ftdc 20260301T120000Z-ab12 /var/lib/mongodb/diagnostic.data",
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := result.CheckID("run id", args[0]); err != nil {
				return usage(err)
			}
			limits, err := diagnosis.ParseDiskLimit(diskLimit)
			if diskLimit == "" {
				limits, err = diagnosis.Limits{}, nil
			}
			if err != nil {
				return usage(fmt.Errorf("--disk-limit: %w", err))
			}
			if link != "" {
				if limits.LinkBytesPerSec, err = diagnosis.ParseLink(link); err != nil {
					return usage(fmt.Errorf("--link: %w", err))
				}
			}
			st, closeFn, err := a.resultsStore(cmd.Context(), resultsURI, "")
			if err != nil {
				return err
			}
			defer closeFn()
			m, ok := st.(store.Importer)
			if !ok {
				return usage(fmt.Errorf("attach-ftdc stores the run again under its id in a MongoDB results store; %s is not one", st.Where()))
			}
			d, err := st.Get(cmd.Context(), args[0])
			if err != nil {
				return err
			}
			n, err := a.attachFTDC(cmd, d, args[1], limits)
			if err != nil {
				return err
			}
			out, err := m.Import(cmd.Context(), d)
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "run %s: %d FTDC samples attached from %s; stored again (%s)\n", d.RunID, n, args[1], out)
			if d.Diagnosis != nil {
				fmt.Fprintln(a.stdout, d.Diagnosis.Line)
				if t := d.Diagnosis.Tail; t != nil {
					fmt.Fprintln(a.stdout, t.Line)
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&resultsURI, "results", "", "results MongoDB URI (default: $MONGOBENCH_RESULTS_URI, else the embedded server)")
	cmd.Flags().StringVar(&diskLimit, "disk-limit", "", "the data disk's ceiling the diagnosis judges against, as the run stated it (225MB/s, 3000iops or both)")
	cmd.Flags().StringVar(&link, "link", "", "the network link's speed the diagnosis judges against, as the run stated it (10Gbit/s)")
	return cmd
}

// attachFTDC reads the samples of d's measured phase (and the one on
// either side, so its first and last seconds have both their bounds)
// from the FTDC files at dir into d's series, notes it, and diagnoses d
// again. It returns how many samples it read.
func (a *app) attachFTDC(cmd *cobra.Command, d *result.Doc, dir string, limits diagnosis.Limits) (int, error) {
	from, to := d.Start.Add(-time.Second), d.End.Add(time.Second)
	var samples []telemetry.Sample
	_, err := a.readFTDC(cmd.Context(), dir, from, to, func(before, after telemetry.Sample) {
		if len(samples) == 0 || !samples[len(samples)-1].Time.Equal(before.Time) {
			samples = append(samples, before)
		}
		samples = append(samples, after)
	}, func(int) {})
	if err != nil {
		return 0, ftdcError(cmd.Context(), err)
	}
	if len(samples) < 2 {
		return 0, usage(fmt.Errorf("%s: no FTDC samples of run %s's measured phase (%s to %s): is it the directory of the server the run measured, and does it still hold those seconds?",
			dir, d.RunID, d.Start.UTC().Format(time.RFC3339), d.End.UTC().Format(time.RFC3339)))
	}
	added, kept := telemetry.Attach(&d.Metrics, telemetry.FTDCSeries(samples, from, to))
	note := fmt.Sprintf("series from the server's FTDC files (%s), %d samples, attached after the run: %s", dir, len(samples), strings.Join(added, ", "))
	if len(kept) > 0 {
		note += "; the run's own " + strings.Join(kept, ", ") + " kept"
	}
	d.Notes = append(d.Notes, note)
	d.Diagnosis = diagnosis.Diagnose(d, limits)
	return len(samples), nil
}
