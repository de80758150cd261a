package cli

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/options"
	"github.com/mongobench/mongobench/internal/replay"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/workload/recorded"
)

func (a *app) replayCmd() *cobra.Command {
	var rf options.Run
	var speed float64
	var allowWrites, monitoring bool
	var mapNS []string
	var top, explain int
	cmd := &cobra.Command{
		Use:   "replay RECORDING",
		Short: "Replay a traffic recording against a candidate, open loop, and compare it per query shape",
		Long: `Replay a recording (mongobench record's file, a 4.4–7.x server's file, or an
8.x server's recording directory) against --uri: each recorded connection
on a connection of its own, each request sent at its recorded offset
divided by --speed, open loop (latency from that intended instant; the
send lag measured and reported as every run's). Cursor ids, sessions and
transaction numbers are mapped to the candidate's, $clusterTime and the
recorded authentication are dropped (the replay authenticates as --uri
says), monitoring (hello, isMaster, ping) is skipped unless
--include-monitoring. A recording with writes is refused unless
--allow-writes; nothing is ever written to the results database. The run
is stored as every run is, with its per-shape comparison (replay in the
result); the terminal shows the shapes that got slower first. Manual:
docs/replay.md.`,
		Example: `  mongobench replay shop.rec --uri mongodb://candidate:27017
  mongobench replay shop.rec --uri mongodb://candidate:27017 --speed 2 --label m7g.large
  mongobench replay shop.rec --uri mongodb://staging:27017 --map-ns shop.=shop_staging. --allow-writes`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			fs := cmd.Flags()
			if fs.Changed("workload") || len(rf.Params) > 0 || len(rf.Files) > 0 {
				return usage(fmt.Errorf("replay: its workload is the recording %s; --workload, -p and -P do not apply", args[0]))
			}
			for _, name := range replayKeeps {
				if fs.Changed(name) {
					return usage(fmt.Errorf("replay: --%s does not apply: a replay keeps the recording's own connections, pace and length (--speed changes the pace)", name))
				}
			}
			if !(speed > 0) || speed > 1000 {
				return usage(fmt.Errorf("--speed %g: want a number above 0, at most 1000 (2: twice as fast)", speed))
			}
			for _, m := range mapNS {
				if _, err := replay.ParseNSRule(m); err != nil {
					return usage(err)
				}
			}
			if err := fs.Set("workload", recorded.Name); err != nil {
				return err
			}
			rf.Params = []string{"file=" + args[0], "speed=" + strconv.FormatFloat(speed, 'g', -1, 64),
				"allowWrites=" + strconv.FormatBool(allowWrites), "includeMonitoring=" + strconv.FormatBool(monitoring)}
			if explain < 0 || explain > 1000 {
				return usage(fmt.Errorf("--explain %d: want 0 to 1000 shapes", explain))
			}
			rf.Params = append(rf.Params, "explain="+strconv.Itoa(explain))
			if len(mapNS) > 0 {
				rf.Params = append(rf.Params, "mapNs="+strings.Join(mapNS, ","))
			}
			reg := a.workloads()
			sc, where, err := rf.Scenario(fs, nil, reg)
			if err != nil {
				return usage(err)
			}
			// The registry's replay workload reads the recording into its
			// plan once: here, so a damaged recording or a refused write is
			// one line before anything connects, and the run reuses it.
			w, err := reg.Get(recorded.Name)
			if err != nil {
				return err
			}
			if _, err := w.(*recorded.Workload).Plan(sc.Params); err != nil {
				return usage(err)
			}
			lo, err := rf.Options(cmd.Context(), fs, where, env)
			var doc *result.Doc
			s := capture{Study: study.Single{Scenario: sc}.Study(), doc: &doc}
			merr := a.measure(cmd.Context(), s, reg, &rf.Measure, lo, err)
			a.shapes(doc, top, rf.JSON)
			return merr
		},
	}
	fl := cmd.Flags()
	fl.Float64Var(&speed, "speed", 1, "recorded offsets are divided by it (2: twice as fast)")
	fl.BoolVar(&allowWrites, "allow-writes", false, "send the recording's writes: the candidate takes them")
	fl.BoolVar(&monitoring, "include-monitoring", false, "replay hello, isMaster and ping too")
	fl.StringArrayVar(&mapNS, "map-ns", nil, "rewrite namespaces FROM=TO, repeatable: prod.=staging. (a database), prod.orders=staging.orders (a collection)")
	fl.IntVar(&explain, "explain", 0, "capture on the candidate the winning plan of this many of the heaviest shapes, stored with the run")
	fl.IntVar(&top, "top", shapesShown, "shapes shown on the terminal (all are stored)")
	rf.Add(fl, options.Help{ReportDir: "mongobench-reports", JSON: "print the result document as JSON instead of the summary"})
	return cmd
}

// replayKeeps are run's flags a replay has no use for: the recording
// brings its connections, its pace and its length, and is one client.
var replayKeeps = []string{"threads", "rate", "arrival", "duration", "warmup", "ops", "max-lag", "clients", "client-index", "group", "group-timeout"}

// shapesShown is how many query shapes a replay's run shows on the
// terminal by default (all are stored).
const shapesShown = 20

// shapes prints the per-shape table of a run that replayed a recording
// (top of its shapes, the slower first) on standard output (standard
// error with --json); nothing for any other run.
func (a *app) shapes(doc *result.Doc, top int, json bool) {
	if doc == nil || doc.Replay == nil {
		return
	}
	w := a.stdout
	if json {
		w = a.stderr
	}
	fmt.Fprint(w, "\n"+replay.View(doc, top))
}

// capture is a study that keeps its run's document.
type capture struct {
	study.Study
	doc **result.Doc
}

func (c capture) Run(ctx context.Context, env study.Env) (study.Outcome, error) {
	out, err := c.Study.Run(ctx, env)
	if out.Run != nil {
		*c.doc = out.Run
	}
	return out, err
}

// planChanges says which replayed query shapes' winning plans changed
// between the labels' latest replays (compare --runs), on standard
// output (standard error with --json).
func (a *app) planChanges(docs []result.Doc, labels []string, json bool) {
	w := a.stdout
	if json {
		w = a.stderr
	}
	for _, l := range replay.PlanChanges(docs, labels) {
		fmt.Fprintln(w, l)
	}
}
