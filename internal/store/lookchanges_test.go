package store_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/changes"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// A look reads the series' runs from the history, finds the change and
// stores it; a second look finds it again with its triage kept.
func TestLookForChanges(t *testing.T) {
	ctx := context.Background()
	c := connect(t)
	dbName := testenv.DBName(t)
	t.Cleanup(func() { _ = c.Database(dbName).Drop(context.Background()) })
	st := store.NewMongo(c, dbName, "the test server")
	t0 := time.Now().UTC().Truncate(time.Millisecond).Add(-40 * 24 * time.Hour)
	for i := range 40 {
		d := sampleDoc(t, fmt.Sprintf("night%02d", i), "v1", t0.Add(time.Duration(i)*24*time.Hour))
		rate := 1000.0 + float64(i%3)
		if i >= 25 {
			rate -= 100
		}
		d.Schedule.AchievedRate, d.Schedule.SuccessRate = rate, rate
		if err := st.Save(ctx, d); err != nil {
			t.Fatal(err)
		}
	}
	look := changes.Look{Options: changes.Options{Window: 50, P: 0.001, Metrics: []string{"throughput"}}}
	first := t0.Add(41 * 24 * time.Hour)
	found, err := store.LookForChanges(ctx, st, "store-test", "", look, first)
	if err != nil {
		t.Fatal(err)
	}
	if len(found.Changes) != 1 || found.Changes[0].FirstChanged.ID != "night25" || len(found.Alerts) != 1 {
		t.Fatalf("found %+v, want the throughput drop at night25, alerting", found.Changes)
	}
	stored, err := st.Changes(ctx)
	if err != nil || len(stored) != 1 || stored[0].ID != found.Changes[0].ID {
		t.Fatalf("stored %+v, %v", stored, err)
	}
	if _, err := st.SetChangeStatus(ctx, stored[0].ID, changes.Acknowledged, "known"); err != nil {
		t.Fatal(err)
	}
	again, err := store.LookForChanges(ctx, st, "store-test", "", look, first.Add(time.Hour))
	if err != nil || len(again.Changes) != 1 || again.Changes[0].Status != changes.Acknowledged || !again.Changes[0].Found.Equal(first) || len(again.Alerts) != 0 {
		t.Errorf("a second look: %+v, %v; want the change acknowledged, found at the first look", again.Changes, err)
	}
}
