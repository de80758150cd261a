package ycsb

import (
	"reflect"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/workload"
)

// TestChooseClient checks which client a run takes for the connection
// string and the client asked for, and what it records, without a server.
func TestChooseClient(t *testing.T) {
	const uri = "mongodb://127.0.0.1:27017/?directConnection=true"
	tests := []struct {
		name, uri, asked string
		path             string
		warning          string // the start of the one warning, or none
	}{
		{"wire asked", uri, clientWire, clientWire, ""},
		{"default is wire", uri, "", clientWire, ""},
		{"driver asked", uri, clientDriver, clientDriver, ""},
		{"driver asked, no connection string", "", clientDriver, clientDriver, ""},
		{"no connection string", "", clientWire, clientDriver, "ycsb: no connection string"},
		{"option the wire client lacks", uri + "&compressors=zlib", clientWire, clientDriver, "ycsb: the wire client cannot use this connection string"},
	}
	for _, tt := range tests {
		c := chooseClient(tt.uri, tt.asked)
		if c.path != tt.path {
			t.Errorf("%s: path %s, want %s", tt.name, c.path, tt.path)
		}
		for _, loadedBefore := range []bool{false, true} {
			d := c.decided(loadedBefore)
			got, err := d.TestConfig()
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]any{"client": tt.path}
			if loadedBefore {
				want["loadedBefore"] = true
			}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s, loadedBefore %v: test_config %v, want %v", tt.name, loadedBefore, got, want)
			}
			checkWarning(t, tt.name, d, tt.warning)
		}
	}
}

func checkWarning(t *testing.T, name string, d workload.Decisions, want string) {
	t.Helper()
	switch {
	case want == "" && len(d.Warnings) != 0:
		t.Errorf("%s: warnings %q, want none", name, d.Warnings)
	case want != "" && (len(d.Warnings) != 1 || !strings.HasPrefix(d.Warnings[0], want) ||
		!strings.HasSuffix(d.Warnings[0], "; the driver runs the operations and the load")):
		t.Errorf("%s: warnings %q, want one starting %q", name, d.Warnings, want)
	}
}

func TestBatchCount(t *testing.T) {
	for _, tt := range []struct{ records, batch, want int64 }{
		{0, 100, 0}, {1, 100, 1}, {100, 100, 1}, {101, 100, 2}, {3001, 500, 7},
	} {
		if got := batchCount(tt.records, tt.batch); got != tt.want {
			t.Errorf("batchCount(%d, %d) = %d, want %d", tt.records, tt.batch, got, tt.want)
		}
	}
}
