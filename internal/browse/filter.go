package browse

import (
	"errors"
	"fmt"
	"net/url"
	"strings"
	"time"

	"github.com/mongobench/mongobench/internal/result"
)

// Filter selects runs; an empty field matches anything.
type Filter struct {
	Test, Label, Workload, Tag string
	// From and To bound the run's start (To is exclusive); zero: open.
	From, To time.Time
}

// dateForm is how the list's date fields are written.
const dateForm = "2006-01-02"

// ParseFilter reads a filter from a query: test, label, workload, tag,
// from and to (dates, YYYY-MM-DD, or RFC 3339 times; a date's "to"
// includes that day).
func ParseFilter(q url.Values) (Filter, error) {
	f := Filter{Test: q.Get("test"), Label: q.Get("label"), Workload: q.Get("workload"), Tag: q.Get("tag")}
	var err error
	if f.From, err = parseWhen("from", q.Get("from"), false); err != nil {
		return f, err
	}
	f.To, err = parseWhen("to", q.Get("to"), true)
	return f, err
}

func parseWhen(name, s string, end bool) (time.Time, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return time.Time{}, nil
	}
	if t, err := time.Parse(time.RFC3339, s); err == nil {
		return t, nil
	}
	t, err := time.Parse(dateForm, s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%s: %q is not a date: want YYYY-MM-DD or an RFC 3339 time", name, s)
	}
	if end {
		t = t.AddDate(0, 0, 1)
	}
	return t, nil
}

// Query writes the filter back as a query string (without "?").
func (f Filter) Query() string {
	q := url.Values{}
	for k, v := range map[string]string{"test": f.Test, "label": f.Label, "workload": f.Workload, "tag": f.Tag} {
		if v != "" {
			q.Set(k, v)
		}
	}
	if !f.From.IsZero() {
		q.Set("from", f.From.UTC().Format(time.RFC3339))
	}
	if !f.To.IsZero() {
		q.Set("to", f.To.UTC().Format(time.RFC3339))
	}
	return q.Encode()
}

func workloadOf(d *result.Doc) string {
	w, _ := d.TestConfig["workload"].(string)
	return w
}

// Choices are the values the list's filters offer, from every run.
type Choices struct {
	Tests, Labels, Workloads, Tags []string
}

// ErrNotFound marks a page whose study or run is not stored.
var ErrNotFound = errors.New("not stored")
