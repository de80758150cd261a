package cli_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/server"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// A run against an embedded server that syncs every commit, during which
// a burst of writes hits the server's disk: the updates that wait behind
// it are the run's tail, and the diagnosis names the burst, with its
// evidence, in the summary and in the stored document (make demo's
// second 12, made to happen). The test judges properties that hold on a
// busy machine, not a rank among equally true causes.
func TestTailExplainedByDiskBurst(t *testing.T) {
	h := testenv.Own(t, server.Options{SyncOnCommit: true})
	uri := h.URI
	results := filepath.Join(t.TempDir(), "results.jsonl")
	done := make(chan outcome, 1)
	go func() {
		done <- mb(t, "run", "--uri", uri, "--workload", "kv", "--rate", "300/s", "--duration", "12s", "--warmup", "2s",
			"-p", "records=2000", "-p", "readPercent=50", "--results-file", results, "--no-report")
	}()
	// Seven seconds in (five into the measured phase), 512 MB written
	// and synced next to the server's data: the same device.
	time.Sleep(7 * time.Second)
	burst := filepath.Join(h.DataDir, "burst")
	f, err := os.Create(burst)
	if err != nil {
		t.Fatal(err)
	}
	block := make([]byte, 4<<20)
	for i := range block {
		block[i] = byte(i * 7)
	}
	for range 128 {
		if _, err := f.Write(block); err != nil {
			t.Fatal(err)
		}
	}
	if err := f.Sync(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(burst); err != nil {
		t.Fatal(err)
	}
	o := <-done
	wantCode(t, o, cli.ExitOK)
	b, err := os.ReadFile(results)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Diagnosis struct {
			Line string `json:"line"`
			Tail struct {
				Line   string `json:"line"`
				Causes []struct {
					Series    string  `json:"series"`
					Evidence  string  `json:"evidence"`
					TailShare float64 `json:"tailShare"`
					Lift      float64 `json:"lift"`
				} `json:"causes"`
				PerInterval []int64 `json:"perInterval"`
			} `json:"tail"`
		} `json:"diagnosis"`
		Validity struct {
			State string `json:"state"`
			Rules []struct {
				Rule, Outcome, Evidence string
			} `json:"rules"`
		} `json:"validity"`
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	tl := doc.Diagnosis.Tail
	t.Logf("tail per interval %v\n%s\n%s", tl.PerInterval, doc.Diagnosis.Line, tl.Line)
	// The burst is the data device's: its bytes written, or the I/Os
	// that carried them (the kernel spreads the bytes over the seconds
	// it flushes them in; the I/Os the fsync waits on may sit in fewer).
	disk := func(series string) bool {
		return strings.Contains(series, "diskWrite") || strings.Contains(series, "diskIops")
	}
	// Several series can hold the tail at once (the disk's bytes, its
	// I/Os, the iowait they cause, the client's send lag when the burst
	// stalls the whole host): the disk must be first by either measure
	// the diagnosis gives, its lift (how out of proportion to its time
	// the tail sits in its seconds, the diagnosis's own rank) or its tail
	// share, whichever of the equals is named first.
	topLift, topShare := 0.0, 0.0
	for _, c := range tl.Causes {
		topLift, topShare = max(topLift, c.Lift), max(topShare, c.TailShare)
	}
	found := false
	for _, c := range tl.Causes {
		found = found || (disk(c.Series) && (c.Lift == topLift || c.TailShare == topShare))
	}
	if !found {
		// On a busy machine the client's own stalls can hold the tail
		// instead of the burst: then the run must say it cannot be
		// trusted (its client starved or imprecise), never pass as valid.
		flagged := ""
		for _, r := range doc.Validity.Rules {
			if (r.Rule == "client-starved" || r.Rule == "client-imprecise") && r.Outcome != "valid" && r.Outcome != "not judged" {
				flagged = r.Rule + ": " + r.Evidence
			}
		}
		if flagged == "" || doc.Validity.State == "valid" {
			t.Fatalf("tail causes %+v: want the disk burst first by lift (%v) or by tail share (%v), or the run judged not valid for its client (validity %+v)", tl.Causes, topLift, topShare, doc.Validity)
		}
		t.Logf("the client's stalls held the tail, and the run says so (%s, %s): the burst cannot be judged", doc.Validity.State, flagged)
		return
	}
	writes := false
	for _, c := range tl.Causes {
		writes = writes || strings.Contains(c.Evidence, "with disk writes ") // "above" or "at or above" its bound
	}
	if !writes {
		t.Errorf("tail causes %+v: want the disk writes among them", tl.Causes)
	}
	if !strings.Contains(o.stdout, "p99 tail: "+tl.Causes[0].Evidence) {
		t.Errorf("summary lacks the tail's evidence %q:\n%s", tl.Causes[0].Evidence, o.stdout)
	}
}
