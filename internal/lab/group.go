package lab

import (
	"context"
	"fmt"

	"github.com/mongobench/mongobench/internal/group"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/runner"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/study"
)

// joined is the group a run being measured joined, and its scenario,
// whose thresholds judge the group's merged result.
type joined struct {
	client   *group.Client
	scenario *spec.Scenario
}

// groupFor joins the group for one run (nil: the runs are not a
// group's). A sweep's step is a group run of its own,
// GROUP.sSTEP.rREPETITION (variant.sweepStep and variant.repetition as
// stored).
func (l *Lab) groupFor(ctx context.Context, sc *spec.Scenario, v result.Variant) (runner.Group, error) {
	g := l.opts.Group
	if !g.grouped() {
		return nil, nil
	}
	share := g.Share
	if share.Clients == 0 {
		share.Clients = 1
	}
	c := &group.Client{Store: l.groups, ID: g.ID + stepSuffix(v), Share: share, Timeout: g.Timeout, Scenario: groupScenario(sc),
		Host: g.Host, PID: g.PID, Say: l.ui.Say, Validity: l.opts.Validity}
	if err := c.Join(ctx); err != nil {
		return nil, err
	}
	l.ui.Say("group %s: client %d of %d registered in %s\n", c.ID, share.Index, share.Clients, l.groups.Where())
	l.joined = &joined{client: c, scenario: sc}
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

// groupScenario describes what a group's clients run, so a client given
// another scenario is refused: the workload, its parameters and the
// settings that shape the load.
func groupScenario(sc *spec.Scenario) string {
	return fmt.Sprintf("%s %s seed %d %v", sc.Workload, sc.Describe(), sc.Seed, sc.Params)
}

// keptInGroup records a kept run in its group; the client that completes
// the group (or outlives a silent one) stores the group's merged result
// and says so.
func (l *Lab) keptInGroup(ctx context.Context, d *result.Doc) error {
	j := l.joined
	l.joined = nil
	if j == nil {
		return nil
	}
	merged, err := j.client.Finish(ctx, d.RunID)
	if err != nil {
		return err // it names the group
	}
	if merged != nil {
		l.ui.Say("%s\n", GroupLine(merged))
	}
	return nil
}

// merged is the study's Merged: it stores the client's result d, records
// it in its group, waits (up to the group timeout past the group's last
// client) for the group's merged result and returns it as stored, with
// the thresholds judged on it. A client stopped early (Ctrl-C) does not
// wait: its own partial result is returned, and the study stops on it.
func (l *Lab) merged(ctx context.Context, d *result.Doc) (*result.Doc, error) {
	j := l.joined
	l.joined = nil
	if j == nil {
		return d, nil
	}
	c := j.client
	if err := Save(ctx, l.store, d); err != nil {
		c.Leave()
		return nil, err
	}
	l.ui.Say("group %s: client %d's result %s stored\n", c.ID, c.Share.Index, d.RunID)
	if _, err := c.Finish(ctx, d.RunID); err != nil {
		return nil, err // it names the group
	}
	if d.Partial {
		return d, nil
	}
	m, err := c.Result(ctx)
	if err != nil && ctx.Err() != nil {
		return nil, fmt.Errorf("%w: group %s: stopped while waiting for the group's result; its clients' results are stored (mongobench results merge %s)", study.ErrStopped, c.ID, c.ID)
	}
	if err != nil {
		return nil, err // it names the group
	}
	l.ui.Say("%s\n", GroupLine(m))
	l.judge(m, j.scenario)
	return m, nil
}

// GroupLine states a stored group result in one line.
func GroupLine(d *result.Doc) string {
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
