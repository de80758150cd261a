package study

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mongobench/mongobench/internal/price"
	"github.com/mongobench/mongobench/internal/spec"
)

// The studies' settings as command-line flag values (String, Set, Type):
// a flag parses its text into the study's own types, so a command maps
// flags to fields, and the study's Check says what is wrong with their
// combination, naming the flags.

// Bound is a latency bound given on the command line, such as 20ms: a
// positive duration. Zero is not given.
type Bound time.Duration

// Set reads a positive duration such as 20ms.
func (b *Bound) Set(text string) error {
	d, err := time.ParseDuration(text)
	if err != nil || d <= 0 {
		return fmt.Errorf("%q is not a positive duration such as 20ms", text)
	}
	*b = Bound(d)
	return nil
}

// String is the bound, empty when not given.
func (b *Bound) String() string {
	if *b == 0 {
		return ""
	}
	return time.Duration(*b).String()
}

// Type names the value for command-line help.
func (*Bound) Type() string { return "duration" }

// Rates is the value of --rate in sweep and sla: a list of target rates such as
// 500,1000 (see ParseRates), or auto.
type Rates struct {
	List List
	Auto bool
	text string
}

// Set reads a list of rates or "auto".
func (r *Rates) Set(text string) error {
	list, auto, err := ParseRates("", text)
	if err != nil {
		return err
	}
	r.List, r.Auto, r.text = list, auto, text
	return nil
}

// String is the text given, empty when none was.
func (r *Rates) String() string { return r.text }

// Type names the value for command-line help.
func (*Rates) Type() string { return "rates" }

// Search is the search the rates choose: auto when they are auto, the
// list when given, nil when not given (Check reports it).
func (r Rates) Search(auto Search) Search {
	switch {
	case r.Auto:
		return auto
	case r.List != nil:
		return r.List
	}
	return nil
}

// Prices is compare's repeatable --price: label=PRICE, such as
// r6g=3.20 USD/h or r5=2920 EUR/month (price.Parse, the one grammar
// of a price), by label.
type Prices map[string]price.Price

// Set reads one label=PRICE.
func (p *Prices) Set(kv string) error {
	label, text, ok := strings.Cut(kv, "=")
	if !ok || label == "" {
		return fmt.Errorf("%q is not label=price such as r6g=3.20 USD/h", kv)
	}
	pr, err := price.Parse(text)
	if err != nil {
		return err
	}
	p.put(label, pr)
	return nil
}

func (p *Prices) put(label string, pr price.Price) {
	if *p == nil {
		*p = Prices{}
	}
	(*p)[label] = pr
}

// String lists the prices given, by label.
func (p *Prices) String() string {
	var parts []string
	for _, l := range slices.Sorted(maps.Keys(*p)) {
		parts = append(parts, l+"="+(*p)[l].String())
	}
	return strings.Join(parts, ",")
}

// Type names the value for command-line help.
func (*Prices) Type() string { return "label=price" }

// Costs is compare's deprecated --cost-per-hour: label=dollars, a price
// in US dollars per hour, into Prices.
type Costs struct{ Prices *Prices }

// Set reads one label=dollars.
func (c Costs) Set(kv string) error {
	label, v, ok := strings.Cut(kv, "=")
	d, err := strconv.ParseFloat(v, 64)
	if !ok || err != nil || d <= 0 {
		return fmt.Errorf("%q is not label=dollars such as r6g=3.20", kv)
	}
	c.Prices.put(label, price.Price{Amount: d, Currency: "USD", Period: price.PerHour})
	return nil
}

// String lists the prices given, by label.
func (c Costs) String() string {
	if c.Prices == nil {
		return ""
	}
	return c.Prices.String()
}

// Type names the value for command-line help.
func (Costs) Type() string { return "label=dollars" }

