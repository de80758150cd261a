package study

import (
	"encoding/json"
	"os"
	"slices"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/result"
)

// TestOldShapeVerdicts reads documents whose stored verdicts name their
// bounds in words only (no testResults.bounds): they are converted to
// the thresholds the words state as they are read, and each run is
// judged by its stored verdict under them, never again.
func TestOldShapeVerdicts(t *testing.T) {
	b, err := os.ReadFile("testdata/old-verdicts.json")
	if err != nil {
		t.Fatal(err)
	}
	var docs []result.Doc
	if err := json.Unmarshal(b, &docs); err != nil {
		t.Fatal(err)
	}
	sla := []string{"p99 <= 20ms", "rate >= 99%", "errors == 0"}
	studies, err := StoredSLAs(docs)
	if err != nil || len(studies) != 1 || len(studies[0].Runs) != 2 {
		t.Fatalf("StoredSLAs: %d studies (%v), want one of 2 runs", len(studies), err)
	}
	st := studies[0]
	if got := st.Runs[0].Judged; !slices.Equal(got, sla) {
		t.Errorf("judged: got %q, want %q", got, sla)
	}
	if st.Study.SLA.P99 != 20*time.Millisecond || st.Study.SLA.rateFraction() != 0.99 || st.Study.SLA.String() != "p99 ≤ 20 ms, ≥ 99% of the target rate, no failed transactions" {
		t.Errorf("stored SLA: %+v (%s)", st.Study.SLA, st.Study.SLA)
	}
	if stage, key := st.Key(); stage != "baseline" || key != "p99 <= 20ms, rate >= 99%, errors == 0" {
		t.Errorf("key: %q %q", stage, key)
	}
	for i, want := range []bool{false, true} {
		if v := Judge(st.Runs[i], st.Study.SLA); v.Pass != want {
			t.Errorf("run %d: %v, want pass %v by its stored verdict", i, v, want)
		}
	}
	// Judged under another SLA, the runs are judged on their stored
	// figures.
	if v := Judge(st.Runs[0], SLA{P99: 40 * time.Millisecond}); !v.Pass {
		t.Errorf("under p99 40 ms: %v, want pass", v)
	}

	s, err := StepOf(&docs[2])
	if err != nil {
		t.Fatal(err)
	}
	c := StoredCriteria([]Step{s})
	if want := []string{"rate >= 95%", "p99 <= 20ms", "errors <= 1%"}; !slices.Equal(s.Judged, want) || c.SLA != 20*time.Millisecond || c.MaxErrors != 0.01 {
		t.Errorf("stored criteria: judged %q, %+v", s.Judged, c)
	}
	if ok, why := Holds(s, c); ok || len(why) != 1 || why[0] != "READ p99 25.0 ms > 20 ms" {
		t.Errorf("holds: %v %q, want the stored verdict", ok, why)
	}
}
