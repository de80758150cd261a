package cli_test

import (
	"context"
	"math/rand/v2"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/merge"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// TestKilledClientLeavesALostRun kills a client with SIGKILL at a random
// moment of its measured phase, with the wire client and with the driver:
// the store holds the run registered, lost once its client has been
// silent long enough, with every interval and telemetry reading up to
// about a second before the kill, from which its result can be rebuilt.
func TestKilledClientLeavesALostRun(t *testing.T) {
	uri := testenv.URI(t)
	for _, path := range []string{"wire", "driver"} {
		t.Run(path, func(t *testing.T) {
			ctx := context.Background()
			label := "lost-" + path + "-" + testenv.DBName(t)
			c := startClient(t, "run", "--uri", uri, "--database", testenv.DBName(t), "--workload", "kv", "-p", "client="+path,
				"--rate", "200/s", "--duration", "10m", "--no-report", "--label", label)
			st := groupStore(t, uri)
			history := testenv.Client(t, uri).Database(store.DefaultDatabase).Collection(store.HistoryCollection)
			var reg struct {
				RunID string    `bson:"runId"`
				Start time.Time `bson:"start"`
			}
			deadline := time.Now().Add(60 * time.Second)
			for history.FindOne(ctx, bson.D{{Key: "label", Value: label}, {Key: "live.state", Value: result.StateRunning}}).Decode(&reg) != nil {
				if time.Now().After(deadline) {
					t.Fatalf("the run was not registered within 60 s\n%v", c)
				}
				time.Sleep(100 * time.Millisecond)
			}
			t.Cleanup(func() {
				_, _ = history.DeleteOne(context.Background(), bson.D{{Key: "_id", Value: reg.RunID}})
				_, _ = history.Database().Collection(store.IntervalsCollection).DeleteMany(context.Background(), bson.D{{Key: "run.id", Value: reg.RunID}})
				_, _ = history.Database().Collection(store.SummariesCollection).DeleteOne(context.Background(), bson.D{{Key: "_id", Value: reg.RunID}})
			})
			wait := time.Duration(3000+rand.IntN(4000)) * time.Millisecond
			time.Sleep(wait)
			killed := time.Now()
			if err := c.cmd.Process.Signal(syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			<-c.done
			time.Sleep(500 * time.Millisecond) // writes in flight land
			d, err := st.Get(ctx, reg.RunID)
			if err != nil {
				t.Fatal(err)
			}
			if d.Live == nil || d.State(killed) != result.StateRunning || d.State(killed.Add(result.LostAfter+time.Second)) != result.StateLost {
				t.Fatalf("killed run's live state %+v, want running at the kill and lost %v later", d.Live, result.LostAfter)
			}
			ivs, err := st.FullIntervals(ctx, reg.RunID)
			if err != nil {
				t.Fatal(err)
			}
			measured := killed.Sub(reg.Start)
			if n := len(ivs); n < int(measured.Seconds())-4 || n > int(measured.Seconds())+1 {
				t.Errorf("killed %.1f s into the measured phase (after %v): %d intervals stored, want all but the last few seconds (at most 60 s may be lost)", measured.Seconds(), wait, n)
			} else {
				t.Logf("killed %.1f s into the measured phase: %d intervals stored", measured.Seconds(), n)
			}
			readings, err := history.Database().Collection(store.IntervalsCollection).CountDocuments(ctx,
				bson.D{{Key: "run.id", Value: reg.RunID}, {Key: "run.kind", Value: "telemetry"}})
			if err != nil {
				t.Fatal(err)
			}
			if int(readings) < int(measured.Seconds())-4 {
				t.Errorf("killed %.1f s into the measured phase: %d telemetry readings stored, want one a second but the last few", measured.Seconds(), readings)
			}
			r, err := merge.Rebuild(d, ivs)
			if err != nil {
				t.Fatal(err)
			}
			var want int64
			for _, iv := range ivs {
				want += iv.Ops[0].Count
			}
			if got := r.Op("read"); got == nil || got.Count != want || got.Latency.Count != want {
				t.Errorf("rebuilt reads %+v, want %d, the intervals' sum, with its histogram", got, want)
			}
		})
	}
}
