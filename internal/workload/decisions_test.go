package workload_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/workload"
)

// TestDecisionsTestConfig checks that a workload's typed settings become
// the test_config fields their bson tags name, with the Go types the
// result document stores.
func TestDecisionsTestConfig(t *testing.T) {
	type settings struct {
		Bytes   int64   `bson:"cacheSizeBytes"`
		Source  string  `bson:"cacheSizeSource"`
		Ratio   float64 `bson:"workingSetToCache"`
		Reused  bool    `bson:"datasetReused"`
		Loaded  bool    `bson:"loadedBefore,omitempty"`
		skipped int
	}
	tests := []struct {
		name     string
		settings any
		want     map[string]any
	}{
		{"none", nil, nil},
		{"every type", settings{Bytes: 4 << 20, Source: "parameter", Ratio: 0.5, Reused: true, skipped: 1},
			map[string]any{"cacheSizeBytes": int64(4 << 20), "cacheSizeSource": "parameter", "workingSetToCache": 0.5, "datasetReused": true}},
		{"omitempty set", settings{Loaded: true},
			map[string]any{"cacheSizeBytes": int64(0), "cacheSizeSource": "", "workingSetToCache": 0.0, "datasetReused": false, "loadedBefore": true}},
	}
	for _, tt := range tests {
		got, err := workload.Decisions{Settings: tt.settings}.TestConfig()
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("%s: got %#v, want %#v", tt.name, got, tt.want)
		}
	}
	if _, err := (workload.Decisions{Settings: 42}).TestConfig(); err == nil {
		t.Error("settings that are not a document: got no error")
	}
}

// TestTasksFunc checks the adapter calls its function with the worker.
func TestTasksFunc(t *testing.T) {
	var asked []int
	var tasks workload.Tasks = workload.TasksFunc(func(_ context.Context, worker int) (engine.Task, error) {
		asked = append(asked, worker)
		return nil, nil
	})
	for w := range 3 {
		if _, err := tasks.NewTask(context.Background(), w); err != nil {
			t.Fatal(err)
		}
	}
	if !reflect.DeepEqual(asked, []int{0, 1, 2}) {
		t.Errorf("workers asked for: got %v, want [0 1 2]", asked)
	}
}
