package workload

import (
	"reflect"
	"strings"
	"testing"
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
		{"wire asked", uri, ClientWire, ClientWire, ""},
		{"default is wire", uri, "", ClientWire, ""},
		{"timeoutMS is honoured by the wire client", uri + "&timeoutMS=500", ClientWire, ClientWire, ""},
		{"driver asked", uri, ClientDriver, ClientDriver, ""},
		{"driver asked, no connection string", "", ClientDriver, ClientDriver, ""},
		{"no connection string", "", ClientWire, ClientDriver, "kv: no connection string"},
		{"option the wire client lacks", uri + "&compressors=zlib", ClientWire, ClientDriver, "kv: the wire client cannot use this connection string"},
		{"unacknowledged writes", uri + "&w=0", ClientWire, ClientDriver, "kv: the wire client cannot use this connection string"},
	}
	for _, tt := range tests {
		c := ChooseClient(tt.uri, tt.asked)
		if c.Path != tt.path {
			t.Errorf("%s: path %s, want %s", tt.name, c.Path, tt.path)
		}
		d := c.Decided("kv")
		got, err := d.TestConfig()
		if err != nil {
			t.Fatal(err)
		}
		if want := map[string]any{"client": tt.path}; !reflect.DeepEqual(got, want) {
			t.Errorf("%s: test_config %v, want %v", tt.name, got, want)
		}
		switch {
		case tt.warning == "" && len(d.Warnings) != 0:
			t.Errorf("%s: warnings %q, want none", tt.name, d.Warnings)
		case tt.warning != "" && (len(d.Warnings) != 1 || !strings.HasPrefix(d.Warnings[0], tt.warning) ||
			!strings.HasSuffix(d.Warnings[0], "; the driver runs the operations")):
			t.Errorf("%s: warnings %q, want one starting %q", tt.name, d.Warnings, tt.warning)
		}
	}
	if got := ChooseClient(uri+"&timeoutMS=500", "").Opts.OpTimeout.String(); got != "500ms" {
		t.Errorf("timeoutMS=500: operation timeout %s, want 500ms", got)
	}
}
