package study

import (
	"errors"
	"fmt"

	"github.com/mongobench/mongobench/internal/price"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/significance"
)

// Contender is one label of a comparison: its stored sweep runs, of which
// the latest sweep is compared.
type Contender struct {
	Label string
	Docs  []result.Doc
	Price *price.Price // given by the user; nil: the price stored with the sweep
}

// Comparison is the latest sweeps of two or more labels side by side: the
// first label compared with each of the others.
type Comparison struct {
	Criteria Criteria
	// Judging is how each step's metrics are judged (Pair.Steps).
	Judging  significance.Settings
	Profiles []Profile
	Pairs    []Pair
	Sweeps   [][]Step // each label's latest sweep, in the order of Profiles, as its chart line draws it
}

// ErrMixedWorkloads marks a comparison of sweeps of different workloads.
var ErrMixedWorkloads = errors.New("the latest sweeps ran different workloads")

// ErrMixedCurrencies marks a comparison of prices in different
// currencies, which compare refuses rather than convert.
var ErrMixedCurrencies = errors.New("prices in different currencies cannot be compared")

// oneCurrency refuses profiles whose prices are in different currencies,
// naming the first two.
func oneCurrency(ps []Profile) error {
	var first *Profile
	for i, p := range ps {
		if p.Cost == nil {
			continue
		}
		if first == nil {
			first = &ps[i]
			continue
		}
		if err := sameCurrency(first.Label, first.Currency, first.costText(), p.Label, p.Currency, p.costText()); err != nil {
			return err
		}
	}
	return nil
}

// sameCurrency says, naming both, that the prices of labels a and b are
// in different currencies; nil when they are not.
func sameCurrency(a, currencyA, priceA, b, currencyB, priceB string) error {
	if currencyA == currencyB {
		return nil
	}
	return fmt.Errorf("%w: %s's %s and %s's %s; give every price in one currency (--price LABEL=PRICE)", ErrMixedCurrencies, a, priceA, b, priceB)
}

// CompareSweeps compares the latest sweep of each contender under c, and
// judges each step both ran with j (Pair.Steps). The sweeps must have
// run one workload.
func CompareSweeps(cs []Contender, c Criteria, j significance.Settings) (Comparison, error) {
	out := Comparison{Criteria: c, Judging: j}
	var runs []map[float64][]result.Doc
	for _, ct := range cs {
		steps := make([]Step, 0, len(ct.Docs))
		for i := range ct.Docs {
			s, err := StepOf(&ct.Docs[i])
			if err != nil {
				return Comparison{}, err
			}
			steps = append(steps, s)
		}
		steps = LatestSweep(steps)
		byRate, err := sweepRuns(ct.Docs, sweepID(steps))
		if err != nil {
			return Comparison{}, err
		}
		runs = append(runs, byRate)
		out.Profiles = append(out.Profiles, ProfileOf(ct.Label, steps, ct.Price, c))
		out.Sweeps = append(out.Sweeps, steps)
	}
	if len(out.Profiles) == 0 {
		return out, nil
	}
	first := out.Profiles[0]
	for _, p := range out.Profiles[1:] {
		if p.Workload != first.Workload {
			return Comparison{}, fmt.Errorf("%w (%s: %s, %s: %s); choose one with --workload",
				ErrMixedWorkloads, first.Label, first.Workload, p.Label, p.Workload)
		}
	}
	if err := oneCurrency(out.Profiles); err != nil {
		return Comparison{}, err
	}
	for i, p := range out.Profiles[1:] {
		pair := Compare(first, p, c)
		steps, err := compareSteps(runs[0], runs[i+1], j)
		if err != nil {
			return Comparison{}, err
		}
		pair.Steps = steps
		out.Pairs = append(out.Pairs, pair)
	}
	return out, nil
}

// sweepID is the id of the sweep of steps ("" for none).
func sweepID(steps []Step) string {
	if len(steps) == 0 {
		return ""
	}
	return steps[0].Sweep
}

// Labels are the compared labels, the first one first.
func (c Comparison) Labels() []string {
	out := make([]string, len(c.Profiles))
	for i, p := range c.Profiles {
		out[i] = p.Label
	}
	return out
}
