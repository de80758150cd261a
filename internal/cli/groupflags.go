package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/group"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/runner"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/store"
)

// groupFlags make a run one client of a run group: --clients N processes
// given the same --group and scenario, each its own --client-index (or
// JOB_COMPLETION_INDEX, which a Kubernetes Indexed Job sets), do one run
// together through the results store.
type groupFlags struct {
	clients int
	index   int
	id      string
	timeout time.Duration
}

const unsetIndex = -1

func (g *groupFlags) add(fl *pflag.FlagSet) {
	fl.IntVar(&g.clients, "clients", 1, "run as one of this many clients of a run group (the same --group and scenario on each); each does 1/N of the rate or threads and its slice of the keys")
	fl.IntVar(&g.index, "client-index", unsetIndex, "this client's index in the group, 0 to clients-1 (default: $JOB_COMPLETION_INDEX, set by a Kubernetes Indexed Job); client 0 prepares the data")
	fl.StringVar(&g.id, "group", "", "run group id shared by its clients (letters, digits, '.', '_', '-'; one id per run)")
	fl.DurationVar(&g.timeout, "group-timeout", group.DefaultTimeout, "how long a client waits for the others at the start, and for a silent client before the group's result is stored without it")
}

var groupIDPattern = regexp.MustCompile(`^[A-Za-z0-9._-]{1,100}$`)

// share checks the flags and returns the client's share; the zero share
// when the run is not a group's. file is the --results-file given, which
// a group cannot coordinate through.
func (g *groupFlags) share(file string) (engine.Share, error) {
	if g.clients == 1 && g.id == "" {
		return engine.Share{}, nil
	}
	if g.clients < 1 || g.clients > spec.MaxClients {
		return engine.Share{}, fmt.Errorf("--clients: got %d, want 1 to %d", g.clients, spec.MaxClients)
	}
	if !groupIDPattern.MatchString(g.id) {
		return engine.Share{}, fmt.Errorf("--group: got %q, want 1 to 100 letters, digits, '.', '_' or '-' (one id per group run)", g.id)
	}
	if file != "" {
		return engine.Share{}, fmt.Errorf("--clients %d with --results-file %s: a run group coordinates through a MongoDB results store (database mongobench, collection groups), which a JSON Lines file cannot do; give --results, or neither for the target's", g.clients, file)
	}
	if g.timeout <= 0 || g.timeout > spec.MaxGroupTimeout {
		return engine.Share{}, fmt.Errorf("--group-timeout: got %v, want a positive duration up to %v", g.timeout, spec.MaxGroupTimeout)
	}
	idx := g.index
	if idx == unsetIndex {
		v := env("JOB_COMPLETION_INDEX")
		if v == "" {
			return engine.Share{}, fmt.Errorf("--client-index: not given and JOB_COMPLETION_INDEX is not set; want 0 to %d", g.clients-1)
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return engine.Share{}, fmt.Errorf("JOB_COMPLETION_INDEX: got %q, want 0 to %d", v, g.clients-1)
		}
		idx = n
	}
	if idx < 0 || idx >= g.clients {
		return engine.Share{}, fmt.Errorf("--client-index: got %d, want 0 to %d for --clients %d", idx, g.clients-1, g.clients)
	}
	return engine.Share{Clients: g.clients, Index: idx}, nil
}

// groupFlagsOf checks a command's group flags before anything starts.
func groupFlagsOf(g *groupFlags, file string) (engine.Share, error) {
	s, err := g.share(file)
	if err != nil {
		return s, usage(err)
	}
	return s, nil
}

// joinGroup registers this process as its client of the group, suffixed
// by the study's step when a study makes many runs; nil when the run is
// not a group's.
func (a *app) joinGroup(ctx context.Context, g *groupFlags, share engine.Share, st store.Store, scenario, suffix string) (*group.Client, error) {
	if !share.Grouped() && g.id == "" {
		return nil, nil
	}
	m, ok := st.(*store.Mongo)
	if !ok {
		return nil, usage(errors.New("--clients: a run group needs a MongoDB results store"))
	}
	host, _ := os.Hostname()
	if share.Clients == 0 {
		share = engine.Share{Clients: 1}
	}
	c := &group.Client{Store: m, ID: g.id + suffix, Share: share, Timeout: g.timeout, Scenario: scenario,
		Host: host, PID: os.Getpid(), Say: a.say}
	if err := c.Join(ctx); err != nil {
		return nil, err
	}
	a.say("group %s: client %d of %d registered in %s\n", c.ID, share.Index, share.Clients, m.Where())
	return c, nil
}

// finishGroup records the client's stored result in its group; the client
// that completes the group (or outlives a silent one) stores the group's
// merged result and says so.
func (a *app) finishGroup(ctx context.Context, c *group.Client, d *result.Doc) error {
	if c == nil {
		return nil
	}
	merged, err := c.Finish(ctx, d.RunID)
	if err != nil {
		return fmt.Errorf("group %s: %w", c.ID, err)
	}
	if merged != nil {
		a.say("%s\n", groupLine(merged))
	}
	return nil
}

