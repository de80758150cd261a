package studyview

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/study"
)

// A real change: b's throughput 20% lower. The sides alternate with the
// order turned each round, each on its own target; the invalid run is
// kept but not counted; it stops at the first look with every metric
// decided (the second: at the first, five runs a side cannot reach the
// look's level over two metrics), and fails --fail-on-regression.
func TestInterleaveFindsAChange(t *testing.T) {
	env, measured, kept := interleaveEnv(800)
	s := interleaveStudyOf(20)
	if err := s.Check(); err != nil {
		t.Fatal(err)
	}
	r, err := s.Run(context.Background(), env)
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(*measured, " "); !strings.HasPrefix(got, "a b b a a b b a") || len(*measured) != 14 || len(*kept) != 14 {
		t.Errorf("measured %s (kept %d), want a b, b a, … for 7 rounds", got, len(*kept))
	}
	if r.Look != 2 || r.Looks != 5 || !r.Decided || len(r.Counted[0]) != 7 || len(r.Counted[1]) != 6 {
		t.Errorf("look %d of %d, decided %v, counted %d and %d: want look 2 of 5, decided, b's invalid run (the third) left out",
			r.Look, r.Looks, r.Decided, len(r.Counted[0]), len(r.Counted[1]))
	}
	v := r.Verdict()
	if !strings.HasPrefix(v[0], "b is significantly worse than a: throughput (-20.") || !strings.Contains(strings.Join(v, "\n"), "1 runs judged invalid are left out") {
		t.Errorf("verdict %q", v)
	}
	if err := r.Failed(); !errors.Is(err, study.ErrVerdict) {
		t.Errorf("--fail-on-regression: %v", err)
	}
	if view := Interleaved(r, nil); view.Verdict[0].Text != v[0] || len(view.Sections) != 1 {
		t.Errorf("view %+v", view)
	}
}
