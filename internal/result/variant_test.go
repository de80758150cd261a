package result_test

import (
	"reflect"
	"testing"

	"github.com/mongobench/mongobench/internal/result"
)

func TestVariantFieldsAndBack(t *testing.T) {
	v := result.Variant{
		Sweep: result.Ptr("s1"), SweepStep: result.Ptr(2), Repetition: result.Ptr(0),
		Stage: result.Ptr(""), DocSizeKB: result.Ptr(4.0), IndexUpdate: result.Ptr(false),
		Instance: &result.Instance{AtlasInstanceType: "M40", AtlasIOPS: 3000, Cost: result.Ptr(12.5)},
	}
	got := v.Fields()
	want := map[string]any{
		"sweep": "s1", "sweepStep": 2, "repetition": 0, "stage": "", "docSizeKB": 4.0, "indexUpdate": false,
		"instance": map[string]any{"atlasInstanceType": "M40", "atlasIOPS": int64(3000), "cost": 12.5},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Fields:\n got %v\nwant %v", got, want)
	}
	// Read back as stored: numbers may come back as other numeric types.
	stored := map[string]any{
		"sweep": "s1", "sweepStep": int32(2), "repetition": int64(0), "stage": "", "docSizeKB": 4.0, "indexUpdate": false,
		"instance": map[string]any{"atlasInstanceType": "M40", "atlasIOPS": int32(3000), "cost": 12.5},
		"records":  int64(1000), // a workload parameter: not the study's
	}
	back := result.VariantOf(&result.Doc{Variant: stored})
	if !reflect.DeepEqual(back.Fields(), want) {
		t.Fatalf("VariantOf(...).Fields():\n got %v\nwant %v", back.Fields(), want)
	}
}

func TestVariantOverKeepsParameters(t *testing.T) {
	base := map[string]any{"records": int64(10), "numberOfThreads": 8}
	got := result.Variant{Phase: result.Ptr("load")}.Over(base)
	want := map[string]any{"records": int64(10), "numberOfThreads": 8, "phase": "load"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if _, ok := base["phase"]; ok {
		t.Fatal("Over changed its base")
	}
}

func TestCountsAddSub(t *testing.T) {
	var sum result.Counts
	sum.Add(result.Counts{Txns: result.Ptr(int64(3)), Retries: result.Ptr(int64(1))})
	sum.Add(result.Counts{Txns: result.Ptr(int64(4))})
	sum.Sub(result.Counts{Txns: result.Ptr(int64(2)), Docs: result.Ptr(int64(9))})
	if sum.Txns == nil || *sum.Txns != 5 {
		t.Errorf("txns = %v, want 5", sum.Txns)
	}
	if sum.Retries == nil || *sum.Retries != 1 {
		t.Errorf("retries = %v, want 1", sum.Retries)
	}
	if sum.Docs != nil {
		t.Errorf("docs = %v, want absent: no task counted it", *sum.Docs)
	}
}

func TestInstanceOverDetected(t *testing.T) {
	rot := true
	detected := result.Instance{AtlasInstanceType: "embedded-secantus", AtlasDiskType: "local rotational disk",
		AtlasDiskSizeGB: 100, VCPU: 2, RAMGB: 23.5, CPUModel: "Xeon", Device: "vda", Filesystem: "ext4", Rotational: &rot}
	given := result.Instance{AtlasInstanceType: "m6i.large", AtlasIOPS: 3000, VCPU: 1, Cost: result.Ptr(10.0)}
	want := map[string]any{"atlasInstanceType": "m6i.large", "atlasDiskType": "local rotational disk", "atlasIOPS": int64(3000),
		"atlasDiskSizeGB": 100.0, "vCPU": int64(1), "ramGB": 23.5, "cpuModel": "Xeon", "device": "vda", "filesystem": "ext4",
		"rotational": true, "cost": 10.0}
	if got := given.Over(detected).Fields(); !reflect.DeepEqual(got, want) {
		t.Errorf("got %v\nwant %v", got, want)
	}
}
