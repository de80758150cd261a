package catalog

import (
	"github.com/mongobench/mongobench/internal/result"
)

// targetColumns are the variant fields the terminal table of a test that
// varies the target shows.
var targetColumns = []string{"label", "instance.atlasInstanceType", "instance.atlasIOPS", "instance.cost", "totalDocsToInsert"}

var insertIOPS = Test{
	Name:     "insert_iops",
	Workload: "insert", Measure: Ingest, Columns: targetColumns, VariesTarget: true,
	Description: "Insert throughput by the target's disk (type, size, IOPS): 30 M × 4 KB with 4 secondary indexes, batch 1000",
	variants: func(s Scale) []Variant {
		return []Variant{insertVariant(0, 4, s.docs(30e6), 0, 1000, s.threads(8), 4, "OBJECT_ID")}
	},
}

var insertInstanceSize = Test{
	Name:     "insert_instancesize",
	Workload: "insert", Measure: Ingest, Columns: targetColumns, VariesTarget: true,
	Description: "Insert throughput by the target instance: preload 3 M × 4 KB, 4 secondary indexes, measure 12 M more, batch 1000",
	variants: func(s Scale) []Variant {
		return []Variant{insertVariant(0, 4, s.docs(12e6), s.docs(3e6), 1000, s.threads(8), 4, "OBJECT_ID")}
	},
}

// VariantsOn returns the variants to run on the target at position pos of
// a list, described by instance (Instance's fields; empty when the target
// is not described). A test that varies the target runs its one variant
// there, with _id.order = pos; any other test runs all its variants.
// Every variant carries the description as its instance field.
func (t Test) VariantsOn(s Scale, pos int, instance result.Instance) []Variant {
	vs := t.Variants(s)
	if t.VariesTarget {
		vs = vs[:1]
		vs[0].Order = pos
		vs[0].Values.Order = result.Ptr(pos)
	}
	if len(instance.Fields()) == 0 {
		return vs
	}
	for i := range vs {
		in := instance
		vs[i].Values.Instance = &in
	}
	return vs
}
