package spec

import (
	"strings"
	"testing"
)

func TestCheckDataDatabase(t *testing.T) {
	tests := []struct {
		name    string
		refused bool
	}{
		{"mongobench", true},
		{"MONGOBENCH", true},
		{"admin", true},
		{"Local", true},
		{"config", true},
		{"mongobench_data", false},
		{"mongobench2", false},
		{"results", false},
	}
	for _, tt := range tests {
		err := CheckDataDatabase(tt.name)
		if got := err != nil; got != tt.refused {
			t.Errorf("CheckDataDatabase(%q): refused %v, want %v (error %v)", tt.name, got, tt.refused, err)
			continue
		}
		if err == nil {
			continue
		}
		msg := err.Error()
		if strings.Contains(msg, "\n") || !strings.HasPrefix(msg, "--database: ") || !strings.Contains(msg, "reserved") {
			t.Errorf("CheckDataDatabase(%q) = %q, want one line naming --database and saying the name is reserved", tt.name, msg)
		}
	}
}

// The results database is among the reserved names, whatever it is
// called.
func TestResultsDatabaseReserved(t *testing.T) {
	if CheckDataDatabase(ResultsDatabase) == nil {
		t.Errorf("CheckDataDatabase(%q) = nil, want the results database refused", ResultsDatabase)
	}
}
