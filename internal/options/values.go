package options

import (
	"strconv"

	"github.com/spf13/pflag"

	"github.com/mongobench/mongobench/internal/catalog"
	"github.com/mongobench/mongobench/internal/price"
	"github.com/mongobench/mongobench/internal/significance"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/study"
)

// Setting is a scenario setting's flag in run: it checks its text with
// spec (the one validation path, spec.Scenario.SetFlag) and keeps the text
// for the scenario built later, after the file it overrides is read. Its
// type is the setting's kind, for help.
type Setting struct {
	check *spec.SettingFlag // the setting on a scratch scenario: Set and Type
	text  string
	set   bool // given on the command line or by its variable
}

// NewSetting is the flag value of the scenario setting name.
func NewSetting(name string) *Setting {
	return &Setting{check: (&spec.Scenario{}).Flag(name, "")}
}

func (v *Setting) Set(text string) error {
	if err := v.check.Set(text); err != nil {
		return err
	}
	v.text, v.set = text, true
	return nil
}

func (v *Setting) String() string { return v.text }
func (v *Setting) Type() string   { return v.check.Type() }

// CheckedText is a flag kept as text for a later step (spec.TargetFlags,
// server.Options) but checked when given by the parser that step uses,
// and named by its kind in help: "price", "scale", "size".
type CheckedText struct {
	text  *string
	kind  string
	check func(string) error
}

func (v CheckedText) Set(text string) error {
	if err := v.check(text); err != nil {
		return err
	}
	*v.text = text
	return nil
}

func (v CheckedText) String() string { return *v.text }
func (v CheckedText) Type() string   { return v.kind }

// ListText is a flag kept as one comma-separated text, to which each
// repetition of the flag adds (--host-metrics, --host-device).
type ListText struct{ text *string }

func (v ListText) Set(text string) error {
	if *v.text != "" {
		text = *v.text + "," + text
	}
	*v.text = text
	return nil
}

func (v ListText) String() string { return *v.text }
func (v ListText) Type() string   { return "strings" }

// PriceText is a price such as "0.42 USD/h" or "694 EUR/month"
// (price.Parse, the one grammar of a price), kept as text.
func PriceText(dst *string) CheckedText {
	return CheckedText{dst, "price", func(s string) error { _, err := price.Parse(s); return err }}
}

// ScaleText is catalog run's --scale: a fraction of the reference sizes,
// or full.
func ScaleText(dst *string) CheckedText {
	return CheckedText{dst, "scale", func(s string) error { _, err := catalog.ParseScale(s); return err }}
}

// SizeText is a size such as 256M or 2GB.
func SizeText(dst *string) CheckedText {
	return CheckedText{dst, "size", func(s string) error { _, err := spec.ParseSize(s); return err }}
}

// Price is a --price read with price.Parse into *dst.
type Price struct{ dst **price.Price }

// PriceOf is the flag value that sets *dst.
func PriceOf(dst **price.Price) Price { return Price{dst} }

func (v Price) Set(text string) error {
	p, err := price.Parse(text)
	if err != nil {
		return err
	}
	*v.dst = &p
	return nil
}

func (v Price) String() string {
	if *v.dst == nil {
		return ""
	}
	return (*v.dst).String()
}

func (Price) Type() string { return "price" }

// Dollars is the deprecated --cost-per-hour: bare US dollars per hour,
// read as a price in USD per hour (its range is the study's to check).
type Dollars struct{ dst **price.Price }

// DollarsOf is the flag value that sets *dst.
func DollarsOf(dst **price.Price) Dollars { return Dollars{dst} }

func (v Dollars) Set(text string) error {
	d, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return err
	}
	*v.dst = &price.Price{Amount: d, Currency: "USD", Period: price.PerHour}
	return nil
}

func (v Dollars) String() string { return Price(v).String() }
func (Dollars) Type() string     { return "float" }

// MinEffects is --min-effect KIND=PERCENT, repeatable: the smallest
// change that counts, as a fraction, for a kind of metric (p99,
// throughput: significance.DefaultMinEffect's keys) or one metric
// ("p99 READ").
type MinEffects map[string]float64

// MinEffect declares --min-effect into *m, its help after prefix.
func MinEffect(fl *pflag.FlagSet, m *MinEffects, prefix string) {
	fl.Var(m, "min-effect", prefix+"the smallest change that counts for a kind of metric, KIND=PERCENT (defaults: throughput, p50, p95 5%; p99 10%; p99.9 20%; errors 0.1 points)")
}

func (m *MinEffects) Set(s string) error {
	k, v, err := significance.ParseMinEffect(s)
	if err != nil {
		return err
	}
	if *m == nil {
		*m = MinEffects{}
	}
	(*m)[k] = v
	return nil
}

func (m *MinEffects) String() string { return "" }
func (m *MinEffects) Type() string   { return "KIND=PERCENT" }

var (
	_ pflag.Value = (*MinEffects)(nil)
	_ pflag.Value = (*Setting)(nil)
	_ pflag.Value = CheckedText{}
	_ pflag.Value = ListText{}
	_ pflag.Value = Price{}
	_ pflag.Value = Dollars{}
)

// Criteria declares --p99 (formerly --sla) and --max-errors, the criteria
// of sweep and compare.
func Criteria(fl *pflag.FlagSet, c *study.Criteria, p99Help, maxErrorsHelp string) {
	fl.Var((*study.Bound)(&c.SLA), "p99", p99Help)
	Alias(fl, "sla", "p99")
	fl.Float64Var(&c.MaxErrors, "max-errors", 0.01, maxErrorsHelp)
}

// SLABounds declares --p99, --p95 and --p999, the bounds of sla.
func SLABounds(fl *pflag.FlagSet, sla *study.SLA, p99Help string) {
	fl.Var((*study.Bound)(&sla.P99), "p99", p99Help)
	fl.Var((*study.Bound)(&sla.P95), "p95", "also require p95 within this")
	fl.Var((*study.Bound)(&sla.P999), "p999", "also require p99.9 within this")
}
