package studyview

import (
	"bytes"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/testsupport/golden"
	"github.com/mongobench/mongobench/internal/textreport"
)

// scalingRuns is a scaling study at 5,000, 6,000 and 7,000 TPS, each rate a
// stage, with a run of each kind of failure.
func scalingRuns() []study.Run {
	t0 := time.Date(2025, 3, 4, 10, 0, 0, 0, time.UTC)
	stages := map[float64]string{5000: "7 KB docs", 6000: "2.5 KB docs | w:majority", 7000: ""}
	var runs []study.Run
	for _, g := range []struct {
		mode string
		tps  float64
		p99s []float64
	}{
		{"per-op", 5000, []float64{7.53, 7.2, 11.7, 6.9, 8.1}},
		{"client-bulk", 5000, []float64{9.3, 9.1, 9.8, 8.7, 9.5}},
		{"per-op", 6000, []float64{24.1, 23.8, 19.5}},
		{"client-bulk", 6000, []float64{10, 10.4, 9.7}},
		{"per-op", 7000, []float64{640, 0}},
		{"client-bulk", 7000, []float64{16, 15.8}},
	} {
		for i, r := range withP99(g.mode, g.tps, g.p99s...) {
			r.Stage, r.Start = stages[g.tps], t0.Add(time.Duration(len(runs))*time.Minute)
			r.Retries, r.CommitRetries = int64(len(runs)*7), int64(len(runs)%3)
			if i == 1 && g.mode == "per-op" && g.tps > 5000 {
				r.Failed = 3
			}
			runs = append(runs, r)
		}
	}
	// A per-op run at 7,000 TPS recorded nothing; a client-bulk one fell short of the rate.
	runs[17].P50, runs[17].P95, runs[17].P99, runs[17].P999, runs[17].Max = nil, nil, nil, nil, nil
	runs[17].Achieved, runs[17].Partial = 0, true
	runs[19].Achieved = 6890
	return runs
}

// TestSLAViewGolden renders the study's view for a terminal: the
// summary per mode and rate, the scaling table, the runs and how their
// transactions ran.
func TestSLAViewGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := textreport.Study(&buf, SLA(study.SLAResult{Study: study.SLAStudy{SLA: sla20}, Runs: scalingRuns()}, "", nil)); err != nil {
		t.Fatal(err)
	}
	golden.Check(t, "sla.txt", buf.Bytes())
}
