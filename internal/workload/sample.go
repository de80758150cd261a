package workload

import (
	"context"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

// maxSample bounds the documents Sample reads.
const maxSample = 100_000

// Sample reads up to n documents of a collection, as `workload infer`
// models them: a $sample stage, which the server answers with documents
// at random, and a count of the collection's documents from its
// metadata. It only reads: no command it sends writes, creates or
// drops, in that database or any other.
func Sample(ctx context.Context, c *mongo.Client, db, coll string, n int) (docs [][]byte, count int64, err error) {
	if n < 1 || n > maxSample {
		return nil, 0, fmt.Errorf("a sample of %d documents: want from 1 to %d", n, maxSample)
	}
	names, err := c.Database(db).ListCollectionNames(ctx, bson.D{{Key: "name", Value: coll}})
	if err != nil {
		return nil, 0, fmt.Errorf("sample %s.%s: %w", db, coll, err)
	}
	if len(names) == 0 {
		return nil, 0, fmt.Errorf("sample %s.%s: no such collection", db, coll)
	}
	col := c.Database(db).Collection(coll)
	count, err = col.EstimatedDocumentCount(ctx)
	if err != nil {
		return nil, 0, fmt.Errorf("count %s.%s: %w", db, coll, err)
	}
	cur, err := col.Aggregate(ctx, mongo.Pipeline{{{Key: "$sample", Value: bson.D{{Key: "size", Value: n}}}}}, options.Aggregate().SetBatchSize(1000))
	if err != nil {
		return nil, 0, fmt.Errorf("sample %s.%s: %w", db, coll, err)
	}
	defer func() { _ = cur.Close(context.WithoutCancel(ctx)) }()
	for cur.Next(ctx) {
		docs = append(docs, append([]byte(nil), cur.Current...))
	}
	if err := cur.Err(); err != nil {
		return nil, 0, fmt.Errorf("sample %s.%s: %w", db, coll, err)
	}
	return docs, count, nil
}