// check says what is wrong with the SLA study's settings; modes are the
// ones the ledger takes (nil: not checked here).
func (s SLAStudy) check(modes []string) error {
	errs := []error{s.SLA.Check()}
	switch r := s.Rates.(type) {
	case nil:
		errs = append(errs, errors.New("--rate: required: a list of rates such as 500,1000, or auto"))
	case Ladder:
		if r.Start <= 0 || r.Step <= 0 {
			errs = append(errs, errors.New("--rate auto: --start-rate and --rate-step must be positive"))
		}
	}
	if s.Runs < 1 {
		errs = append(errs, fmt.Errorf("--repeat: got %d, want at least 1", s.Runs))
	}
	if r := s.SLA.Require; r.K > 0 && r.N != s.Runs {
		errs = append(errs, fmt.Errorf("--require: got %s with --repeat %d: want K/%d, N being the runs of each mode and rate", r.String(), s.Runs, s.Runs))
	}
	for _, m := range s.Modes {
		if modes != nil && !slices.Contains(modes, m) {
			errs = append(errs, fmt.Errorf("--modes: %q is not a mode: want %s", m, strings.Join(modes, " and/or ")))
		}
	}
	return errors.Join(errs...)
}

// check says what is wrong with the sweep's settings.
func (s SweepStudy) check() error {
	errs := []error{workloadGiven(s.Base), s.Criteria.Check()}
	if s.Price != nil && s.Price.Amount <= 0 {
		errs = append(errs, fmt.Errorf("--price: got %v %s/%s, want a price such as 3.20 USD/h or 694 EUR/month", s.Price.Amount, s.Price.Currency, s.Price.Period))
	}
	if s.Repeat < 1 {
		errs = append(errs, fmt.Errorf("--repeat: got %d, want at least 1", s.Repeat))
	}
	switch r := s.Rates.(type) {
	case nil:
		errs = append(errs, errors.New("--rate: required: a list of rates such as 1000,2000,5000, or auto"))
	case Auto:
		if r.Start <= 0 || r.Factor <= 1 || r.Max < r.Start {
			errs = append(errs, errors.New("--rate auto: want --start-rate > 0, --rate-factor > 1 and --max-rate ≥ --start-rate"))
		}
	}
	return errors.Join(errs...)
}

// check says what is wrong with the calibration's settings.
func (c CalibrateStudy) check() error {
	errs := []error{workloadGiven(c.Base)}
	if s := c.Search; s.Start < 1 || s.Factor < 2 || s.Max < s.Start {
		errs = append(errs, errors.New("want --start-threads ≥ 1, --threads-factor ≥ 2 and --max-threads ≥ --start-threads"))
	}
	if c.Search.MinGain <= 0 || c.Search.MinGain >= 1 {
		errs = append(errs, fmt.Errorf("--min-gain: got %v, want a share between 0 and 1, such as 0.05", c.Search.MinGain))
	}
	return errors.Join(errs...)
}

// ParseCriteria reads a sweep's criteria as its flags give them: a p99
// bound such as 20ms ("" is not checked) read as --p99 reads it, and the
// largest share of failed operations such as 0.01 ("" is 0.01, the
// flag's default). The results browser's sweep page reads its form
// with it.
func ParseCriteria(p99, maxErrors string) (Criteria, error) {
	c := Criteria{MinFraction: DefaultSweepFraction, MaxErrors: 0.01}
	if p99 != "" {
		if err := (*Bound)(&c.SLA).Set(p99); err != nil {
			return c, fmt.Errorf("p99: %w", err)
		}
	}
	if maxErrors != "" {
		f, err := strconv.ParseFloat(maxErrors, 64)
		if err != nil {
			return c, fmt.Errorf("max errors: %q is not a number: want a share between 0 and 1, such as 0.01", maxErrors)
		}
		c.MaxErrors = f
	}
	return c, c.Check()
}

// Check says what is wrong with the criteria's --max-errors; the SLA was
// checked when its flag was read (Bound).
func (c Criteria) Check() error {
	if c.MaxErrors < 0 || c.MaxErrors > 1 {
		return fmt.Errorf("--max-errors: got %v, want a share between 0 and 1, such as 0.01", c.MaxErrors)
	}
	return nil
}

func workloadGiven(b Base) error {
	if b.Scenario == nil || b.Scenario.Workload == "" {
		return errors.New("--workload: required, such as ycsb-b (see 'mongobench workloads')")
	}
	return nil
}

// ledgerModes are the modes the registry's ledger workload takes (its
// mode parameter's values).
func ledgerModes(reg spec.Registry, b Base) []string {
	if reg == nil || b.Scenario == nil {
		return nil
	}
	specs, _ := reg.ParamSpecs(b.Scenario.Workload)
	for _, p := range specs {
		if p.Name == "mode" {
			return p.Values
		}
	}
	return nil
}
