package studyview

import (
	"bytes"
	"testing"

	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/testsupport/golden"
	"github.com/mongobench/mongobench/internal/textreport"
)

func TestCalibrationViewGolden(t *testing.T) {
	var buf bytes.Buffer
	res := study.CalibrateResult{Study: study.CalibrateStudy{Search: cal, Base: study.Base{Scenario: &spec.Scenario{Workload: "kv"}}}, Steps: curve()}
	if err := textreport.Study(&buf, Calibrate(res, nil)); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "calibrate.txt", buf.Bytes())
}
