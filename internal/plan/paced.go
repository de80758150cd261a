package plan

import (
	"fmt"

	"github.com/mongobench/mongobench/internal/texttable"
	"github.com/mongobench/mongobench/internal/threshold"
)

// KeepUp is the share of a stage's rate a paced run must achieve to
// carry it: below it, the candidate fell behind the traffic (a sweep's
// step holds by the same rule).
const KeepUp = 0.95

// evaluatePaced answers a plan whose stages were each measured at their
// own rate (a recording replayed at the stage's growth). A candidate's
// runs are grouped by their stage; at each stage the runs are combined,
// the constraints judged on them (relative ones against the baseline's
// runs at the same stage), and the candidate carries the stage when the
// rate it achieved there is at least KeepUp of the rate required. The
// candidate's own figures (the candidates' table, the ratios) are those
// of the plan's first stage.
func evaluatePaced(p Plan, base int) (Answer, error) {
	if h := headroomConstraints(p.Constraints); h != "" {
		return Answer{}, fmt.Errorf("constraint %q: a paced plan measures each stage at its rate, so there is no throughput to spare to judge; bound latency and errors", h)
	}
	baseC := p.Candidates[base]
	ans := Answer{Baseline: baseC.Name, Currency: baseC.Currency, Paced: true}
	for _, s := range p.Demand.Stages {
		if s.Rate <= 0 {
			return Answer{}, fmt.Errorf("stage %q has no rate: a paced plan's stages each give a rate or a growth of the recording", s.Name)
		}
	}
	stageOf := func(c Candidate) ([]*Measured, error) {
		out := make([]*Measured, len(p.Demand.Stages))
		for j, s := range p.Demand.Stages {
			var runs []Run
			for _, r := range c.Runs {
				if r.Stage == s.Name {
					runs = append(runs, r)
				}
			}
			if len(runs) == 0 {
				continue
			}
			m, err := Combine(Candidate{Name: c.Name, Monthly: c.Monthly, CPUs: c.CPUs, Runs: runs})
			if err != nil {
				return nil, fmt.Errorf("candidate %s, stage %s: %w", c.Name, s.Name, err)
			}
			out[j] = &m
		}
		return out, nil
	}
	measured := make([][]*Measured, len(p.Candidates))
	for i, c := range p.Candidates {
		var err error
		if measured[i], err = stageOf(c); err != nil {
			return Answer{}, err
		}
	}
	baseStages := measured[base]
	as := make([]Assessment, len(p.Candidates))
	for i, c := range p.Candidates {
		ms := measured[i]
		as[i] = Assessment{Candidate: c}
		for j, s := range p.Demand.Stages {
			f := StageFit{Stage: s.Name, Required: s.Rate, Measured: ms[j]}
			switch {
			case ms[j] == nil:
				f.Reason = "no runs at this stage"
			case baseStages[j] == nil:
				f.Reason = "the baseline has no runs at this stage to judge against"
			default:
				m := *ms[j]
				f.Kept = m.Throughput / s.Rate
				f.Carries = f.Kept >= KeepUp
				f.Checks = withThresholds(check(p.Constraints, m, *baseStages[j]), m.FailedThresholds)
				passed := allPass(f.Checks)
				f.Pass = f.Carries && passed
				switch {
				case !f.Carries:
					f.Reason = fmt.Sprintf("kept %s ops/s of the %s the stage replays (%s, under %s)", num(m.Throughput), num(s.Rate), pct(f.Kept), pct(KeepUp))
				case !passed:
					f.Reason = failedChecks(f.Checks)
				}
			}
			as[i].Stages = append(as[i].Stages, f)
		}
		// The candidate's own figures: its first stage's.
		if first := ms[0]; first != nil {
			as[i].Measured = *first
			as[i].Checks = as[i].Stages[0].Checks
		}
	}
	var baseFirst Measured
	if baseStages[0] != nil {
		baseFirst = *baseStages[0]
	}
	for i := range as {
		as[i].VsBaseline = ratios(as[i].Measured, baseFirst, as[i].Monthly, baseC.Monthly)
	}
	ans.Assessments = as
	for j, s := range p.Demand.Stages {
		ans.Stages = append(ans.Stages, recommend(as, j, s, nil))
	}
	return ans, nil
}

// headroomConstraints is the first headroom constraint's text, or "".
func headroomConstraints(cs []threshold.Threshold) string {
	for _, c := range cs {
		if c.Kind == threshold.Headroom {
			return c.Text
		}
	}
	return ""
}

// pacedStagesTable has a row per stage of a paced plan: its growth and
// rate, the choice and the share of the rate it kept, and each
// candidate's verdict there with its p99s.
func pacedStagesTable(a Answer, md bool) *texttable.Table {
	c := cells(md)
	cols := []string{"stage", ">growth", ">needs ops/s", "recommended", ">kept"}
	for _, as := range a.Assessments {
		cols = append(cols, as.Name)
	}
	t := texttable.New(cols...)
	for j, r := range a.Stages {
		growth := c.Missing
		if r.Stage.Growth > 0 {
			growth = "×" + num(r.Stage.Growth)
		}
		choice, kept := "none passes", c.Missing
		if r.Choice != "" {
			choice, kept = r.Choice, pct(r.Kept)
		}
		row := []string{r.Stage.Name, growth, num(r.Required), choice, kept}
		for _, as := range a.Assessments {
			f := as.Stages[j]
			switch {
			case f.Measured == nil:
				row = append(row, c.Missing)
			case f.Pass:
				row = append(row, "✅ kept "+pct(f.Kept))
			case f.Carries:
				row = append(row, "❌ constraints (kept "+pct(f.Kept)+")")
			default:
				row = append(row, "❌ fell behind (kept "+pct(f.Kept)+")")
			}
		}
		t.Add(row...)
	}
	return t
}

// pacedVerdicts is a line per stage of a paced plan: the cheapest
// candidate that kept the stage's rate within the constraints, then each
// rejected candidate and why.
func pacedVerdicts(a Answer) []string {
	var out []string
	for _, r := range a.Stages {
		need := num(r.Required) + " ops/s"
		if r.Stage.Growth > 0 {
			need = "×" + num(r.Stage.Growth) + " the recording, " + need
		}
		switch r.Choice {
		case "":
			out = append(out, fmt.Sprintf("%s (%s): no candidate passes.", r.Stage.Name, need))
		case a.Baseline:
			out = append(out, fmt.Sprintf("%s (%s): %s, the baseline, carries it (kept %s of the rate, within the constraints).",
				r.Stage.Name, need, r.Choice, pct(r.Kept)))
		default:
			ch, base := a.find(r.Choice), a.find(a.Baseline)
			out = append(out, fmt.Sprintf("%s (%s): %s carries it (kept %s of the rate, within the constraints), for %s money than %s.",
				r.Stage.Name, need, r.Choice, pct(r.Kept), relative(ch.Monthly, base.Monthly, "more", "less"), base.Name))
		}
		out = append(out, rejectedLine(r)...)
	}
	return out
}
