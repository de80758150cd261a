package cli_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// oneConnection is an application that sends 400 point finds, 10 ms
// apart (about 4 s), one after another on its one connection: replayed,
// each waits for the previous reply, so it cannot go faster than its
// round trips.
func oneConnection(t *testing.T, db string) func(addr string) {
	return func(addr string) {
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		client, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + addr + "/?directConnection=true&serverMonitoringMode=poll&appName=kneetest").SetMaxPoolSize(1))
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = client.Disconnect(ctx) }()
		coll := client.Database(db).Collection("orders")
		tick := time.NewTicker(10 * time.Millisecond)
		defer tick.Stop()
		for i := range 400 {
			<-tick.C
			if err := coll.FindOne(ctx, bson.D{{Key: "_id", Value: i}}).Err(); err != nil && err != mongo.ErrNoDocuments {
				t.Fatal(err)
			}
		}
	}
}

// TestSweepOverARecordingFindsItsKnee: a recording whose one connection
// sends its requests one after another, swept at ×1 and ×1000. At ×1 it
// keeps its recorded pace and holds (a stall of the busy machine delays
// its end by less than 5% of its 4 s); at ×1000 its target (about
// 100,000/s, 400 round trips in 4 ms) is beyond what one connection's
// round trips allow, so the step falls short of 95% of its target: the
// sweep's knee is ×1's rate, the highest that held.
func TestSweepOverARecordingFindsItsKnee(t *testing.T) {
	rec := recordThrough(t, oneConnection(t, testenv.DBName(t)))
	o := mb(t, "sweep", "--workload", rec, "--speed", "1,1000", "--database", testenv.DBName(t)+"_data", "--no-report")
	wantCode(t, o, cli.ExitOK)
	var held, failed int
	for _, line := range strings.Split(o.stdout, "\n") {
		switch {
		case strings.HasSuffix(line, "✅"):
			if failed > 0 {
				t.Errorf("a step held after one failed: %q\n%s", line, o)
			}
			held++
		case strings.Contains(line, "❌ achieved"):
			failed++
		}
	}
	if held != 1 || failed != 1 {
		t.Fatalf("want ×1 held and ×1000 failed short of its target, got %d held, %d failed:\n%s", held, failed, o)
	}
	for _, want := range []string{"step 1", "holds", "step 2", "fails: achieved"} {
		if !strings.Contains(o.stderr, want) {
			t.Errorf("stderr: no %q:\n%s", want, o)
		}
	}
}

// TestSweepOverARecordingAuto: --speed auto searches from the
// recording's own pace (×1) up by --rate-factor while steps hold; the
// same one-connection recording cannot go a thousand times as fast, so
// the search ends below ×1000 and the speeds it tried start at ×1 and
// rise, ×4 each step, until one failed.
func TestSweepOverARecordingAuto(t *testing.T) {
	rec := recordThrough(t, oneConnection(t, testenv.DBName(t)))
	o := mb(t, "sweep", "--workload", rec, "--speed", "auto", "--rate-factor", "4", "--database", testenv.DBName(t)+"_data", "--no-report", "--json")
	wantCode(t, o, cli.ExitOK)
	var docs []replayDoc
	if err := json.Unmarshal([]byte(o.stdout), &docs); err != nil {
		t.Fatalf("stdout is not a JSON array of runs: %v\n%s", err, o)
	}
	if len(docs) < 2 {
		t.Fatalf("%d steps, want the search to try at least ×1 and a faster one:\n%s", len(docs), o.stderr)
	}
	var speeds []float64
	for _, d := range docs {
		if d.Replay == nil {
			t.Fatalf("a step has no replay section")
		}
		speeds = append(speeds, d.Replay.Speed)
	}
	// The search rounds its rates (to whole operations per second), so a
	// step's speed is within 1% of the multiple it stands for.
	if s := speeds[0]; s < 0.99 || s > 1.01 {
		t.Errorf("speeds %v: the search starts at ×1", speeds)
	}
	if s := speeds[1]; s < 3.96 || s > 4.04 {
		t.Errorf("speeds %v: the second step is ×4 (--rate-factor 4)", speeds)
	}
	if m := slices.Max(speeds); m > 1000.01 {
		t.Errorf("speeds %v: the search went past ×1000", speeds)
	}
	if !strings.Contains(o.stderr, "fails") {
		t.Errorf("no step failed, though one connection cannot replay its recording ×1000:\n%s", o.stderr)
	}
}

// TestReplaySkipsGetMoresOfCursorsTheCandidateClosed: an aggregation
// read in batches of 10 over 60 documents (a find and five getMores,
// the last closing the cursor), recorded, then replayed onto an empty
// namespace (--map-ns): there the aggregation's first reply ends the
// cursor, so its getMores are never sent. They are skipped, not failed:
// no error, the run's skipped count equals the replay's cursors gone,
// and the schedule is kept (achieved within 5% of its target).
func TestReplaySkipsGetMoresOfCursorsTheCandidateClosed(t *testing.T) {
	uri := testenv.URI(t)
	c := connect(t, uri)
	src := testenv.DBName(t)
	dropAfter(t, c, src)
	ctx := context.Background()
	var docs []any
	for i := range 60 {
		docs = append(docs, bson.D{{Key: "_id", Value: i}})
	}
	if _, err := c.Database(src).Collection("orders").InsertMany(ctx, docs); err != nil {
		t.Fatal(err)
	}
	rec := recordThrough(t, func(addr string) {
		client, err := mongo.Connect(options.Client().ApplyURI("mongodb://" + addr + "/?directConnection=true&serverMonitoringMode=poll").SetMaxPoolSize(1))
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = client.Disconnect(ctx) }()
		for range 3 {
			cur, err := client.Database(src).Collection("orders").Aggregate(ctx, mongo.Pipeline{{{Key: "$sort", Value: bson.D{{Key: "_id", Value: 1}}}}},
				options.Aggregate().SetBatchSize(10))
			if err != nil {
				t.Fatal(err)
			}
			n := 0
			for cur.Next(ctx) {
				n++
			}
			if err := cur.Close(ctx); err != nil || n != 60 {
				t.Fatalf("read %d of 60 documents: %v", n, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	})
	d, o := replayJSON(t, rec, "--uri", uri, "--map-ns", src+".="+src+"_empty.", "--json", "--report-dir", "")
	if d.Replay.Mapped.CursorsGone == 0 {
		t.Fatalf("no getMore found its cursor closed on the empty candidate:\n%s", o.stderr)
	}
	if d.Schedule.Skipped != d.Replay.Mapped.CursorsGone || d.Schedule.FailedRate != 0 {
		t.Errorf("skipped %d, failed %.1f/s; want the %d getMores of closed cursors skipped and nothing failed",
			d.Schedule.Skipped, d.Schedule.FailedRate, d.Replay.Mapped.CursorsGone)
	}
	for _, op := range d.Ops {
		if op.Errors.Total > 0 {
			t.Errorf("%s: %d errors", op.Name, op.Errors.Total)
		}
	}
	// The skipped requests' slots were served: the achieved rate counts
	// them, the success rate does not.
	var done int64
	for _, op := range d.Ops {
		done += op.Count
	}
	if got, want := d.Schedule.AchievedRate/d.Schedule.SuccessRate, float64(done+d.Schedule.Skipped)/float64(done); got < 0.999*want || got > 1.001*want {
		t.Errorf("achieved %.1f/s over succeeded %.1f/s is %.3f, want (%d sent + %d skipped) / %d sent = %.3f",
			d.Schedule.AchievedRate, d.Schedule.SuccessRate, got, done, d.Schedule.Skipped, done, want)
	}
}
