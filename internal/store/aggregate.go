package store

import (
	"context"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Aggregate runs an aggregation pipeline, given as a JSON array of stages
// in relaxed Extended JSON, on a collection of the results database, and
// returns the output documents as plain Go values: map[string]any, []any,
// int64, float64, string, bool, time.Time and nil.
func (m *Mongo) Aggregate(ctx context.Context, collection string, pipelineJSON []byte) ([]map[string]any, error) {
	pipeline, err := parsePipeline(pipelineJSON)
	if err != nil {
		return nil, fmt.Errorf("collection %s: %w", collection, err)
	}
	cur, err := m.db.Collection(collection).Aggregate(ctx, pipeline)
	if err != nil {
		return nil, fmt.Errorf("aggregate on collection %s: %w", collection, err)
	}
	defer cur.Close(context.WithoutCancel(ctx))
	var out []map[string]any
	for cur.Next(ctx) {
		var d bson.D
		if err := cur.Decode(&d); err != nil {
			return nil, fmt.Errorf("aggregate on collection %s: %w", collection, err)
		}
		out = append(out, plainDoc(d))
	}
	if err := cur.Err(); err != nil {
		return nil, fmt.Errorf("aggregate on collection %s: %w", collection, err)
	}
	return out, nil
}

// parsePipeline reads a JSON array of stages, keeping key order.
func parsePipeline(js []byte) (bson.A, error) {
	var wrapper struct {
		Pipeline bson.A `bson:"pipeline"`
	}
	doc := append(append([]byte(`{"pipeline":`), js...), '}')
	if err := bson.UnmarshalExtJSON(doc, false, &wrapper); err != nil {
		return nil, fmt.Errorf("pipeline is not valid Extended JSON: %w", err)
	}
	return wrapper.Pipeline, nil
}

// plainDoc converts a decoded document to plain Go values.
func plainDoc(d bson.D) map[string]any {
	m := make(map[string]any, len(d))
	for _, e := range d {
		m[e.Key] = plain(e.Value)
	}
	return m
}

// plain converts one BSON value to a plain Go value.
func plain(v any) any {
	switch x := v.(type) {
	case bson.D:
		return plainDoc(x)
	case bson.M:
		return plainDoc(mapToD(x))
	case bson.A:
		out := make([]any, len(x))
		for i := range x {
			out[i] = plain(x[i])
		}
		return out
	case int32:
		return int64(x)
	case bson.DateTime:
		return x.Time().UTC()
	case bson.Timestamp:
		return time.Unix(int64(x.T), 0).UTC()
	case bson.ObjectID:
		return x.Hex()
	case bson.Decimal128:
		return decimal(x)
	case bson.Null, bson.Undefined:
		return nil
	}
	return v
}

func mapToD(m bson.M) bson.D {
	d := make(bson.D, 0, len(m))
	for k, v := range m {
		d = append(d, bson.E{Key: k, Value: v})
	}
	return d
}

// decimal gives a Decimal128 as a float64 when it has one, else as text.
func decimal(x bson.Decimal128) any {
	var f float64
	if _, err := fmt.Sscan(x.String(), &f); err == nil {
		return f
	}
	return x.String()
}
