package cli_test

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/server"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// diagnosedRun runs mongobench run with args, storing into a file of its
// own, and returns the stored document; the summary's last line must be
// the stored diagnosis's verdict.
func diagnosedRun(t *testing.T, args ...string) *result.Doc {
	t.Helper()
	file := filepath.Join(t.TempDir(), "results.jsonl")
	o := mb(t, append([]string{"run", "--results-file", file, "--no-report", "--database", testenv.DBName(t)}, args...)...)
	wantCode(t, o, 0)
	docs, err := store.NewFile(file).List(context.Background(), 1)
	if err != nil || len(docs) != 1 {
		t.Fatalf("stored: %v, %d documents\n%s", err, len(docs), o)
	}
	d := &docs[0]
	if d.Diagnosis == nil {
		t.Fatalf("stored document has no diagnosis\n%s", o)
	}
	lines := strings.Split(strings.TrimSpace(o.stdout), "\n")
	if last := lines[len(lines)-1]; last != d.Diagnosis.Line {
		t.Errorf("summary's last line %q, want the stored verdict %q", last, d.Diagnosis.Line)
	}
	t.Logf("%s\ncandidates:", d.Diagnosis.Line)
	for _, f := range d.Diagnosis.Candidates {
		t.Logf("  %s (saturated %v): %s", f.Rule, f.Saturated, f.Evidence)
	}
	return d
}

func wantLimit(t *testing.T, d *result.Doc, rule string) {
	t.Helper()
	if d.Diagnosis.Rule != rule {
		t.Errorf("limited by %q (rule %q), want rule %s: %s", d.Diagnosis.Limit, d.Diagnosis.Rule, rule, d.Diagnosis.Line)
	}
}

// TestDiagnosisServerPinnedToOneCPU: a server pinned to one CPU, driven
// by a closed loop of 16 workers, is CPU-bound; the diagnosis reads the
// CPU set from the server process's affinity. On a host whose other
// processes take that CPU from the server (a busy shared machine), the
// server cannot use its one core and the host's CPU is the limit: the
// diagnosis may say so, but only then.
func TestDiagnosisServerPinnedToOneCPU(t *testing.T) {
	h := testenv.Own(t, server.Options{CPUs: "0"})
	d := diagnosedRun(t, "--uri", h.URI, "--workload", "kv", "-p", "records=2000", "--threads", "16", "--duration", "4s")
	var serverCPU, hostCPU *result.Finding
	for i, f := range d.Diagnosis.Candidates {
		switch f.Rule {
		case "server-cpu":
			serverCPU = &d.Diagnosis.Candidates[i]
		case "host-cpu":
			hostCPU = &d.Diagnosis.Candidates[i]
		}
	}
	if serverCPU == nil {
		t.Fatalf("no server-cpu finding: %s", d.Diagnosis.Line)
	}
	if serverCPU.Limit == nil || *serverCPU.Limit != 1 || serverCPU.LimitFrom != "the server process's CPU set" {
		t.Errorf("server CPU judged against %s cores from %q, want 1 from the server process's CPU set", fmtOpt(serverCPU.Limit), serverCPU.LimitFrom)
	}
	crowdedOut := serverCPU.Share != nil && *serverCPU.Share < serverCPU.Threshold && hostCPU != nil && hostCPU.Saturated
	if d.Diagnosis.Rule != "server-cpu" && (d.Diagnosis.Rule != "host-cpu" || !crowdedOut) {
		t.Errorf("limited by %q (rule %q), want server-cpu (or host-cpu when other processes kept the server below its one core): %s",
			d.Diagnosis.Limit, d.Diagnosis.Rule, d.Diagnosis.Line)
	}
}

// TestDiagnosisClientOnOneCore: a client held to one core (GOMAXPROCS 1)
// whose core is also busy with other work of its process (a spinning
// goroutine, standing for a load generator doing more than sending) is
// client-bound at a rate the server keeps easily.
func TestDiagnosisClientOnOneCore(t *testing.T) {
	uri := testenv.URI(t)
	prev := runtime.GOMAXPROCS(1)
	defer runtime.GOMAXPROCS(prev)
	var stop atomic.Bool
	done := make(chan struct{})
	go func() {
		defer close(done)
		for n := 0; !stop.Load(); n++ {
			if n%1_000_000 == 0 {
				runtime.Gosched() // let the other goroutines have the core now and then
			}
		}
	}()
	d := diagnosedRun(t, "--uri", uri, "--workload", "kv", "-p", "records=2000", "--rate", "3000", "--threads", "256", "--duration", "4s")
	stop.Store(true)
	<-done
	if d.Client.Cores != 1 {
		t.Errorf("client cores %d, want 1 (GOMAXPROCS)", d.Client.Cores)
	}
	// The client must be among what saturated: on a busy machine the
	// host's CPU saturates as well and may be named first; both are true,
	// so the test does not judge their order.
	clientSaturated, clientBehind := false, false
	for _, f := range d.Diagnosis.Candidates {
		client := f.Rule == "client-cpu" || f.Rule == "client-schedule"
		clientSaturated = clientSaturated || (f.Saturated && client)
		clientBehind = clientBehind || (f.Rule == "client-schedule" && f.Share != nil && *f.Share >= 0.9)
	}
	t.Logf("validity %s", validityLine(d))
	switch r := d.Diagnosis.Rule; {
	case clientSaturated:
	case clientFlagged(d):
		// Other processes held the client's core as well: the run says
		// its client could not be trusted, whatever it names as the limit.
		t.Logf("the run judges its own client: %s", validityLine(d))
	case r == "host-cpu" && clientBehind:
		// The host's CPU saturated too, with the client's schedule
		// behind: on a shared machine the two are the same shortage.
		t.Logf("the host's CPU saturated with the client's schedule behind: %s", d.Diagnosis.Line)
	case r == "host-cpu" && othersTookHost(d):
		// The machine is shared: when other processes hold a good part
		// of its CPU, the client never gets its whole core, and the
		// host's CPU is what limited the run.
		t.Logf("other processes held much of the host's CPU, so the host, not the client's core, limited the run")
	default:
		t.Errorf("limited by %q (rule %q), want the client among the saturated: %s", d.Diagnosis.Limit, r, d.Diagnosis.Line)
	}
}

