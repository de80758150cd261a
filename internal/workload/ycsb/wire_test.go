package ycsb_test

import (
	"context"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/testsupport/testenv"
	"github.com/mongobench/mongobench/internal/workload"
)

// TestYCSBWireMatchesDriver loads and runs the same seeded operations
// (every operation type, projections and whole records) through the wire
// client and the driver, one worker each, and compares every stored
// record and the counts.
func TestYCSBWireMatchesDriver(t *testing.T) {
	db := ownedDB(t)
	ctx := context.Background()
	w := ycsbWorkload(t, "ycsb-a")
	stored := map[string][]bson.Raw{}
	counts := map[string]map[string]int64{}
	for _, client := range []string{"wire", "driver"} {
		p := ycsbParams(t, "ycsb-a", "recordcount=300", "loaders=1", "batchSize=70", "fieldlength=40",
			"readproportion=0.3", "updateproportion=0.2", "insertproportion=0.1", "scanproportion=0.2",
			"readmodifywriteproportion=0.2", "readallfields=false", "writeallfields=false",
			"maxscanlength=20", "table=t_"+client, "client="+client)
		env := workload.Env{DB: db, URI: testenv.URI(t), Seed: 11}
		run := prepare(t, w, env, p)
		task, err := run.Tasks.NewTask(context.Background(), 0)
		if err != nil {
			t.Fatal(err)
		}
		for range 600 {
			if _, err := task.Do(ctx); err != nil {
				t.Fatalf("%s: %v", client, err)
			}
		}
		counts[client] = task.(workload.Counter).Counts().Map()
		if got := effective(t, run)["client"]; got != client {
			t.Errorf("test_config.client: got %v, want %s", got, client)
		}
		cur, err := db.Collection("t_"+client).Find(ctx, bson.D{}, options.Find().SetSort(bson.D{{Key: "_id", Value: 1}}))
		if err != nil {
			t.Fatal(err)
		}
		for cur.Next(ctx) {
			stored[client] = append(stored[client], append(bson.Raw(nil), cur.Current...))
		}
		if c, ok := task.(interface{ Close() error }); ok {
			_ = c.Close()
		}
	}
	if len(stored["wire"]) != len(stored["driver"]) || len(stored["wire"]) <= 300 {
		t.Fatalf("records: wire %d, driver %d; want the same, more than the 300 loaded", len(stored["wire"]), len(stored["driver"]))
	}
	for i, d := range stored["driver"] {
		if string(d) != string(stored["wire"][i]) {
			t.Errorf("record %d: wire %v, driver %v", i, stored["wire"][i], d)
			break
		}
	}
	if counts["wire"]["scanned"] == 0 || counts["wire"]["scanned"] != counts["driver"]["scanned"] || counts["wire"]["notFound"] != counts["driver"]["notFound"] {
		t.Errorf("counts: wire %v, driver %v; want the same, scans returning records", counts["wire"], counts["driver"])
	}
}

// TestYCSBClientFallsBack checks that a connection string the wire client
// cannot honour runs the driver and says so.
func TestYCSBClientFallsBack(t *testing.T) {
	db := ownedDB(t)
	w := ycsbWorkload(t, "ycsb-c")
	p := ycsbParams(t, "ycsb-c", "recordcount=10")
	env := workload.Env{DB: db, URI: testenv.URI(t) + "&compressors=zlib", Seed: 1}
	run := prepare(t, w, env, p)
	if got := effective(t, run)["client"]; got != "driver" {
		t.Errorf("test_config.client: got %v, want driver", got)
	}
	if ws := run.Decided.Warnings; len(ws) != 1 {
		t.Errorf("warnings: got %q, want one naming the unsupported option", ws)
	}
}
