package price

import (
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	tests := []struct {
		in         string
		want       Price
		centsPerH  float64
		perMonth   float64
		wantString string
	}{
		{"0.42 USD/h", Price{0.42, "USD", PerHour}, 42, 306.6, "0.42 USD/h"},
		{"694 EUR/month", Price{694, "EUR", PerMonth}, 95.0685, 694, "694 EUR/month"},
		{"  1625 eur / mo ", Price{1625, "EUR", PerMonth}, 222.6027, 1625, "1625 EUR/month"},
		{"0.1 usd/hour", Price{0.1, "USD", PerHour}, 10, 73, "0.1 USD/h"},
		{"2 GBP/hr", Price{2, "GBP", PerHour}, 200, 1460, "2 GBP/h"},
		{"7.3 CHF/month", Price{7.3, "CHF", PerMonth}, 1, 7.3, "7.3 CHF/month"},
	}
	for _, tt := range tests {
		got, err := Parse(tt.in)
		if err != nil {
			t.Errorf("Parse(%q): %v", tt.in, err)
			continue
		}
		if got != tt.want {
			t.Errorf("Parse(%q) = %+v, want %+v", tt.in, got, tt.want)
		}
		if c := got.CentsPerHour(); c != tt.centsPerH {
			t.Errorf("Parse(%q).CentsPerHour() = %v, want %v", tt.in, c, tt.centsPerH)
		}
		if m := got.PerMonth(); m < tt.perMonth-1e-9 || m > tt.perMonth+1e-9 {
			t.Errorf("Parse(%q).PerMonth() = %v, want %v", tt.in, m, tt.perMonth)
		}
		if s := got.String(); s != tt.wantString {
			t.Errorf("Parse(%q).String() = %q, want %q", tt.in, s, tt.wantString)
		}
	}
}

func TestParsePriceErrors(t *testing.T) {
	for _, in := range []string{
		"", "0.42", "0.42 USD", "USD 0.42/h", "0.42 USD/day", "0 USD/h", "-1 USD/h",
		"0.42 US/h", "0.42 DOLLARS/h", "0.42 $/h", "NaN USD/h", "1e400 USD/h", "0x10 USD/h",
	} {
		_, err := Parse(in)
		if err == nil {
			t.Errorf("Parse(%q): got no error", in)
			continue
		}
		if !strings.Contains(err.Error(), `"0.42 USD/h"`) {
			t.Errorf("Parse(%q) error %q does not show a valid price", in, err)
		}
	}
}
