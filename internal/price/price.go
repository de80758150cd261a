package price

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"
)

// HoursPerMonth converts monthly prices to hourly ones: 365 × 24 / 12.
const HoursPerMonth = 730

// Period is what a price is charged for.
type Period string

// The periods a price may be given for.
const (
	PerHour  Period = "h"
	PerMonth Period = "month"
)

// Price is what a deployment costs: an amount of a currency per hour or
// per month.
type Price struct {
	Amount   float64
	Currency string // ISO 4217 code in upper case, such as USD or EUR
	Period   Period
}

// Want says what a valid price looks like, for errors.
const Want = `an amount, a currency and a period such as "0.42 USD/h" or "694 EUR/month"`

var pricePeriods = map[string]Period{
	"h": PerHour, "hr": PerHour, "hour": PerHour,
	"mo": PerMonth, "month": PerMonth,
}

// Parse reads a price: a positive amount, a three-letter currency
// code and a period, "/h" (also "/hr", "/hour") or "/month" (also "/mo"):
// "0.42 USD/h", "694 EUR/month". A month is 730 hours.
func Parse(s string) (Price, error) {
	text := strings.TrimSpace(s)
	amount, rest, ok := strings.Cut(text, " ")
	if !ok {
		return Price{}, invalid(s)
	}
	currency, period, ok := strings.Cut(strings.TrimSpace(rest), "/")
	per, known := pricePeriods[strings.ToLower(strings.TrimSpace(period))]
	v, isNum := decimal(amount)
	currency = strings.ToUpper(strings.TrimSpace(currency))
	if !ok || !known || !isNum || v <= 0 || !isCurrency(currency) {
		return Price{}, invalid(s)
	}
	return Price{Amount: v, Currency: currency, Period: per}, nil
}

// isCurrency reports whether c looks like an ISO 4217 code.
func isCurrency(c string) bool {
	return len(c) == 3 && strings.Trim(c, "ABCDEFGHIJKLMNOPQRSTUVWXYZ") == ""
}

// PerHour is the price of one hour, in the price's currency.
func (p Price) PerHour() float64 {
	if p.Period == PerMonth {
		return p.Amount / HoursPerMonth
	}
	return p.Amount
}

// PerMonth is the price of one month of 730 hours, in the price's currency.
func (p Price) PerMonth() float64 {
	if p.Period == PerMonth {
		return p.Amount
	}
	return p.Amount * HoursPerMonth
}

// CentsPerHour is the price of one hour in hundredths of the currency,
// rounded to four decimals (what results store as _id.instance.cost).
func (p Price) CentsPerHour() float64 {
	return math.Round(p.PerHour()*100*1e4) / 1e4
}

// String returns the price as it reads in a file, such as "0.42 USD/h".
func (p Price) String() string {
	return strconv.FormatFloat(p.Amount, 'f', -1, 64) + " " + p.Currency + "/" + string(p.Period)
}

// decimal reads a plain or exponent-notation number.
func decimal(s string) (float64, bool) {
	if s == "" || strings.Trim(s, "0123456789.eE+-") != "" {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil && !math.IsInf(v, 0)
}

// invalid is the error for a price that cannot be read, repeating at
// most 80 bytes of it.
func invalid(s string) error {
	if len(s) > 80 {
		cut := 80
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "..."
	}
	return fmt.Errorf("%q is not valid: want %s", s, Want)
}
