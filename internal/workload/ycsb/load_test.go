package ycsb_test

import (
	"testing"

	"github.com/mongobench/mongobench/internal/workload/builtin"
	"github.com/mongobench/mongobench/internal/workload/ycsb"
)

func TestYCSBLoadBatches(t *testing.T) {
	w, err := builtin.YCSBLoads().Get("ycsb-a-load")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		assign           []string
		batches, records int64
	}{
		{[]string{"recordcount=3000", "batchSize=500"}, 6, 3000},
		{[]string{"recordcount=3001", "batchSize=500"}, 7, 3001},
		{[]string{"recordcount=1000", "insertstart=400", "batchSize=100"}, 6, 600},
		{[]string{"recordcount=1000", "insertstart=400", "insertcount=250", "batchSize=100"}, 3, 250},
	} {
		b, r, err := w.(ycsb.Load).LoadBatches(paramsOf(t, "ycsb-a", tc.assign...))
		if err != nil || b != tc.batches || r != tc.records {
			t.Errorf("%v: got %d batches of %d records (%v), want %d of %d", tc.assign, b, r, err, tc.batches, tc.records)
		}
	}
}
