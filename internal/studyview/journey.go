package studyview

import (
	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/study"
)

// JourneyOf is the SLA journey of the stored runs among docs, read from
// the store where names, as `mongobench sla journey` shows it: the one
// view the results browser shows too (Journey). Each run passes by
// the verdict stored with it; with an SLA s (a p99 bound given) every
// stage's runs are judged under s instead, those stored under s by
// their stored verdicts, the others on their stored figures.
func JourneyOf(docs []result.Doc, s study.SLA, where string) (*report.StudyView, error) {
	if s.P99 <= 0 {
		studies, err := study.StoredSLAs(docs)
		if err != nil {
			return nil, err
		}
		return Journey(studies, where, nil), nil
	}
	runs, err := study.RunsOf(docs)
	if err != nil {
		return nil, err
	}
	return Journey(study.StagesUnder(runs, s), where, nil), nil
}
