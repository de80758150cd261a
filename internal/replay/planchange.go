package replay

import (
	"fmt"
	"sort"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/result"
)

// PlanChanges says, for the latest replayed run of labels[0] and of
// each other label that captured winning plans (--explain), which query
// shapes' plans differ between them: one line each, naming the shape,
// the two runs and the plans' stages ("COLLSCAN → IXSCAN, FETCH").
// Nothing when fewer than two of the labels have plans.
func PlanChanges(docs []result.Doc, labels []string) []string {
	latest := map[string]*result.Doc{}
	for i := range docs {
		d := &docs[i]
		if d.Replay == nil || !hasPlans(d.Replay) {
			continue
		}
		if l, ok := latest[d.Label]; !ok || d.Start.After(l.Start) {
			latest[d.Label] = d
		}
	}
	if len(labels) < 2 || latest[labels[0]] == nil {
		return nil
	}
	base := latest[labels[0]]
	var out []string
	for _, other := range labels[1:] {
		o := latest[other]
		if o == nil {
			continue
		}
		theirs := map[string]result.ReplayShape{}
		for _, s := range o.Replay.Shapes {
			if s.Plan != "" {
				theirs[s.Shape] = s
			}
		}
		var lines []string
		for _, s := range base.Replay.Shapes {
			t, ok := theirs[s.Shape]
			if s.Plan == "" || !ok {
				continue
			}
			a, b := Stages(s.Plan), Stages(t.Plan)
			if a == b && s.Plan == t.Plan {
				continue
			}
			if a == b {
				a, b = "plan as "+a, "a plan of the same stages, other details"
			}
			lines = append(lines, fmt.Sprintf("plan changed: %s %s: %s (%s, run %s) → %s (%s, run %s)",
				s.Command, s.Namespace, a, labels[0], base.RunID, b, other, o.RunID))
		}
		sort.Strings(lines)
		out = append(out, lines...)
	}
	return out
}

func hasPlans(r *result.Replay) bool {
	for _, s := range r.Shapes {
		if s.Plan != "" {
			return true
		}
	}
	return false
}

// Stages are the stage names of a stored plan (relaxed Extended JSON),
// outermost first: "FETCH, IXSCAN"; the plan's text when it does not
// read.
func Stages(plan string) string {
	var d bson.D
	if err := bson.UnmarshalExtJSON([]byte(strings.TrimSuffix(plan, "…")), false, &d); err != nil {
		return plan
	}
	var names []string
	var walk func(v any)
	walk = func(v any) {
		switch x := v.(type) {
		case bson.D:
			for _, e := range x {
				if e.Key == "stage" {
					if s, ok := e.Value.(string); ok {
						names = append(names, s)
					}
				}
			}
			for _, e := range x {
				walk(e.Value)
			}
		case bson.A:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(d)
	if len(names) == 0 {
		return plan
	}
	return strings.Join(names, ", ")
}
