package changes

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/result"
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

// Night by night, a step is a candidate three nights after it, alerts
// then, keeps its id and its triage when it is confirmed, and alerts no
// more; a change stored before candidates existed keeps its id.
func TestCandidateThenConfirmed(t *testing.T) {
	docs := nights(45, func(i int) float64 {
		if i >= 30 {
			return 900
		}
		return 1000
	}, same)
	look := Look{Tags: []string{"ci"}, Options: Options{Window: 50, P: 0.001, Metrics: []string{"throughput"}}}
	t0 := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	var stored []Change
	raised, confirmed, alerts := -1, -1, 0
	var id string
	for n := 20; n <= len(docs); n++ {
		now := t0.Add(time.Duration(n) * 24 * time.Hour)
		f, err := look.Run(context.Background(), docs[:n], stored, now)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range f.Alerts {
			alerts++
			at := now
			for i := range f.Changes {
				if f.Changes[i].ID == c.ID {
					f.Changes[i].Alerted = &at
				}
			}
		}
		for _, c := range f.Changes {
			switch {
			case c.Stage == Candidate && raised < 0:
				raised, id = n, c.ID
				if c.FirstChanged.ID != "run030" || c.Direction != "regression" {
					t.Errorf("night %d: candidate %+v, want the regression at run030", n, c)
				}
			case c.Stage == Confirmed && confirmed < 0:
				confirmed = n
				if c.ID != id {
					t.Errorf("confirmed as %s, raised as %s: want one id", c.ID, id)
				}
			}
		}
		stored = f.Changes
	}
	if raised != 33 || confirmed <= raised || alerts != 1 {
		t.Errorf("raised on night %d (want 33), confirmed on %d, %d alerts (want 1)", raised, confirmed, alerts)
	}

	// A change stored by a version without candidates, under the id of
	// its first changed run, keeps that id and its triage.
	old := ID(Key{Test: "kv", Label: "nightly", Variant: `{}`, Tags: []string{"ci"}}, "throughput", "run030")
	f, err := look.Run(context.Background(), docs, []Change{{ID: old, Status: Acknowledged, Why: "known"}}, t0)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Changes) != 1 || f.Changes[0].ID != old || f.Changes[0].Status != Acknowledged {
		t.Errorf("changes %+v, want the stored change %s acknowledged", f.Changes, old)
	}
}

// A candidate that does not hold is withdrawn: stored as such, not
// listed, and it alerts no more.
func TestCandidateWithdrawn(t *testing.T) {
	docs := nights(40, func(i int) float64 {
		if i >= 30 && i < 33 {
			return 900
		}
		return 1000
	}, same)
	look := Look{Tags: []string{"ci"}, Options: Options{Window: 50, P: 0.001, Metrics: []string{"throughput"}}}
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	f, err := look.Run(context.Background(), docs[:33], nil, now)
	if err != nil || len(f.Changes) != 1 || f.Changes[0].Stage != Candidate {
		t.Fatalf("after three low nights: %+v, %v; want a candidate", f.Changes, err)
	}
	f, err = look.Run(context.Background(), docs, f.Changes, now)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Changes) != 1 || f.Changes[0].Stage != Withdrawn || len(f.Shown) != 0 || len(f.Alerts) != 0 {
		t.Errorf("after seven more normal nights: changes %+v, shown %d, alerts %d; want it withdrawn, not shown", f.Changes, len(f.Shown), len(f.Alerts))
	}
}

// Runs judged invalid raise no alarm: left out (and counted), unless
// asked for.
func TestInvalidRunsRaiseNoAlarm(t *testing.T) {
	docs := nights(36, func(i int) float64 {
		if i >= 33 {
			return 500 // a client host starved on the last three nights
		}
		return 1000
	}, same)
	for i := 33; i < 36; i++ {
		docs[i].Validity = &result.Validity{State: result.Invalid}
	}
	look := Look{Tags: []string{"ci"}, Options: Options{Window: 50, P: 0.001, Metrics: []string{"throughput"}}}
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	f, err := look.Run(context.Background(), docs, nil, now)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	if err := f.WriteText(&b); err != nil {
		t.Fatal(err)
	}
	if len(f.Changes) != 0 || f.Invalid != 3 || !strings.Contains(b.String(), "3 run(s) judged invalid left out") {
		t.Errorf("changes %+v, %d invalid; text %q: want no change, three runs left out", f.Changes, f.Invalid, b.String())
	}
	look.IncludeInvalid = true
	if f, _ = look.Run(context.Background(), docs, nil, now); len(f.Changes) != 1 || f.Changes[0].Stage != Candidate {
		t.Errorf("with the invalid runs: %+v, want their drop as a candidate", f.Changes)
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
