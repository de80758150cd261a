package workload

import (
	"reflect"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/spec"
)

// TestQuerySizes checks the sizes a query run records in test_config and
// the warning when the key range is not what its name says, without a
// server.
func TestQuerySizes(t *testing.T) {
	l := newQueryLayout(8400, 400, 4) // 21 groups of 400 documents
	const kb = 1024
	tests := []struct {
		name      string
		cached    bool
		keyGroups int64
		cache     int64
		want      querySettings
		warning   string
	}{
		{"cached range fits", true, 4, 4 << 20, querySettings{
			CacheSizeBytes: 4 << 20, CacheSizeSource: "parameter", DatasetDocs: 8400, DatasetBytes: 8400 * kb, Groups: 21,
			KeyRangeGroups: 4, KeyRangeDocs: 1600, WorkingSetBytes: 1600 * kb, WorkingSetToCache: 0.390625, CacheRuleMet: true}, ""},
		{"cached range too big", true, 21, 4 << 20, querySettings{
			CacheSizeBytes: 4 << 20, CacheSizeSource: "parameter", DatasetDocs: 8400, DatasetBytes: 8400 * kb, Groups: 21,
			KeyRangeGroups: 21, KeyRangeDocs: 8400, WorkingSetBytes: 8400 * kb, WorkingSetToCache: 2.05078125}, "cached key range"},
		{"uncached dataset too small", false, 21, 8 << 20, querySettings{
			CacheSizeBytes: 8 << 20, CacheSizeSource: "parameter", DatasetDocs: 8400, DatasetBytes: 8400 * kb, Groups: 21,
			KeyRangeGroups: 21, KeyRangeDocs: 8400, WorkingSetBytes: 8400 * kb, WorkingSetToCache: 1.025390625}, "uncached key range"},
		{"uncached dataset twice the cache", false, 21, 4 << 20, querySettings{
			CacheSizeBytes: 4 << 20, CacheSizeSource: "parameter", DatasetDocs: 8400, DatasetBytes: 8400 * kb, Groups: 21,
			KeyRangeGroups: 21, KeyRangeDocs: 8400, WorkingSetBytes: 8400 * kb, WorkingSetToCache: 2.05078125, CacheRuleMet: true}, ""},
	}
	for _, tt := range tests {
		p := spec.Params{"docSize": spec.Size(kb), "cached": tt.cached}
		d := querySizes(p, querySpace{layout: l, keyGroups: tt.keyGroups}, tt.cache, "parameter", false)
		if got := d.Settings.(querySettings); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %+v\nwant %+v", tt.name, got, tt.want)
		}
		switch {
		case tt.warning == "" && len(d.Warnings) != 0:
			t.Errorf("%s: warnings %q, want none", tt.name, d.Warnings)
		case tt.warning != "" && (len(d.Warnings) != 1 || !strings.HasPrefix(d.Warnings[0], tt.warning)):
			t.Errorf("%s: warnings %q, want one starting %q", tt.name, d.Warnings, tt.warning)
		}
	}
}
