package studyview

import (
	"testing"

	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/testsupport/studylab"
)

// The views' tests run studies against studylab's lab (a model of a
// server and a recording store), as the studies' own tests do.

var testRegistry = studylab.Registry

type (
	outcome = studylab.Outcome
	lab     = studylab.Lab[study.StepInfo]
)

// envOf is the lab as a study's environment.
func envOf(l *lab) study.Env {
	l.TxnTest, l.TxnOp = study.TestName, study.TxnOp
	return study.Env{Measure: l.Measure, Keep: l.Keep, Registry: testRegistry, Say: l.Say, Step: l.Step}
}

var saturating = studylab.Saturating

// kvBase is the base of a kv study.
func kvBase(t *testing.T) study.Base {
	t.Helper()
	return study.Base{Scenario: studylab.KVScenario(), Params: []string{"records=500"}}
}
