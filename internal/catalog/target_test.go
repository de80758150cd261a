package catalog

import (
	"reflect"
	"slices"
	"testing"

	"github.com/mongobench/mongobench/internal/result"

	"github.com/mongobench/mongobench/internal/price"
	"github.com/mongobench/mongobench/internal/spec"
)

func TestTargetTestsReferenceSizes(t *testing.T) {
	tests := []struct {
		name    string
		docs    int64
		preload string
	}{
		{"insert_iops", 30_000_000, "preload=0"},
		{"insert_instancesize", 12_000_000, "preload=3000000"},
	}
	for _, tt := range tests {
		test, err := Find(tt.name)
		if err != nil {
			t.Fatal(err)
		}
		vs := test.Variants(1)
		if len(vs) != 1 || !test.VariesTarget {
			t.Fatalf("%s: %d variants, VariesTarget %v; want one variant that the target varies", tt.name, len(vs), test.VariesTarget)
		}
		v := vs[0]
		if got := v.Values.Fields()["totalDocsToInsert"]; got != tt.docs {
			t.Errorf("%s: totalDocsToInsert got %v want %d", tt.name, got, tt.docs)
		}
		if v.Values.Fields()["nSecondaryIndexes"] != 4 || v.Values.Fields()["docSizeKB"] != 4.0 || v.DocsPerOp != 1000 {
			t.Errorf("%s: indexes %v, docSizeKB %v, batch %d; want 4, 4 KB, 1000", tt.name, v.Values.Fields()["nSecondaryIndexes"], v.Values.Fields()["docSizeKB"], v.DocsPerOp)
		}
		if !slices.Contains(v.Params, tt.preload) || !slices.Contains(v.Params, "secondaryIndexes=4") {
			t.Errorf("%s: params %v, want %s and secondaryIndexes=4", tt.name, v.Params, tt.preload)
		}
	}
}

func TestVariantsOn(t *testing.T) {
	inst := result.Instance{AtlasInstanceType: "m6i.xlarge", Cost: result.Ptr(42.0)}
	iops, _ := Find("insert_iops")
	vs := iops.VariantsOn(DefaultScale, 2, inst)
	if len(vs) != 1 || vs[0].Order != 2 || vs[0].Values.Fields()["order"] != 2 {
		t.Fatalf("insert_iops on target 2: got %d variants, order %d / %v; want one with order 2", len(vs), vs[0].Order, vs[0].Values.Fields()["order"])
	}
	if got := vs[0].Values.Fields()["instance"]; !reflect.DeepEqual(got, inst.Fields()) {
		t.Errorf("instance: got %v want %v", got, inst)
	}
	nidx, _ := Find("insert_nindexes")
	vs = nidx.VariantsOn(DefaultScale, 1, inst)
	if len(vs) != 7 || vs[6].Order != 6 || vs[6].Values.Fields()["instance"] == nil {
		t.Errorf("insert_nindexes on target 1: got %d variants, last order %d, instance %v; want all 7 in their own order, described", len(vs), vs[6].Order, vs[6].Values.Fields()["instance"])
	}
	vs = iops.VariantsOn(DefaultScale, 0, result.Instance{})
	if _, has := vs[0].Values.Fields()["instance"]; has {
		t.Errorf("undescribed target: got instance %v, want none", vs[0].Values.Fields()["instance"])
	}
}

func TestInstance(t *testing.T) {
	tests := []struct {
		name   string
		target spec.Target
		want   map[string]any
	}{
		{"described uri", spec.Target{Label: "a", URI: "mongodb://h/",
			Instance: spec.Instance{Type: "m6i.xlarge", DiskType: "gp3", IOPS: 3000, DiskSizeGB: 100, VCPU: 4, RAMGB: 16},
			Price:    &price.Price{Amount: 694, Currency: "EUR", Period: price.PerMonth}},
			map[string]any{"atlasInstanceType": "m6i.xlarge", "atlasDiskType": "gp3", "atlasIOPS": int64(3000), "atlasDiskSizeGB": 100.0,
				"vCPU": int64(4), "ramGB": 16.0, "cost": 95.0685, "price": "694 EUR/month", "currency": "EUR"}},
		{"profile", spec.Target{Label: "p", Profile: &spec.Profile{CPUs: "0-1", CacheSize: 256 * spec.MB},
			Price: &price.Price{Amount: 0.1, Currency: "USD", Period: price.PerHour}},
			map[string]any{"vCPU": int64(2), "cpus": "0-1", "cacheSizeMB": int64(256), "cost": 10.0, "price": "0.1 USD/h", "currency": "USD"}},
		{"profile with vCPU given", spec.Target{Label: "p", Profile: &spec.Profile{CPUs: "0"}, Instance: spec.Instance{VCPU: 8}},
			map[string]any{"vCPU": int64(8), "cpus": "0"}},
		{"nothing known", spec.Target{Label: "a", URI: "mongodb://h/"}, map[string]any{}},
	}
	for _, tt := range tests {
		if got := tt.target.Described().Fields(); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: Described got %v\nwant %v", tt.name, got, tt.want)
		}
	}
}
