package changes

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"
)

func TestLookCheck(t *testing.T) {
	ok := Look{Options: Options{Window: 50, P: 0.001, Metrics: []string{"throughput", "p99 READ"}}}
	if err := ok.Check(); err != nil {
		t.Errorf("%+v: %v", ok, err)
	}
	for want, l := range map[string]Look{
		"--window: 5 is not valid: want from 10 to 500 runs": {Options: Options{Window: 5, P: 0.001}},
		"--window: 1000000000 is not valid":                  {Options: Options{Window: 1e9, P: 0.001}},
		"--p: 1 is not valid":                                {Options: Options{Window: 50, P: 1}},
		"--p: 0 is not valid":                                {Options: Options{Window: 50}},
		"--p: NaN is not valid":                              {Options: Options{Window: 50, P: math.NaN()}},
		"--metric: ":                                         {Options: Options{Window: 50, P: 0.001, Metrics: []string{"speed"}}},
	} {
		if err := l.Check(); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%+v: %v, want %q", l, err, want)
		}
	}
}

// A look finds the regression, alerts on it once, and keeps a hidden
// change out of the list unless All.
func TestLookTriage(t *testing.T) {
	docs := nights(40, func(i int) float64 {
		if i >= 25 {
			return 900
		}
		return 1000
	}, same)
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	look := Look{Tags: []string{"ci"}, Options: Options{Window: 50, P: 0.001}}
	f, err := look.Run(context.Background(), docs, nil, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Series) != 1 || len(f.Changes) != 1 || len(f.Shown) != 1 || len(f.Alerts) != 1 || !f.Changes[0].Found.Equal(now) {
		t.Fatalf("found %+v, want one new regression, shown and alerting", f)
	}
	id := f.Changes[0].ID
	if ids := f.AlertIDs(); len(ids) != 1 || ids[0] != id || !strings.HasPrefix(f.Alert(), "1 new regression(s): "+id+"; acknowledge") {
		t.Errorf("alert %v %q", ids, f.Alert())
	}
	var b strings.Builder
	if err := f.WriteText(&b); err != nil || !strings.HasPrefix(b.String(), "1 series, 40 runs: 1 change(s)\n") || !strings.Contains(b.String(), id) {
		t.Errorf("text %q, %v", b.String(), err)
	}
	if v := f.View(); v == nil || v.Name != "changes" || len(v.Charts) != 1 {
		t.Errorf("view %+v, want the changes report with the throughput chart", v)
	}

	// Alerted once: stored as alerted, it alerts no more.
	stored := f.Changes
	stored[0].Alerted = &now
	if f, _ = look.Run(context.Background(), docs, stored, now.Add(time.Hour)); len(f.Alerts) != 0 || f.Alert() != "" || !f.Changes[0].Found.Equal(now) {
		t.Errorf("an alerted change: alerts %v, found %v", f.Alerts, f.Changes[0].Found)
	}
	// Hidden: stored, not shown, unless All.
	stored[0].Status = Hidden
	if f, _ = look.Run(context.Background(), docs, stored, now); len(f.Changes) != 1 || len(f.Shown) != 0 || f.View() != nil {
		t.Errorf("a hidden change: %d stored, %d shown", len(f.Changes), len(f.Shown))
	}
	look.All = true
	if f, _ = look.Run(context.Background(), docs, stored, now); len(f.Shown) != 1 {
		t.Errorf("a hidden change with All: %d shown", len(f.Shown))
	}
}

// A look over a long series at the widest window stops when its context
// is done (a look of 5,000 runs at a window of 1,000 ignored Ctrl-C for
// 67 s).
func TestLookStopsWithItsContext(t *testing.T) {
	docs := nights(400, func(i int) float64 { return 1000 + float64(i%7) }, same)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	look := Look{Options: Options{Window: MaxWindow, P: 0.001}}
	if _, err := look.Run(ctx, docs, nil, time.Now()); !errors.Is(err, context.Canceled) {
		t.Fatalf("%v: want context.Canceled", err)
	}
}
