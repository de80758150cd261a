package studyview

import (
	"bytes"
	"testing"

	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/testsupport/golden"
	"github.com/mongobench/mongobench/internal/textreport"
)

func TestWriteCompareGolden(t *testing.T) {
	a, b := study.ProfileOf("r6g", r6gSteps(), nil, cmpCrit), study.ProfileOf("r5", r5Steps(), nil, cmpCrit)
	p := study.Compare(a, b, cmpCrit)
	var buf bytes.Buffer
	if err := textreport.Study(&buf, Comparison(study.Comparison{Criteria: cmpCrit, Profiles: []study.Profile{a, b}, Pairs: []study.Pair{p}})); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "compare.txt", buf.Bytes())
}
