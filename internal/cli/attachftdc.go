package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/options"
	"github.com/mongobench/mongobench/internal/progress"
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
		Long: `Read a stored run's measured phase from the server's FTDC files into its
series (source "ftdc"; the run's own series kept), diagnose it again, and
store it again under its id. Manual: docs/ftdc.md.`,
		Example: "  mongobench results attach-ftdc 20260301T120000Z-ab12 /var/lib/mongodb/diagnostic.data",
		Args:    cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := result.CheckID("run id", args[0]); err != nil {
				return usage(err)
			}
			limits, err := options.Limits(diskLimit, link)
			if err != nil {
				return usage(err)
			}
			err = a.withImporter(cmd.Context(), resultsURI, "attach-ftdc stores the run again under its id in", func(st store.Store, m store.Importer) error {
				d, err := st.Get(cmd.Context(), args[0])
				if err != nil {
					return err
				}
				p := &progress.ReadProgress{W: a.stderr, Live: a.term.live, What: "reading FTDC"}
				r := telemetry.FTDCRead{Path: args[1], Progress: p.Update}
				r.From, r.To = telemetry.RunWindow(d)
				samples, err := r.Samples(cmd.Context())
				if p.Done(); err != nil {
					return ftdcError(cmd.Context(), err)
				}
				if err := telemetry.AttachFTDC(d, samples, args[1], limits); err != nil {
					return usage(err)
				}
				out, err := m.Import(cmd.Context(), d)
				if err != nil {
					return err
				}
				fmt.Fprintf(a.stdout, "run %s: %d FTDC samples attached from %s; stored again (%s)\n", d.RunID, len(samples), args[1], out)
				if d.Diagnosis != nil {
					fmt.Fprintln(a.stdout, d.Diagnosis.Line)
					if t := d.Diagnosis.Tail; t != nil {
						fmt.Fprintln(a.stdout, t.Line)
					}
				}
				return nil
			})
			if err != nil && cmd.Context().Err() != nil && !errors.Is(err, errInterrupted) {
				return fmt.Errorf("%w: attaching FTDC samples to run %s; the run is stored as it was unless it was being stored again, and attaching again finishes it (attaching twice changes nothing)", errInterrupted, args[0])
			}
			return err
		},
	}
	cmd.Flags().StringVar(&resultsURI, "results", "", "results MongoDB URI (default: $MONGOBENCH_RESULTS_URI, else the embedded server)")
	cmd.Flags().StringVar(&diskLimit, "disk-limit", "", "the data disk's ceiling the diagnosis judges against, as the run stated it (225MB/s, 3000iops or both)")
	cmd.Flags().StringVar(&link, "link", "", "the network link's speed the diagnosis judges against, as the run stated it (10Gbit/s)")
	return cmd
}
