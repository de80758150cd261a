package workload_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
	"github.com/mongobench/mongobench/internal/workload"
)

// A reserved database is never claimed, reset or dropped, even one that
// carries the marker (as the results database could get from a version
// that accepted --database mongobench): the results outlive every clean.
func TestReservedDatabaseNeverDropped(t *testing.T) {
	c := testenv.Client(t, testenv.URI(t))
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	db := c.Database(spec.ResultsDatabase)
	probe := db.Collection("history_reserved_probe")
	if _, err := probe.InsertOne(ctx, bson.D{{Key: "kept", Value: true}}); err != nil {
		t.Fatalf("seed the results database: %v", err)
	}
	marker := db.Collection(workload.MarkerCollection)
	if _, err := marker.InsertOne(ctx, bson.D{{Key: "tool", Value: "mongobench"}}); err != nil {
		t.Fatalf("mark the results database: %v", err)
	}
	t.Cleanup(func() {
		_ = marker.Drop(context.Background())
		_ = probe.Drop(context.Background())
	})

	checks := []struct {
		name string
		call func() error
	}{
		{"DropOwned", func() error { return workload.DropOwned(ctx, db) }},
		{"ResetCollection", func() error { return workload.ResetCollection(ctx, db, probe.Name()) }},
		{"Claim", func() error { return workload.Claim(ctx, db) }},
	}
	for _, ch := range checks {
		err := ch.call()
		if err == nil || !strings.Contains(err.Error(), "reserved") {
			t.Errorf("%s(%s): got %v, want a refusal saying the name is reserved", ch.name, spec.ResultsDatabase, err)
		}
	}
	n, err := probe.CountDocuments(ctx, bson.D{})
	if err != nil || n != 1 {
		t.Errorf("results database after the refusals: %d probe documents (error %v), want 1", n, err)
	}
}
