package study

import (
	"slices"
	"time"

	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/result"
)

// JourneyOf is the SLA journey of the stored runs among docs, read from
// the store where names, as `mongobench sla journey` shows it: the one
// view the results browser shows too (JourneyView). Each run passes by
// the verdict stored with it; with an SLA s (a p99 bound given) every
// stage's runs are judged under s instead, those stored under s by
// their stored verdicts, the others on their stored figures.
func JourneyOf(docs []result.Doc, s SLA, where string) (*report.StudyView, error) {
	if s.P99 <= 0 {
		studies, err := StoredSLAs(docs)
		if err != nil {
			return nil, err
		}
		return JourneyView(studies, where, nil), nil
	}
	runs, err := RunsOf(docs)
	if err != nil {
		return nil, err
	}
	return JourneyView(StagesUnder(runs, s), where, nil), nil
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
