package store_test

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

func TestAggregateReturnsPlainValues(t *testing.T) {
	c := connect(t)
	dbName := testenv.DBName(t)
	ctx := context.Background()
	t.Cleanup(func() { _ = c.Database(dbName).Drop(context.Background()) })
	at := time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)
	coll := c.Database(dbName).Collection("results")
	for i, x := range []any{int32(7), 2.5} {
		doc := bson.D{{Key: "_id", Value: bson.D{{Key: "order", Value: 2 - i}}}, {Key: "x", Value: x},
			{Key: "at", Value: at}, {Key: "none", Value: nil},
			{Key: "a", Value: bson.A{bson.D{{Key: "b", Value: int64(1)}}, "s", true}}}
		if _, err := coll.InsertOne(ctx, doc); err != nil {
			t.Fatal(err)
		}
	}
	st, err := store.NewMongo(c, dbName, "test").TemplateReader(ctx)
	if err != nil {
		t.Fatal(err)
	}

	// A $sort on two keys whose order matters: order wins over x.
	rows, err := st.Aggregate(ctx, "results", []byte(`[{"$sort": {"_id.order": 1, "x": -1}}, {"$project": {"_id": 0}}]`))
	if err != nil {
		t.Fatal(err)
	}
	want := []map[string]any{
		{"x": 2.5, "at": at, "none": nil, "a": []any{map[string]any{"b": int64(1)}, "s", true}},
		{"x": int64(7), "at": at, "none": nil, "a": []any{map[string]any{"b": int64(1)}, "s", true}},
	}
	if !reflect.DeepEqual(rows, want) {
		t.Errorf("got %#v\nwant %#v", rows, want)
	}

	_, err = st.Aggregate(ctx, "results", []byte(`[{"$nosuchstage": {}}]`))
	if err == nil || !strings.Contains(err.Error(), "collection results") {
		t.Errorf("bad stage: got %v, want an error naming the collection", err)
	}
	_, err = st.Aggregate(ctx, "results", []byte(`[{"$match": }]`))
	if err == nil || !strings.Contains(err.Error(), "collection results") {
		t.Errorf("bad JSON: got %v, want an error naming the collection", err)
	}
}

// The template reader refuses a pipeline that writes even when handed it
// directly (no template parsed it), and runs with read concern
// "linearizable" on a replica set's primary, under which the server
// refuses $out and $merge as well.
func TestTemplateReaderOnlyReads(t *testing.T) {
	c := connect(t)
	dbName := testenv.DBName(t)
	ctx := context.Background()
	t.Cleanup(func() { _ = c.Database(dbName).Drop(context.Background()) })
	if _, err := c.Database(dbName).Collection("results").InsertOne(ctx, bson.D{{Key: "x", Value: 1}}); err != nil {
		t.Fatal(err)
	}
	r, err := store.NewMongo(c, dbName, "test").TemplateReader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{
		`[{"$out": "written"}]`,
		`[{"$merge": {"into": "written"}}]`,
		`[{"$facet": {"a": [{"\u0024out": "written"}]}}]`,
		`[{"$match": {"$where": {"$code": "true"}}}]`,
	} {
		if _, err := r.Aggregate(ctx, "results", []byte(p)); err == nil || !strings.Contains(err.Error(), "a template only reads") {
			t.Errorf("%s: got %v, want it refused before it is sent", p, err)
		}
	}
	names, err := c.Database(dbName).ListCollectionNames(ctx, bson.D{})
	if err != nil {
		t.Fatal(err)
	}
	if len(names) != 1 {
		t.Errorf("collections: got %v, want only results", names)
	}

	var hello bson.M
	if err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}).Decode(&hello); err != nil {
		t.Fatal(err)
	}
	if _, rs := hello["setName"]; rs && r.ReadConcern() != "linearizable" {
		t.Errorf("on a replica set's primary: read concern %q, want linearizable", r.ReadConcern())
	}
	if rows, err := r.Aggregate(ctx, "results", []byte(`[{"$project": {"_id": 0}}]`)); err != nil || len(rows) != 1 {
		t.Errorf("a reading pipeline: got %v, %v", rows, err)
	}
}
