package workload

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/engine"
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
