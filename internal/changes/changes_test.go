package changes

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/result"
)

// nights makes n nightly runs of kv whose throughput is level(i) with 1%
// noise, and the server version version(i).
func nights(n int, level func(int) float64, version func(int) string) []result.Doc {
	r := rand.New(rand.NewPCG(3, 4))
	t0 := time.Date(2026, 1, 1, 2, 0, 0, 0, time.UTC)
	docs := make([]result.Doc, n)
	for i := range docs {
		rate := level(i) * (1 + 0.01*r.NormFloat64())
		docs[i] = result.Doc{
			RunID: fmt.Sprintf("run%03d", i), TestName: "kv", Label: "nightly", Tags: []string{"ci"},
			Start:      t0.Add(time.Duration(i) * 24 * time.Hour),
			Variant:    map[string]any{"repetition": 0},
			TestConfig: map[string]any{"workload": "kv", "seed": int64(i)},
			Schedule:   result.Schedule{AchievedRate: rate, SuccessRate: rate},
			Target:     result.Target{ServerVersion: version(i)},
		}
	}
	return docs
}

func same(int) string { return "8.2.11" }

func TestFindARegressionAndItsSuspectRange(t *testing.T) {
	docs := nights(40, func(i int) float64 {
		if i >= 25 {
			return 900
		}
		return 1000
	}, same)
	series, err := Group(docs, []string{"ci"})
	if err != nil || len(series) != 1 {
		t.Fatalf("series %v, %v", series, err)
	}
	if k := series[0].Key; k.Test != "kv" || k.Label != "nightly" || len(k.Tags) != 1 {
		t.Errorf("key %+v", k)
	}
	found, _ := Find(context.Background(), series[0], Options{})
	if len(found) != 1 {
		t.Fatalf("changes %+v, want one", found)
	}
	c := found[0]
	if c.Metric != "throughput" || c.Direction != "regression" || c.Status != New || !c.Alerts() {
		t.Errorf("change %+v, want a new throughput regression", c)
	}
	if c.LastStable.ID != "run024" || c.FirstChanged.ID != "run025" || len(c.ConfigChanges) != 0 {
		t.Errorf("suspect range %s → %s %v", c.LastStable.ID, c.FirstChanged.ID, c.ConfigChanges)
	}
	if c.Before < 980 || c.Before > 1020 || c.After < 880 || c.After > 920 || c.P > 0.001 {
		t.Errorf("before %v after %v p %v", c.Before, c.After, c.P)
	}
	if c.ID != ID(series[0].Key, "throughput", "run025") || len(c.ID) != 10 {
		t.Errorf("id %q", c.ID)
	}
}

func TestAConfigurationChangeMakesTheChangeExpected(t *testing.T) {
	docs := nights(40, func(i int) float64 {
		if i >= 25 {
			return 1200
		}
		return 1000
	}, func(i int) string {
		if i >= 25 {
			return "8.3.0"
		}
		return "8.2.11"
	})
	series, _ := Group(docs, nil)
	found, _ := Find(context.Background(), series[0], Options{})
	if len(found) != 1 || found[0].Status != Expected || found[0].Direction != "improvement" || found[0].Alerts() {
		t.Fatalf("changes %+v, want one expected improvement", found)
	}
	if want := "server version 8.2.11 → 8.3.0"; len(found[0].ConfigChanges) != 1 || found[0].ConfigChanges[0] != want {
		t.Errorf("config changes %v, want %q", found[0].ConfigChanges, want)
	}
}

func TestMergeKeepsTheTriage(t *testing.T) {
	at := time.Date(2026, 2, 1, 0, 0, 0, 0, time.UTC)
	stored := []Change{{ID: "a", Status: Acknowledged, Why: "known", Found: at, Alerted: &at}}
	found := []Change{{ID: "a", Status: New, After: 2}, {ID: "b", Status: New}}
	now := at.Add(time.Hour)
	got := Merge(stored, found, now)
	if got[0].Status != Acknowledged || got[0].Why != "known" || !got[0].Found.Equal(at) || got[0].After != 2 || got[0].Alerted == nil {
		t.Errorf("stored change %+v", got[0])
	}
	if got[1].Status != New || !got[1].Found.Equal(now) || !got[1].Alerts() == (got[1].Direction == "regression") {
		t.Errorf("new change %+v", got[1])
	}
}

func TestPartialRunsAndGroupClientsAreLeftOut(t *testing.T) {
	docs := nights(3, func(int) float64 { return 1000 }, same)
	docs[1].Partial = true
	idx := 0
	docs[2].Group = &result.Group{ClientIndex: &idx}
	series, _ := Group(docs, nil)
	if len(series) != 1 || len(series[0].Runs) != 1 {
		t.Fatalf("series %+v, want one run", series)
	}
}
