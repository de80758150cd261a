package workload

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/spec"
)

// QueryDocs runs a query task's next query for group g (its shape, its
// options) and returns the documents, so tests can check what each shape
// returns.
func QueryDocs(ctx context.Context, task engine.Task, g int64) ([]bson.M, error) {
	t := task.(*queryTask)
	cur, err := t.coll.Find(ctx, t.buildFilter(g), t.opts)
	if err != nil {
		return nil, err
	}
	var out []bson.M
	err = cur.All(ctx, &out)
	return out, err
}

// QueryTaskWith builds a query task with parameters p over the key range
// run's setup chose, so tests can try several shapes over one setup.
func QueryTaskWith(run Run, p spec.Params) (engine.Task, error) {
	q := run.Tasks.(*queryRun)
	return (&queryRun{env: q.env, p: p, space: q.space}).NewTask(context.Background(), 0)
}
