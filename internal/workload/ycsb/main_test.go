package ycsb_test

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
	"github.com/mongobench/mongobench/internal/workload"
	"github.com/mongobench/mongobench/internal/workload/builtin"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// ownedDB returns a fresh database the tool has claimed, dropped when
// the test ends.
func ownedDB(t *testing.T) *mongo.Database {
	t.Helper()
	db := testenv.Client(t, testenv.URI(t)).Database(testenv.DBName(t))
	t.Cleanup(func() { _ = workload.DropOwned(context.Background(), db) })
	if err := workload.Claim(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	return db
}

// paramsOf returns a built-in workload's validated parameters with the
// given -p assignments.
func paramsOf(t *testing.T, name string, assignments ...string) spec.Params {
	t.Helper()
	reg := builtin.Registry()
	sc := &spec.Scenario{Workload: name}
	for _, a := range assignments {
		if err := sc.SetParam(reg, a); err != nil {
			t.Fatal(err)
		}
	}
	if err := sc.Validate(reg); err != nil {
		t.Fatal(err)
	}
	return sc.Params
}

// prepare prepares a run of w.
func prepare(t *testing.T, w workload.Workload, env workload.Env, p spec.Params) workload.Run {
	t.Helper()
	run, err := w.Prepare(context.Background(), env, p)
	if err != nil {
		t.Fatal(err)
	}
	return run
}

// effective returns the test_config fields run's setup decided.
func effective(t *testing.T, run workload.Run) map[string]any {
	t.Helper()
	e, err := run.Decided.TestConfig()
	if err != nil {
		t.Fatal(err)
	}
	return e
}
