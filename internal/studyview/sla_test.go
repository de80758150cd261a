package studyview

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/textreport"
)

func TestJourney(t *testing.T) {
	t0 := time.Date(2025, 3, 4, 10, 0, 0, 0, time.UTC)
	at := func(stage, mode string, minute int, p99 float64) study.Run {
		r := withP99(mode, 5000, p99)[0]
		r.Stage, r.Start = stage, t0.Add(time.Duration(minute)*time.Minute)
		return r
	}
	runs := []study.Run{
		at("b: slim docs", "client-bulk", 20, 7), at("a: baseline", "per-op", 1, 30),
		at("b: slim docs", "per-op", 21, 8), at("a: baseline", "client-bulk", 0, 9.8),
		at("a: baseline", "per-op", 2, 10), at("c: w:1", "per-op", 5, 3), at("b: slim docs", "per-op", 30, 9),
	}
	var got []string
	for _, st := range study.StagesUnder(runs, sla20) {
		for _, sum := range st.Summaries() {
			got = append(got, st.Study.Stage+" "+sum.Mode+" "+fraction(sum.Passed, sum.Runs)+" "+ptr(sum.P99Median))
		}
	}
	want := []string{
		"a: baseline per-op 1/2 20", "a: baseline client-bulk 1/1 9.8",
		"c: w:1 per-op 1/1 3",
		"b: slim docs per-op 2/2 8.5", "b: slim docs client-bulk 1/1 7",
	}
	if !slices.Equal(got, want) {
		t.Errorf("Journey:\n got %q\nwant %q", got, want)
	}
}

// The SLA report says what each failing run's p99 tail coincided with
// (its diagnosis's tail line, then what limited it), in every medium;
// a passing run is not listed.
func TestSLATails(t *testing.T) {
	tail := "p99 tail: 71% of the operations above p99 fell in the 6% of seconds with disk writes above 300 MB/s"
	failing := passing()
	failing.RunID, failing.P99 = "r2", f(46)
	failing.Tail, failing.Limited = tail, "limited by: nothing saturated; the p99 tail coincided with disk writes above 300 MB/s"
	ok := passing()
	ok.RunID, ok.Tail = "r1", "p99 tail: nothing the run measured lines up with its 50 operations above p99 (8 series compared)"
	v := SLA(study.SLAResult{Study: study.SLAStudy{SLA: sla20}, Runs: []study.Run{ok, failing}}, "", nil)
	want := "r2, 5,000/s per-op, repetition 1 (p99 46.0 ms > 20 ms): " + tail + "; " + failing.Limited
	var text strings.Builder
	if err := textreport.Study(&text, v); err != nil {
		t.Fatal(err)
	}
	md, _, err := textreport.StudyMarkdown(v)
	if err != nil {
		t.Fatal(err)
	}
	for medium, out := range map[string]string{"terminal": text.String(), "Markdown": string(md)} {
		if !strings.Contains(out, "What the failing runs' tails coincided with") || !strings.Contains(out, want) || strings.Contains(out, ok.Tail) {
			t.Errorf("%s report:\n%s\nwant the failing run's tail %q, and no line for the passing run", medium, out, want)
		}
	}
}