// clientFlagged reports whether the run's validity says its client
// starved or was imprecise.
func clientFlagged(d *result.Doc) bool {
	if d.Validity == nil {
		return false
	}
	for _, r := range d.Validity.Rules {
		if (r.Rule == "client-starved" || r.Rule == "client-imprecise" || r.Rule == "client-saturated") && (r.Outcome == result.Suspect || r.Outcome == result.Invalid) {
			return true
		}
	}
	return false
}

func validityLine(d *result.Doc) string {
	if d.Validity == nil {
		return "not judged"
	}
	line := d.Validity.State
	for _, r := range d.Validity.Rules {
		if r.Outcome != result.Valid {
			line += "; " + r.Rule + " " + r.Outcome + ": " + r.Evidence
		}
	}
	return line
}

// othersTookHost reports whether the host-cpu finding says processes
// other than the server and the client used a quarter of the host or
// more.
func othersTookHost(d *result.Doc) bool {
	for _, f := range d.Diagnosis.Candidates {
		if f.Rule != "host-cpu" {
			continue
		}
		_, rest, ok := strings.Cut(f.Evidence, "other processes ")
		var pct float64
		if ok {
			_, _ = fmt.Sscanf(rest, "%g", &pct)
		}
		return pct >= 25
	}
	return false
}

// TestDiagnosisHotDocument: transfers that all update one summary
// document conflict and retry; the diagnosis names write conflicts with
// the retries' causes.
func TestDiagnosisHotDocument(t *testing.T) {
	d := diagnosedRun(t, "--uri", testenv.URI(t), "--workload", "ledger", "-p", "accounts=100", "-p", "summaryBuckets=1", "--threads", "8", "--duration", "3s")
	wantLimit(t, d, "write-conflicts")
	if f := d.Diagnosis.Candidates[0]; !strings.Contains(f.Evidence, "WriteConflict") {
		t.Errorf("evidence %q names no retry cause", f.Evidence)
	}
}

// TestDiagnosisDiskWithSyncOnCommit: large inserts into a server that
// syncs every commit, judged against a stated disk ceiling. This
// machine's disk is shared and its ceiling unknown, so the ceiling stated
// (2MB/s) is one the run surely exceeds: the test shows the rule reads
// the device's figures and judges them against --disk-limit.
func TestDiagnosisDiskWithSyncOnCommit(t *testing.T) {
	testenv.Servers(t)
	// The embedded server (started by the command, syncing every commit
	// by default) is one whose data directory the run knows, so the
	// device's counters are read.
	t.Setenv("MONGOBENCH_SERVER_DIR", t.TempDir())
	wantCode(t, mb(t, "server", "start", "--small"), 0)
	t.Cleanup(func() { mb(t, "server", "stop") })
	d := diagnosedRun(t, "--workload", "insert", "-p", "docSize=64KB", "-p", "batchSize=16", "--threads", "4", "--duration", "4s", "--disk-limit", "2MB/s,100000iops")
	var disk *result.Finding
	for i, f := range d.Diagnosis.Candidates {
		if f.Rule == "disk-throughput" {
			disk = &d.Diagnosis.Candidates[i]
		}
	}
	if disk == nil || !disk.Saturated || disk.LimitFrom != "--disk-limit" {
		t.Fatalf("disk throughput not judged saturated against --disk-limit: %+v", disk)
	}
	if r := d.Diagnosis.Rule; r != "disk-throughput" && r != "server-cpu" {
		t.Errorf("limited by %q, want the disk (or the server's CPU, which precedes it)", d.Diagnosis.Limit)
	}
}

// fmtOpt is an optional figure as a test message shows it.
func fmtOpt(v *float64) string {
	if v == nil {
		return "no"
	}
	return fmt.Sprint(*v)
}
