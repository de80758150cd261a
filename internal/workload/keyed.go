package workload

import (
	"context"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"

	"github.com/mongobench/mongobench/internal/datagen"
)

// keyedDocs makes the documents of the update workloads (hotdoc,
// updateapi): {_id: key, count, ix: key, payload: binary}, of a given
// total BSON size. count is the field updates $inc; ix is the field a
// secondary index may cover. Building one allocates nothing.
type keyedDocs struct {
	payload []byte
	fill    int
}

// keyedMinSize is the BSON size of a keyed document with an empty payload.
var keyedMinSize = len(appendKeyed(nil, 0, 0, nil))

func newKeyedDocs(size int64, seed int64) keyedDocs {
	fill := max(0, int(size)-keyedMinSize)
	return keyedDocs{payload: datagen.Payload(fill+4096, uint64(seed)), fill: fill}
}

// append appends the document of key with the given count.
func (k keyedDocs) append(dst []byte, key, count int64) []byte {
	return appendKeyed(dst, key, count, k.payloadOf(key))
}

// payloadOf returns the payload bytes of key's document.
func (k keyedDocs) payloadOf(key int64) []byte {
	off := int(uint64(key) * 61 % 4096)
	return k.payload[off : off+k.fill]
}

func appendKeyed(dst []byte, key, count int64, payload []byte) []byte {
	idx, dst := bsoncore.AppendDocumentStart(dst)
	dst = bsoncore.AppendInt64Element(dst, "_id", key)
	dst = bsoncore.AppendInt64Element(dst, "count", count)
	dst = bsoncore.AppendInt64Element(dst, "ix", key)
	dst = bsoncore.AppendBinaryElement(dst, "payload", 0, payload)
	dst, _ = bsoncore.AppendDocumentEnd(dst, idx)
	return dst
}

// preload inserts the documents of keys [0, total) with the parallel
// loader.
func (k keyedDocs) preload(ctx context.Context, env Env, coll *mongo.Collection, total, batch int64, loaders int) error {
	l := &Loader{Coll: coll, Total: total, Batch: batch, Build: func(dst []byte, key int64) []byte {
		return k.append(dst, key, 0)
	}}
	return l.Run(ctx, loaders, func(done int64) { env.ReportProgress("preload", done, total) })
}
