package store

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"regexp"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/result"
)

// stored is a result document as written: the _id in front (the test and
// variant in the results collection, the run id in the history), the
// test and variant again as testId, then the document's own fields.
type stored struct {
	ID         any    `bson:"_id"`
	TestID     bson.D `bson:"testId"`
	result.Doc `bson:",inline"`
}

// latest is d as its results-collection row.
func latest(d *result.Doc) stored {
	return stored{ID: toD(d.ID), TestID: toD(d.ID), Doc: *d}
}

// history is d as its history row.
func history(d *result.Doc) stored {
	return stored{ID: d.RunID, TestID: toD(d.ID), Doc: *d}
}

// toD converts an _id to BSON. A map inside it (such as instance)
// becomes a document with its keys in name order: MongoDB compares
// embedded documents key by key, so a re-run must write the same order
// to replace its row.
func toD(o result.Ordered) bson.D {
	d := make(bson.D, len(o))
	for i, kv := range o {
		d[i] = bson.E{Key: kv.Key, Value: sortedMaps(kv.Value)}
	}
	return d
}

// sortedMaps returns v with every map[string]any in it, at any depth, as
// a document whose keys are in name order.
func sortedMaps(v any) any {
	m, ok := v.(map[string]any)
	if !ok {
		return v
	}
	d := make(bson.D, 0, len(m))
	for _, k := range slices.Sorted(maps.Keys(m)) {
		d = append(d, bson.E{Key: k, Value: sortedMaps(m[k])})
	}
	return d
}

// doc returns the result with its test and variant id restored, and the
// embedded documents of its _id, variant, test_config, bench_config and
// testResults as plain Go maps and slices (testResults is typed), as the pure packages read them.
func (s stored) doc() result.Doc {
	d := s.Doc
	d.ID = nil
	for _, e := range s.TestID {
		d.ID = append(d.ID, result.KV{Key: e.Key, Value: plain(e.Value)})
	}
	for _, m := range []map[string]any{d.Variant, d.TestConfig, d.BenchConfig} {
		for k, v := range m {
			m[k] = plain(v)
		}
	}
	return d
}

func quoteRegex(s string) string { return regexp.QuoteMeta(s) }

// JSON renders d as one relaxed Extended JSON document, as stored in the
// results collection.
func JSON(d *result.Doc) ([]byte, error) {
	b, err := bson.MarshalExtJSON(latest(d), false, false)
	if err != nil {
		return nil, fmt.Errorf("encode run %s as JSON: %w", d.RunID, err)
	}
	return b, nil
}

// WriteJSON writes docs to w as one indented JSON array of their JSON
// documents.
func WriteJSON(w io.Writer, docs []result.Doc) error {
	out := make([]json.RawMessage, 0, len(docs))
	for i := range docs {
		b, err := JSON(&docs[i])
		if err != nil {
			return err
		}
		out = append(out, b)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
