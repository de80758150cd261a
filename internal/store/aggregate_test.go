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
	st := store.NewMongo(c, dbName, "test")

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
