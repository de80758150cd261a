package study

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/price"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/spec"
)

func TestFlagValues(t *testing.T) {
	var b Bound
	if err := b.Set("20ms"); err != nil || time.Duration(b) != 20*time.Millisecond || b.String() != "20ms" {
		t.Errorf("Bound.Set(20ms): got %v, %v", b, err)
	}
	for _, bad := range []string{"0s", "-1ms", "fast", "20"} {
		if err := new(Bound).Set(bad); err == nil {
			t.Errorf("Bound.Set(%q): got no error, want one", bad)
		}
	}
	var r Rates
	auto := Auto{Start: 1}
	if got := r.Search(auto); got != nil {
		t.Errorf("Rates not given: got %v, want nil", got)
	}
	if err := r.Set("500, 1k"); err != nil || !reflect.DeepEqual(r.Search(auto), List{500, 1000}) || r.String() != "500, 1k" {
		t.Errorf("Rates.Set(500, 1k): got %v, %v", r.Search(auto), err)
	}
	if err := r.Set("auto"); err != nil || r.Search(auto) != auto {
		t.Errorf("Rates.Set(auto): got %v, %v", r.Search(auto), err)
	}
	if err := r.Set("x,-1"); err == nil || strings.Count(err.Error(), "is not valid") != 2 {
		t.Errorf("Rates.Set(x,-1): got %v, want two problems", err)
	}
	var prices Prices
	c := Costs{&prices}
	for _, kv := range []string{"b=4", "a=3.20"} {
		if err := c.Set(kv); err != nil {
			t.Fatal(err)
		}
	}
	if c.String() != "a=3.2 USD/h,b=4 USD/h" {
		t.Errorf("Costs: got %q", c.String())
	}
	for _, bad := range []string{"a", "a=cheap", "a=0", "a=-1"} {
		if err := c.Set(bad); err == nil {
			t.Errorf("Costs.Set(%q): got no error, want one", bad)
		}
	}
	var p Prices
	for _, kv := range []string{"b=2920 EUR/month", "a=3.20 USD/h"} {
		if err := p.Set(kv); err != nil {
			t.Fatal(err)
		}
	}
	if p.String() != "a=3.2 USD/h,b=2920 EUR/month" || p["b"].PerHour() != 4 {
		t.Errorf("Prices: got %q", p.String())
	}
	for _, bad := range []string{"a", "a=3.20", "=3 USD/h", "a=3 dollars/h", "a=0 USD/h"} {
		if err := p.Set(bad); err == nil {
			t.Errorf("Prices.Set(%q): got no error, want one", bad)
		}
	}
}

// TestChecksNameTheFlags: each study's Check says every setting that is
// wrong by its flag, before building any scenario.
func TestChecksNameTheFlags(t *testing.T) {
	env := Env{Registry: testRegistry}
	ledger := Base{Scenario: &spec.Scenario{Workload: "ledger"}}
	kv := Base{Scenario: &spec.Scenario{Workload: "kv"}}
	tests := []struct {
		name string
		err  error
		want []string // "" for no error
	}{
		{"sla ok", SLAStudy{SLA: SLA{P99: time.Millisecond}, Rates: List{100}, Runs: 1, Modes: []string{"per-op"}, Base: ledger}.Check(env), nil},
		{"sla", SLAStudy{Runs: 0, Modes: []string{"bulk"}, Base: ledger}.Check(env), []string{"--p99: required", "--rate: required", "--repeat: got 0", `--modes: "bulk" is not a mode: want per-op and/or client-bulk`}},
		{"sla ladder", SLAStudy{SLA: SLA{P99: time.Millisecond}, Rates: Ladder{Start: 0, Step: 1}, Runs: 1, Base: ledger}.Check(env), []string{"--rate auto: --start-rate and --rate-step must be positive"}},
		{"sweep ok", SweepStudy{Base: kv, Rates: List{100}, Repeat: 1}.Check(env), nil},
		{"sweep", SweepStudy{Base: Base{Scenario: &spec.Scenario{}}, Criteria: Criteria{MaxErrors: 2}, Price: &price.Price{Amount: -1, Currency: "USD", Period: price.PerHour}}.Check(env),
			[]string{"--workload: required", "--max-errors: got 2", "--price: got -1", "--repeat: got 0", "--rate: required"}},
		{"sweep auto", SweepStudy{Base: kv, Rates: Auto{Start: 100, Factor: 1, Max: 1000}, Repeat: 1}.Check(env), []string{"--rate auto: want --start-rate > 0, --rate-factor > 1"}},
		{"calibrate ok", CalibrateStudy{Base: kv, Search: Calibration{Start: 1, Factor: 2, Max: 8, MinGain: 0.05}}.Check(env), nil},
		{"calibrate", CalibrateStudy{Base: kv, Search: Calibration{Start: 8, Factor: 2, Max: 4, MinGain: 1}}.Check(env), []string{"want --start-threads ≥ 1, --threads-factor ≥ 2 and --max-threads ≥ --start-threads", "--min-gain: got 1"}},
		{"compare ok", CompareStudy{Labels: []string{"a", "b"}, Prices: Prices{"a": *usd(3), "b": *usd(4)}}.Check(), nil},
		{"compare currencies", CompareStudy{Labels: []string{"a", "b"}, Prices: Prices{"a": *usd(3), "b": {Amount: 3, Currency: "EUR", Period: price.PerHour}}}.Check(),
			[]string{"--price: prices in different currencies cannot be compared: a's 3 USD/h and b's 3 EUR/h"}},
		{"compare", CompareStudy{Labels: []string{"a", "a"}, Prices: Prices{"c": *usd(3)}, Criteria: Criteria{MaxErrors: -1}}.Check(),
			[]string{`--label: "a" is empty or given twice`, `--price: "c=3 USD/h" names no --label`, "--max-errors: got -1"}},
		{"compare one label", CompareStudy{Labels: []string{"a"}}.Check(), []string{"--label: give at least two"}},
	}
	for _, tt := range tests {
		if tt.want == nil {
			if tt.err != nil {
				t.Errorf("%s: got %v, want no error", tt.name, tt.err)
			}
			continue
		}
		if tt.err == nil {
			t.Errorf("%s: got no error, want %q", tt.name, tt.want)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(tt.err.Error(), w) {
				t.Errorf("%s: got %q, want it to contain %q", tt.name, tt.err, w)
			}
		}
	}
}

func TestCompareStudyRun(t *testing.T) {
	s := CompareStudy{Labels: []string{"a", "b"}, Workload: "kv"}
	none := func(string, string) ([]result.Doc, error) { return nil, nil }
	_, err := s.Run(none, "results.jsonl")
	if want := `no stored sweep has label "a" and workload kv in results.jsonl (run 'mongobench sweep --label a' first)`; err == nil || err.Error() != want {
		t.Errorf("no sweeps: got %v, want %q", err, want)
	}
	broken := errors.New("store went away")
	fail := func(string, string) ([]result.Doc, error) { return nil, broken }
	if _, err := s.Run(fail, "x"); !errors.Is(err, broken) {
		t.Errorf("store fails: got %v, want its error", err)
	}
}
