package catalog

import (
	"fmt"
	"math"

	"github.com/mongobench/mongobench/internal/result"
)

const (
	kb = 1024
	mb = 1024 * kb
	gb = 1024 * mb
	// maxBatchBytes keeps an insertMany batch well inside MongoDB's 48 MB
	// message limit.
	maxBatchBytes = 8 * mb
)

// insertColumns are the variant fields the insert tests' terminal table shows.
var insertColumns = []string{"docSizeKB", "writeBatchSize", "idType", "nSecondaryIndexes", "totalDocsToInsert"}

// insertVariant builds the variant of an insert test: docs new documents
// of sizeKB, in batches, after preload documents.
func insertVariant(order int, sizeKB float64, docs, preload int64, batch, threads, indexes int, idType string) Variant {
	batch = min(batch, max(1, int(maxBatchBytes/(sizeKB*kb))))
	ops := int64(math.Ceil(float64(docs) / float64(batch)))
	return Variant{
		Order: order, Threads: threads, Ops: ops, DocsPerOp: int64(batch),
		Params: []string{
			fmt.Sprintf("docSize=%gKB", sizeKB), fmt.Sprintf("batchSize=%d", batch), "idType=" + idType,
			fmt.Sprintf("secondaryIndexes=%d", indexes), fmt.Sprintf("preload=%d", preload),
		},
		Values: result.Variant{
			Order: result.Ptr(order), DocSizeKB: result.Ptr(sizeKB), TotalDocsToInsert: result.Ptr(ops * int64(batch)),
			WriteBatchSize: result.Ptr(batch), IDType: result.Ptr(idType), NSecondaryIndexes: result.Ptr(indexes),
			NumberOfThreads: result.Ptr(threads),
		},
	}
}

var insertDocSize = Test{
	Name:     "insert_docsize",
	Workload: "insert", Measure: Ingest, Columns: insertColumns,
	Description: "Insert throughput by document size: 24 GB into an empty collection, _id index only",
	variants: func(s Scale) []Variant {
		var out []Variant
		for i, sizeKB := range []float64{1, 4, 32, 256, 2048} {
			docs := s.docs(24 * gb / (sizeKB * kb))
			out = append(out, insertVariant(i, sizeKB, docs, 0, 1000, s.threads(8), 0, "OBJECT_ID"))
		}
		return out
	},
}

var insertBatchSize = Test{
	Name:     "insert_batchsize",
	Workload: "insert", Measure: Ingest, Columns: insertColumns,
	Description: "Insert throughput by client write batch: 6.2 M × 4 KB, 48 threads",
	variants: func(s Scale) []Variant {
		var out []Variant
		for i, batch := range []int{1, 10, 100, 1000, 2000} {
			out = append(out, insertVariant(i, 4, s.docs(6.2e6), 0, batch, s.threads(48), 0, "OBJECT_ID"))
		}
		return out
	},
}

var insertIDType = Test{
	Name:     "insert_idtype",
	Workload: "insert", Measure: Ingest, Columns: insertColumns,
	Description: "Insert throughput by _id kind: preload 50 M × 1 KB, measure the next 50 M, batch 1000",
	variants: func(s Scale) []Variant {
		var out []Variant
		for i, id := range []string{"OBJECT_ID", "UUID", "BUSINESS_ID"} {
			out = append(out, insertVariant(i, 1, s.docs(50e6), s.docs(50e6), 1000, s.threads(8), 0, id))
		}
		return out
	},
}

var insertNIndexes = Test{
	Name:     "insert_nindexes",
	Workload: "insert", Measure: Ingest, Columns: insertColumns,
	Description: "Insert throughput by number of secondary indexes: preload 3 M × 4 KB, measure the next 3 M, batch 1000",
	variants: func(s Scale) []Variant {
		var out []Variant
		for i, n := range []int{0, 1, 2, 3, 4, 8, 16} {
			out = append(out, insertVariant(i, 4, s.docs(3e6), s.docs(3e6), 1000, s.threads(8), n, "OBJECT_ID"))
		}
		return out
	},
}
