package wire_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/mongobench/mongobench/internal/testsupport/testenv"
	"github.com/mongobench/mongobench/internal/wire"
)

// TestCommands inserts 150 documents with InsertMany and reads them back
// with the commands every workload sends: a find without a limit reads
// its first batch and the rest with getMore; one with a limit stops
// there; FindOne finds a document by its filter, or says none matched.
func TestCommands(t *testing.T) {
	c := dial(t)
	db := testenv.DBName(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	defer func() {
		_, _ = command(t, c, db, wire.NoRetry, func(dst []byte) []byte { return bsoncore.AppendInt32Element(dst, "dropDatabase", 1) })
	}()
	var i int32
	err := c.InsertMany(ctx, db, "docs", 150, true, func(dst []byte) []byte {
		idx, dst := bsoncore.AppendDocumentStart(dst)
		dst = bsoncore.AppendInt32Element(dst, "_id", i)
		dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
		i++
		return dst
	})
	if err != nil {
		t.Fatal(err)
	}
	all := func(dst []byte) []byte {
		return bsoncore.AppendDocumentElement(dst, "filter", bsoncore.NewDocumentBuilder().Build())
	}
	batches := 0
	n, err := c.Find(ctx, db, "docs", 0, all, func(bsoncore.Array) { batches++ })
	if err != nil || n != 150 || batches < 2 {
		t.Errorf("find: %d documents in %d batches (%v), want 150 in at least 2 (a getMore)", n, batches, err)
	}
	if n, err := c.Find(ctx, db, "docs", 40, all, nil); err != nil || n != 40 {
		t.Errorf("find with limit 40: %d documents (%v)", n, err)
	}
	byID := func(id int32) func([]byte) []byte {
		return func(dst []byte) []byte {
			return bsoncore.AppendDocumentElement(dst, "filter", bsoncore.NewDocumentBuilder().AppendInt32("_id", id).Build())
		}
	}
	doc, err := c.FindOne(ctx, db, "docs", byID(7))
	if v, ok := doc.Lookup("_id").Int32OK(); err != nil || !ok || v != 7 {
		t.Errorf("find one _id 7: %v (%v)", doc, err)
	}
	if _, err := c.FindOne(ctx, db, "docs", byID(1000)); !errors.Is(err, wire.ErrNoDocument) {
		t.Errorf("find one missing: %v, want ErrNoDocument", err)
	}
}
