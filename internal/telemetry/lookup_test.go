package telemetry

import (
	"fmt"
	"testing"
)

func TestLookup(t *testing.T) {
	doc := map[string]any{
		"opcounters": map[string]any{"insert": int64(7), "query": 3.5},
		"wiredTiger": map[string]any{
			"cache": map[string]any{
				"tracked dirty bytes in the cache": int64(4096),
				"bytes currently in the cache":     int64(8192),
			},
			"block-manager": map[string]any{"bytes written": int64(12)},
		},
		"a.b":      map[string]any{"c": int64(1)},
		"a":        map[string]any{"b": map[string]any{"c": int64(2)}, "b.d": int64(3)},
		"x":        map[string]any{"y.z": map[string]any{"w": int64(4)}},
		"flag":     true,
		"name":     "mongod",
		"i32":      int32(9),
		"nested":   map[string]any{"list": []any{int64(1)}},
		"dot.last": int64(5),
	}
	tests := []struct {
		path string
		want float64
		ok   bool
	}{
		{"opcounters.insert", 7, true},
		{"opcounters.query", 3.5, true},
		{"wiredTiger.cache.tracked dirty bytes in the cache", 4096, true},
		{"wiredTiger.cache.bytes currently in the cache", 8192, true},
		{"wiredTiger.block-manager.bytes written", 12, true},
		{"a.b.c", 1, true}, // the longest key "a.b" wins over "a" then "b"
		{"a.b.d", 3, true}, // "a.b" has no d: backtrack to "a", then key "b.d"
		{"x.y.z.w", 4, true},
		{"dot.last", 5, true},
		{"flag", 1, true},
		{"i32", 9, true},
		{"opcounters.delete", 0, false},
		{"opLatencies.reads.latency", 0, false},
		{"wiredTiger.cache.missing key", 0, false},
		{"name", 0, false},
		{"name.sub", 0, false},
		{"nested.list", 0, false},
		{"", 0, false},
	}
	for _, tt := range tests {
		got, ok := Lookup(doc, tt.path)
		if got != tt.want || ok != tt.ok {
			t.Errorf("Lookup(%q) = %v, %v; want %v, %v", tt.path, got, ok, tt.want, tt.ok)
		}
	}
}

func TestLookupNilDoc(t *testing.T) {
	if got, ok := Lookup(nil, "opcounters.insert"); ok {
		t.Errorf("Lookup(nil) = %v, true; want absent", got)
	}
}

func TestLookupFixtures(t *testing.T) {
	mongod := loadStatus(t, "mongod-after.json").Doc
	secantus := loadStatus(t, "secantus-after.json").Doc
	tests := []struct {
		name string
		doc  map[string]any
		path string
		want float64
		ok   bool
	}{
		{"mongod", mongod, "wiredTiger.cache.tracked dirty bytes in the cache", 83886080, true},
		{"mongod", mongod, "wiredTiger.block-manager.bytes written", 88521945088, true},
		{"mongod", mongod, "wiredTiger.transaction.transaction checkpoint currently running", 1, true},
		{"mongod", mongod, "metrics.operation.writeConflicts", 1532, true},
		{"mongod", mongod, "network.physicalBytesOut", 20132574455, true},
		{"mongod", mongod, "opLatencies.writes.ops", 8861220, true},
		{"secantus", secantus, "opcounters.query", 200, true},
		{"secantus", secantus, "connections.current", 3, true},
		{"secantus", secantus, "network.bytesIn", 299234, true},
		{"secantus", secantus, "wiredTiger.cache.tracked dirty bytes in the cache", 0, false},
		{"secantus", secantus, "opLatencies.reads.latency", 0, false},
		{"secantus", secantus, "metrics.operation.writeConflicts", 0, false},
	}
	for _, tt := range tests {
		got, ok := Lookup(tt.doc, tt.path)
		if got != tt.want || ok != tt.ok {
			t.Errorf("%s: Lookup(%q) = %v, %v; want %v, %v", tt.name, tt.path, got, ok, tt.want, tt.ok)
		}
	}
}

func ExampleLookup() {
	doc := map[string]any{"wiredTiger": map[string]any{
		"cache": map[string]any{"tracked dirty bytes in the cache": int64(4096)},
	}}
	v, ok := Lookup(doc, "wiredTiger.cache.tracked dirty bytes in the cache")
	fmt.Println(v, ok)
	_, ok = Lookup(doc, "opLatencies.reads.latency")
	fmt.Println(ok)
	// Output:
	// 4096 true
	// false
}
