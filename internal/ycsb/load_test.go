package ycsb_test

import (
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/ycsb"
)

func TestLoadBatches(t *testing.T) {
	for _, tc := range []struct {
		params           map[string]any
		batch            int64
		batches, records int64
	}{
		{map[string]any{"recordcount": int64(3000)}, 500, 6, 3000},
		{map[string]any{"recordcount": int64(3001)}, 500, 7, 3001},
		{map[string]any{"recordcount": int64(1000), "insertstart": int64(400)}, 100, 6, 600},
		{map[string]any{"recordcount": int64(1000), "insertstart": int64(400), "insertcount": int64(250)}, 100, 3, 250},
		{map[string]any{"recordcount": int64(10), "batchSize": int64(4), "loaders": int64(2)}, 4, 3, 10},
	} {
		p, err := ycsb.FromParams("ycsb-a", tc.params)
		if err != nil {
			t.Fatalf("%v: %v", tc.params, err)
		}
		if b, r := p.LoadBatches(tc.batch); b != tc.batches || r != tc.records {
			t.Errorf("%v by %d: got %d batches of %d records, want %d of %d", tc.params, tc.batch, b, r, tc.batches, tc.records)
		}
	}
}

func TestFromParamsErrors(t *testing.T) {
	for _, tc := range []struct {
		preset string
		params map[string]any
		want   string
	}{
		{"ycsb-z", nil, `unknown YCSB workload "ycsb-z"`},
		{"ycsb-a", map[string]any{"recordcount": int64(10), "insertstart": int64(10)}, "no keys to operate on"},
		{"ycsb-a", map[string]any{"recordcount": 10}, "unexpected int"},
		{"ycsb-a", map[string]any{"requestdistribution": "pareto"}, "requestdistribution"},
	} {
		_, err := ycsb.FromParams(tc.preset, tc.params)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s %v: got %v, want an error containing %q", tc.preset, tc.params, err, tc.want)
		}
	}
}

func TestFromParamsPreset(t *testing.T) {
	p, err := ycsb.FromParams("b", map[string]any{"fieldcount": int64(3), "readallfields": false, "table": "t"})
	if err != nil {
		t.Fatal(err)
	}
	if p.ReadProportion != 0.95 || p.FieldCount != 3 || p.ReadAllFields || p.Table != "t" {
		t.Errorf("got %+v, want workload b with fieldcount 3, readallfields false, table t", p)
	}
}
