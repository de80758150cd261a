package cli

import (
	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/options"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/study"
)

func (a *app) runCmd() *cobra.Command {
	var rf options.Run
	cmd := &cobra.Command{
		Use:   "run [SCENARIO.yaml]",
		Short: "Run one benchmark and store its result",
		Long: `Run one benchmark, open loop (--rate: latency from each operation's
intended start) or closed loop (--threads), and store its result. Flags
override a scenario file's settings; Ctrl-C still stores what was measured,
marked partial. Manual: docs/run.md; shared options: docs/options.md.`,
		Example: `  mongobench run --workload kv --rate 2000/s --duration 60s --warmup 10s
  mongobench run --workload kv --threads 32 --ops 1000000 -p records=100000 -p docSize=4KB
  mongobench run --uri mongodb://db1:27017/?replicaSet=rs0 --rate 500 --label m6i.large
  mongobench run --uri 'mongodb://db1,db2,db3/?replicaSet=rs0' --rate 500 --host-metrics http://db1:9100,http://db2:9100,db3:27017=http://10.0.0.3:9100
  mongobench run scenario.yaml --label nightly --json > result.json
  mongobench run -P workloads/workloada -p recordcount=100000 -p threadcount=16 -p target=5000
  mongobench run --workload ycsb-b --rate 1000/s --threshold 'p99(READ) < 5ms' --threshold 'errors < 0.1%' --abort-on-fail`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			reg := a.workloads()
			sc, where, err := rf.Scenario(cmd.Flags(), args, reg)
			if err != nil {
				return usage(err)
			}
			lo, err := rf.Options(cmd.Context(), cmd.Flags(), where, env)
			var doc *result.Doc
			s := capture{Study: study.Single{Scenario: sc}.Study(), doc: &doc}
			merr := a.measure(cmd.Context(), s, reg, &rf.Measure, lo, err)
			a.shapes(doc, shapesShown, rf.JSON) // a recording's replay: its query shapes, the slower first
			return merr
		},
	}
	rf.Add(cmd.Flags(), options.Help{ReportDir: "mongobench-reports", JSON: "print the result document as JSON instead of the summary"})
	return cmd
}
