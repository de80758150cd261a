package study

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/significance"
)

// CompareStudy is one invocation of mongobench compare: the latest stored
// sweep of each label (of Workload, when given) under Criteria, the first
// label compared with each of the others.
type CompareStudy struct {
	Labels   []string
	Workload string // "": each label's latest sweep
	Prices   Prices // prices given by label; the others come from the sweeps
	Criteria Criteria
	// Judging is how each step both sweeps ran is judged, the
	// repetitions as samples.
	Judging significance.Settings
}

// Check says what is wrong with the comparison's settings, naming their
// flags.
func (s CompareStudy) Check() error {
	var errs []error
	if len(s.Labels) < 2 {
		errs = append(errs, errors.New("--label: give at least two, such as --label r6g --label r5"))
	}
	for i, l := range s.Labels {
		if l == "" || slices.Contains(s.Labels[:i], l) {
			errs = append(errs, fmt.Errorf("--label: %q is empty or given twice", l))
		}
	}
	errs = append(errs, s.Criteria.Check())
	labels := slices.Sorted(maps.Keys(s.Prices))
	for _, label := range labels {
		if !slices.Contains(s.Labels, label) {
			errs = append(errs, fmt.Errorf("--price: %q names no --label", label+"="+s.Prices[label].String()))
		}
	}
	for _, label := range labels[min(1, len(labels)):] {
		a, b := s.Prices[labels[0]], s.Prices[label]
		if err := sameCurrency(labels[0], a.Currency, a.String(), label, b.Currency, b.String()); err != nil {
			errs = append(errs, fmt.Errorf("--price: %w", err))
			break
		}
	}
	return errors.Join(errs...)
}

// Sweeps reads the stored sweep runs of a label, of the workload when it
// is not empty.
type Sweeps func(label, workload string) ([]result.Doc, error)

// Run compares the labels' stored sweeps, read with sweeps from the store
// where names. A label without a stored sweep is an error that says so.
func (s CompareStudy) Run(sweeps Sweeps, where string) (Comparison, error) {
	var cs []Contender
	for _, label := range s.Labels {
		docs, err := sweeps(label, s.Workload)
		if err != nil {
			return Comparison{}, err
		}
		if len(docs) == 0 {
			what := "no stored sweep has label " + strconv.Quote(label)
			if s.Workload != "" {
				what += " and workload " + s.Workload
			}
			return Comparison{}, fmt.Errorf("%s in %s (run 'mongobench sweep --label %s' first)", what, where, label)
		}
		c := Contender{Label: label, Docs: docs}
		if p, ok := s.Prices[label]; ok {
			c.Price = &p
		}
		cs = append(cs, c)
	}
	return CompareSweeps(cs, s.Criteria, s.Judging)
}

// JSON is the comparison as --json prints it: its criteria, profiles
// and pairs.
func (c Comparison) JSON() any {
	return map[string]any{"criteria": c.Criteria.String(), "profiles": c.Profiles, "pairs": c.Pairs}
}
