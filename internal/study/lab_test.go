package study

import (
	"testing"

	"github.com/mongobench/mongobench/internal/testsupport/studylab"
)

// The studies' tests run against studylab's lab: a fake Measure that
// makes each run's result document from a model of a server, and a Keep
// and Say that record what the study kept and said. No server, no store.

var testRegistry = studylab.Registry

type (
	outcome = studylab.Outcome
	lab     = studylab.Lab[StepInfo]
)

// envOf is the lab as a study's environment.
func envOf(l *lab) Env {
	l.TxnTest, l.TxnOp = TestName, TxnOp
	return Env{Measure: l.Measure, Keep: l.Keep, Registry: testRegistry, Say: l.Say, Step: l.Step}
}

var saturating = studylab.Saturating

// kvBase is the base of a kv study.
func kvBase(t *testing.T) Base {
	t.Helper()
	return Base{Scenario: studylab.KVScenario(), Params: []string{"records=500"}}
}
