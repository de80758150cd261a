package store

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/mongo/readconcern"

	"github.com/mongobench/mongobench/internal/template"
)

// TemplateReader runs report templates' pipelines on the results
// database, and can do nothing else: it is the read-only view of the store
// a template renders through. Each pipeline is checked again as the
// server receives it (template.CheckPipeline on the parsed pipeline), so
// no stage that writes or runs JavaScript is sent, whatever the template
// text held; on a replica set's primary the aggregate also runs with read
// concern "linearizable", under which the server itself refuses $out and
// $merge.
type TemplateReader struct {
	db *mongo.Database
	rc string // the read concern level the pipelines run with; "" for the server's default
}

// TemplateReader returns the store's read-only view for templates. It
// asks the server (hello) whether it is a replica set's primary, the one
// place read concern "linearizable" is offered.
func (m *Mongo) TemplateReader(ctx context.Context) (*TemplateReader, error) {
	var hello struct {
		SetName           string `bson:"setName"`
		IsWritablePrimary bool   `bson:"isWritablePrimary"`
	}
	if err := m.db.RunCommand(ctx, bson.D{{Key: "hello", Value: 1}}).Decode(&hello); err != nil {
		return nil, fmt.Errorf("results store: hello: %w", err)
	}
	r := &TemplateReader{db: m.db}
	if hello.SetName != "" && hello.IsWritablePrimary {
		r.rc = "linearizable"
	}
	return r, nil
}

// ReadConcern names the read concern level the pipelines run with, ""
// for the server's default.
func (r *TemplateReader) ReadConcern() string { return r.rc }

// Aggregate runs an aggregation pipeline, given as a JSON array of stages
// in relaxed Extended JSON, on a collection of the results database, and
// returns the output documents as plain Go values: map[string]any, []any,
// int64, float64, string, bool, time.Time and nil. A pipeline that writes
// or runs server-side JavaScript is refused before it is sent.
func (r *TemplateReader) Aggregate(ctx context.Context, collection string, pipelineJSON []byte) ([]map[string]any, error) {
	pipeline, err := parsePipeline(pipelineJSON)
	if err != nil {
		return nil, fmt.Errorf("collection %s: %w", collection, err)
	}
	if err := checkParsed(pipeline); err != nil {
		return nil, fmt.Errorf("collection %s: %w", collection, err)
	}
	opts := options.Collection()
	if r.rc != "" {
		opts.SetReadConcern(&readconcern.ReadConcern{Level: r.rc})
	}
	cur, err := r.db.Collection(collection, opts).Aggregate(ctx, pipeline)
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

// checkParsed runs template.CheckPipeline on the pipeline as the driver
// parsed it, written back as canonical Extended JSON: what the server
// would receive, not what the template's text seemed to say.
func checkParsed(pipeline bson.A) error {
	js, err := bson.MarshalExtJSON(bson.D{{Key: "p", Value: pipeline}}, true, false)
	if err != nil {
		return fmt.Errorf("pipeline: %w", err)
	}
	var wrapper struct {
		P json.RawMessage `json:"p"`
	}
	if err := json.Unmarshal(js, &wrapper); err != nil {
		return fmt.Errorf("pipeline: %w", err)
	}
	return template.CheckPipeline(wrapper.P)
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