// groupLine states a stored group result in one line.
func groupLine(d *result.Doc) string {
	g := d.Group
	s := fmt.Sprintf("group %s: result %s stored: %d of %d clients, %.1f ops/s", g.ID, d.RunID, len(g.Members), g.Clients, d.Schedule.AchievedRate)
	if g.TargetRate != nil {
		s += fmt.Sprintf(" of %g/s", *g.TargetRate)
	}
	for _, op := range d.Ops {
		if op.Latency.P99 != nil {
			s += fmt.Sprintf("; %s p99 %.3g ms", op.Name, *op.Latency.P99)
		}
	}
	if d.Client.ClientBound {
		s += "; client-bound"
	}
	if d.Partial {
		s += "; partial: " + d.PartialReason
	}
	return s
}

// resultsMergeCmd rebuilds a group's result from its clients' stored
// results.
func (a *app) resultsMergeCmd() *cobra.Command {
	var sf storeFlags
	var clients int
	cmd := &cobra.Command{
		Use:   "merge GROUP",
		Short: "Rebuild a run group's result from its clients' stored results",
		Long: `Merge the stored results of a run group's clients into the group's result, as
the last client to finish does: histograms merged exactly per operation type
and per interval, counts and errors summed, the achieved rate against the
group's target, each client's health; clients without a stored result are
named, and the result is then partial.`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if sf.file != "" {
				return usage(fmt.Errorf("--results-file %s: merge reads and stores through a MongoDB results store; give --results", sf.file))
			}
			return sf.with(a, cmd, func(st store.Store) error {
				m, ok := st.(*store.Mongo)
				if !ok {
					return usage(errors.New("merge needs a MongoDB results store"))
				}
				d, out, err := group.Merge(cmd.Context(), m, args[0], clients)
				if err != nil {
					return err
				}
				fmt.Fprintln(a.stdout, groupLine(d))
				a.say("%s\n", out)
				return nil
			})
		},
	}
	sf.add(cmd)
	cmd.Flags().IntVar(&clients, "clients", 0, "the group's size (default: as its clients' results say)")
	return cmd
}

// studyGroup makes a study's runs the group's: each run joins the group
// when it is measured and records its result when it is kept.
func (s *studyRun) studyGroup(g *groupFlags, share engine.Share) {
	s.group, s.share = g, share
}

// groupFor joins the group for one run of a study (nil: not a group's).
// A sweep's step is a group run of its own, GROUP.sSTEP.rREPETITION
// (variant.sweepStep and variant.repetition as stored).
func (s *studyRun) groupFor(ctx context.Context, sc *spec.Scenario, v result.Variant) (runner.Group, error) {
	if s.group == nil {
		return nil, nil
	}
	c, err := s.app.joinGroup(ctx, s.group, s.share, s.store, groupScenario(sc), stepSuffix(v))
	if c == nil || err != nil {
		return nil, err
	}
	s.joined, s.joinedScenario = c, sc
	return c, nil
}

// stepSuffix is the suffix of a sweep step's group id; "" for a run that
// is not a sweep's.
func stepSuffix(v result.Variant) string {
	if v.SweepStep == nil {
		return ""
	}
	rep := 0
	if v.Repetition != nil {
		rep = *v.Repetition
	}
	return fmt.Sprintf(".s%d.r%d", *v.SweepStep, rep)
}

// keptInGroup records a kept run in its group.
func (s *studyRun) keptInGroup(ctx context.Context, d *result.Doc) error {
	c := s.joined
	s.joined = nil
	return s.app.finishGroup(ctx, c, d)
}

// merged is the study's Merged: it stores the client's result d, records
// it in its group, waits (up to --group-timeout past the group's last
// client) for the group's merged result and returns it as stored, with
// the thresholds judged on it. A client stopped early (Ctrl-C) does not
// wait: its own partial result is returned, and the study stops on it.
func (s *studyRun) merged(ctx context.Context, d *result.Doc) (*result.Doc, error) {
	c, sc := s.joined, s.joinedScenario
	s.joined, s.joinedScenario = nil, nil
	if c == nil {
		return d, nil
	}
	if err := s.app.save(ctx, s.store, d); err != nil {
		c.Leave()
		return nil, err
	}
	s.app.say("group %s: client %d's result %s stored\n", c.ID, c.Share.Index, d.RunID)
	if _, err := c.Finish(ctx, d.RunID); err != nil {
		return nil, fmt.Errorf("group %s: %w", c.ID, err)
	}
	if d.Partial {
		return d, nil
	}
	m, err := c.Result(ctx)
	if err != nil && ctx.Err() != nil {
		return nil, fmt.Errorf("%w: group %s: stopped while waiting for the group's result; its clients' results are stored (mongobench results merge %s)", errInterrupted, c.ID, c.ID)
	}
	if err != nil {
		return nil, fmt.Errorf("group %s: %w", c.ID, err)
	}
	s.app.say("%s\n", groupLine(m))
	s.judge(m, sc)
	return m, nil
}

// groupScenario describes what a group's clients run, so a client given
// another scenario is refused: the workload, its parameters and the
// settings that shape the load.
func groupScenario(sc *spec.Scenario) string {
	return fmt.Sprintf("%s %s seed %d %v", sc.Workload, sc.Describe(), sc.Seed, sc.Params)
}
