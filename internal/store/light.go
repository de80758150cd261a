package store

import (
	"context"
	"fmt"
	"slices"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/result"
)

// A Selection names the runs a page of the browser reads, so that a
// page reads those runs only, never the whole history: runs of one of
// Labels (any when none), of Test (any when ""), whose variant has the
// key Variant ("plan": any when ""), equal to Value when Value is given.
type Selection struct {
	Labels  []string
	Test    string
	Variant string
	Value   string
	// Brief reads only what a run's label, test, workload and variant
	// say (a list of labels), not its results.
	Brief bool
	// Figures reads those and the run's schedule and operations: what
	// comparing runs figure by figure reads (significance.RunValues),
	// with its validity and its canary (which runs count, and the client
	// host's noise beside them).
	Figures bool
}

// Matches says whether s selects d.
func (s Selection) Matches(d *result.Doc) bool {
	if len(s.Labels) > 0 && !slices.Contains(s.Labels, d.Label) || s.Test != "" && d.TestName != s.Test {
		return false
	}
	if s.Variant == "" {
		return true
	}
	v, ok := d.Variant[s.Variant]
	return ok && v != nil && (s.Value == "" || v == s.Value)
}

func (s Selection) filter() bson.D {
	f := bson.D{}
	if len(s.Labels) > 0 {
		f = append(f, bson.E{Key: "label", Value: bson.D{{Key: "$in", Value: s.Labels}}})
	}
	if s.Test != "" {
		f = append(f, bson.E{Key: "testName", Value: s.Test})
	}
	if s.Variant != "" {
		var v any = bson.D{{Key: "$exists", Value: true}, {Key: "$ne", Value: nil}}
		if s.Value != "" {
			v = s.Value
		}
		f = append(f, bson.E{Key: "variant." + s.Variant, Value: v})
	}
	return f
}

// briefFields are what a Brief selection reads of a run.
var briefFields = []string{"runId", "start", "testName", "label", "partial", "group", "variant", "test_config.workload"}

// ListSelected reads the runs s selects, newest first, as ListLight
// does (without intervals and serverStatus documents); the server
// filters them.
func (m *Mongo) ListSelected(ctx context.Context, s Selection) ([]result.Doc, error) {
	proj := bson.D{{Key: "intervals", Value: 0}, {Key: "before_status", Value: 0}, {Key: "after_status", Value: 0}}
	if s.Brief || s.Figures {
		fields := briefFields
		if s.Figures {
			fields = append(slices.Clip(fields), "schedule", "ops", "validity", "canary")
		}
		proj = bson.D{}
		for _, f := range fields {
			proj = append(proj, bson.E{Key: f, Value: 1})
		}
	}
	opts := options.Find().SetSort(bson.D{{Key: "start", Value: -1}}).SetProjection(proj)
	cur, err := m.db.Collection(HistoryCollection).Find(ctx, s.filter(), opts)
	if err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	var rows []stored
	if err := cur.All(ctx, &rows); err != nil {
		return nil, fmt.Errorf("list runs: %w", err)
	}
	docs := make([]result.Doc, len(rows))
	for i := range rows {
		docs[i] = rows[i].doc()
	}
	return docs, nil
}

// ListSelected reads the runs s selects, newest first, as ListLight
// does: a results file is read whole.
func (f File) ListSelected(ctx context.Context, s Selection) ([]result.Doc, error) {
	docs, err := f.ListLight(ctx)
	if err != nil {
		return nil, err
	}
	return slices.DeleteFunc(docs, func(d result.Doc) bool { return !s.Matches(&d) }), nil
}
