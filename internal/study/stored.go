package study

import (
	"cmp"
	"slices"
	"strings"
	"time"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/threshold"
)

// The studies as the results store holds them: their runs and the
// verdicts stored with them, shown by the results browser through the
// studies' own views. Nothing here judges a run again: a run passes or
// holds by its stored verdict, and what the runs do not hold (a plan's
// demand and prices) is said to be missing, never made up.

// StoredSLA is the SLA a study judged its stored runs under, read from
// the thresholds their verdicts judged (Run.Judged): its bounds for the
// chart's reference line and the notes; a run passes by the verdict
// stored with it under this SLA. The --require the study was given is
// not stored: its rates hold by a majority of their runs.
func StoredSLA(exprs []string) SLA {
	s := SLA{stored: exprs, MinRateFraction: DefaultRateFraction}
	if s.stored == nil {
		s.stored = []string{}
	}
	ts, err := threshold.ParseAll(exprs)
	if err != nil {
		return s
	}
	for _, t := range ts {
		d := time.Duration(t.Limit * float64(time.Millisecond))
		switch {
		case t.Kind == threshold.Rate && t.Unit == threshold.Percent:
			s.MinRateFraction = t.Limit / 100
		case t.Kind != threshold.Latency:
		case t.Stat == "p95":
			s.P95 = d
		case t.Stat == "p99":
			s.P99 = d
		case t.Stat == "p99.9":
			s.P999 = d
		}
	}
	return s
}

// StoredSLAs are the SLA studies of the stored runs among docs: the runs
// of one stage judged under one SLA each, in the order their stages were
// first run; every run passes by the verdict stored with it.
func StoredSLAs(docs []result.Doc) ([]SLAResult, error) {
	runs, err := RunsOf(docs)
	if err != nil {
		return nil, err
	}
	var out []SLAResult
	first := map[int]time.Time{}
	for _, r := range runs {
		var judged []string
		if r.Verdict != nil {
			judged = r.Judged
		}
		i := slices.IndexFunc(out, func(g SLAResult) bool {
			return g.Study.Stage == r.Stage && slices.Equal(g.Study.SLA.stored, judged)
		})
		if i < 0 {
			out = append(out, SLAResult{Study: SLAStudy{SLA: StoredSLA(judged), Stage: r.Stage}})
			i = len(out) - 1
			first[i] = r.Start
		}
		out[i].Runs = append(out[i].Runs, r)
		if r.Start.Before(first[i]) {
			first[i] = r.Start
		}
	}
	idx := make([]int, len(out))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return first[a].Compare(first[b]) })
	sorted := make([]SLAResult, len(out))
	for i, j := range idx {
		sorted[i] = out[j]
	}
	return sorted, nil
}

// Key names a stored SLA study among the others: its stage and the
// thresholds its verdicts judged, as the results browser's link carries
// them.
func (r SLAResult) Key() (stage, sla string) {
	return r.Study.Stage, strings.Join(r.Study.SLA.stored, ", ")
}

// StoredSweep is the sweep id as stored: its steps among docs, in step
// and repetition order, each judged by the verdict stored with it
// (StoredCriteria), for the view of a sweep made earlier.
func StoredSweep(docs []result.Doc, id string) (SweepResult, error) {
	var ss []Step
	sc := &spec.Scenario{}
	for i := range docs {
		d := &docs[i]
		if v := result.VariantOf(d).Sweep; v == nil || *v != id {
			continue
		}
		s, err := StepOf(d)
		if err != nil {
			return SweepResult{}, err
		}
		ss = append(ss, s)
		sc.Workload, sc.Label = s.Workload, d.Label
	}
	slices.SortStableFunc(ss, func(a, b Step) int { return cmp.Or(cmp.Compare(a.Index, b.Index), cmp.Compare(a.Rep, b.Rep)) })
	repeat := 1
	for _, s := range ss {
		repeat = max(repeat, s.Rep+1)
	}
	return SweepResult{Study: SweepStudy{ID: id, Base: Base{Scenario: sc}, Repeat: repeat, Criteria: StoredCriteria(ss)}, Steps: ss}, nil
}

// StagesUnder gathers runs into a study per stage judged under s, in the
// order the stages were first run.
func StagesUnder(runs []Run, s SLA) []SLAResult {
	var out []SLAResult
	first := map[string]time.Time{}
	for _, r := range runs {
		i := slices.IndexFunc(out, func(g SLAResult) bool { return g.Study.Stage == r.Stage })
		if i < 0 {
			out = append(out, SLAResult{Study: SLAStudy{SLA: s, Stage: r.Stage}})
			i = len(out) - 1
			first[r.Stage] = r.Start
		}
		out[i].Runs = append(out[i].Runs, r)
		if r.Start.Before(first[r.Stage]) {
			first[r.Stage] = r.Start
		}
	}
	slices.SortStableFunc(out, func(a, b SLAResult) int { return first[a.Study.Stage].Compare(first[b.Study.Stage]) })
	return out
}
