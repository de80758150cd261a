package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/canary"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/texttable"
)

// maxCanaryRepeat bounds canary --repeat.
const maxCanaryRepeat = 100

func (a *app) canaryCmd() *cobra.Command {
	var asJSON bool
	var repeat int
	cmd := &cobra.Command{
		Use:   "canary",
		Short: "Measure this client host's noise now: the canary every run takes before and after itself",
		Long: `Take the noise canary of this host, the one every run stores before and after itself: an
integer loop, a walk of memory beyond the caches, a loopback round trip and the pacer's own precise
sleep, each a figure per step, in about a fifth of a second. A busy host shows in the slowest loop,
the loopback p99 and the late wake-ups. Manual: docs/validity.md.`,
		Example: `  mongobench canary
  mongobench canary --repeat 5 --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if repeat < 1 || repeat > maxCanaryRepeat {
				return usage(fmt.Errorf("--repeat: %d: want 1 to %d", repeat, maxCanaryRepeat))
			}
			var all []result.Canary
			for range repeat {
				c, err := canary.Take(cmd.Context(), canary.Default)
				if err != nil {
					return err
				}
				all = append(all, c)
			}
			if asJSON {
				return a.writeJSON(all)
			}
			cols := []string{"figure", "unit"}
			for i := range all {
				cols = append(cols, fmt.Sprintf(">#%d", i+1))
			}
			t := texttable.New(cols...)
			for _, f := range result.CanaryFigures {
				row := []string{f.Name, f.Unit}
				for _, c := range all {
					row = append(row, texttable.TextCells.Num(f.Value(c)))
				}
				t.Add(row...)
			}
			if err := t.WriteText(a.stdout, true); err != nil {
				return err
			}
			for i, c := range all {
				for _, p := range c.Problems {
					a.say("#%d: %s\n", i+1, p)
				}
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the readings as JSON")
	cmd.Flags().IntVar(&repeat, "repeat", 1, "take the canary this many times, one column each")
	return cmd
}
