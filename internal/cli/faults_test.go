package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/server"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/testsupport/faultproxy"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// Fault tests: runs in open and closed loop, over the driver (kv) and
// the lean wire client (ycsb-b), through a fault proxy (a black hole, reset
// connections, added latency) and against a server frozen or killed and
// restarted. Each run must end within its duration plus faultGrace, exit
// as documented (0: the run completed; its errors are part of its
// result), store its result, count its errors by class in the intervals
// (the phase's errors are the intervals' sum, none unclassified), show the
// fault, and not call itself client-bound.

const (
	faultRun   = 6 * time.Second // measured phase
	faultAt    = time.Second     // after the preload has put every record in
	faultGrace = 15 * time.Second
	records    = 500
)

// loads are the two paths and two loops each fault is tried with.
var loads = []struct {
	name string
	coll string // the collection the preload fills
	args []string
}{
	{"kv driver open", "kv", []string{"--workload", "kv", "--rate", "200/s", "-p", "records=500"}},
	{"kv driver closed", "kv", []string{"--workload", "kv", "--threads", "4", "-p", "records=500"}},
	{"ycsb-b wire open", "usertable", []string{"--workload", "ycsb-b", "--rate", "200/s", "-p", "recordcount=500", "-p", "client=wire"}},
	{"ycsb-b wire closed", "usertable", []string{"--workload", "ycsb-b", "--threads", "4", "-p", "recordcount=500", "-p", "client=wire"}},
}

type faultOutcome struct {
	code   int
	took   time.Duration
	stderr string
	doc    *result.Doc
}

// runThrough runs one load against uri, calling fault faultAt after the
// preload has put every record into coll (watched over direct, a URI
// without the fault), and returns what it did.
func runThrough(t *testing.T, uri, direct, coll string, load []string, fault func()) faultOutcome {
	t.Helper()
	file := filepath.Join(t.TempDir(), "results.jsonl")
	db := testenv.DBName(t)
	t.Cleanup(func() {
		var o bytes.Buffer
		cli.Main(context.Background(), []string{"clean", "--uri", uri, "--database", db}, &o, &o)
	})
	args := append([]string{"run", "--uri", uri, "--database", db, "--duration", faultRun.String(),
		"--results-file", file, "--no-report"}, load...)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	watch := testenv.Client(t, direct)
	go func() {
		// the measured phase has begun once the preload is in and reads flow
		for ctx.Err() == nil {
			if n, err := watch.Database(db).Collection(coll).EstimatedDocumentCount(ctx); err == nil && n >= records {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		base := queries(ctx, watch)
		for ctx.Err() == nil && queries(ctx, watch) < base+20 {
			time.Sleep(50 * time.Millisecond)
		}
		select {
		case <-ctx.Done():
		case <-time.After(faultAt):
			fault()
		}
	}()
	var out, errOut bytes.Buffer
	start := time.Now()
	code := cli.Main(ctx, args, &out, &errOut)
	o := faultOutcome{code: code, took: time.Since(start), stderr: errOut.String()}
	if docs, err := store.NewFile(file).List(context.Background(), 0); err == nil && len(docs) == 1 {
		o.doc = &docs[0]
	}
	return o
}

// queries is the server's count of queries served (0 when unknown).
func queries(ctx context.Context, c *mongo.Client) int64 {
	var st struct {
		Opcounters struct {
			Query int64 `bson:"query"`
		} `bson:"opcounters"`
	}
	if err := c.Database("admin").RunCommand(ctx, bson.D{{Key: "serverStatus", Value: 1}}).Decode(&st); err != nil {
		return 0
	}
	return st.Opcounters.Query
}

// check holds every run to the fault tests' rules; shows says how the
// fault must show in the result.
func (o faultOutcome) check(t *testing.T, shows func(d *result.Doc) error) {
	t.Helper()
	if o.took > faultRun+faultGrace {
		t.Errorf("took %s, want at most %s + %s", o.took.Round(time.Millisecond), faultRun, faultGrace)
	}
	if o.code != cli.ExitOK {
		t.Errorf("exit %d, want %d; stderr:\n%s", o.code, cli.ExitOK, o.stderr)
	}
	d := o.doc
	if d == nil {
		t.Fatalf("no result stored; stderr:\n%s", o.stderr)
	}
	if d.Partial {
		t.Errorf("result marked partial (%s)", d.PartialReason)
	}
	var phase, inIntervals result.Errors
	for _, op := range d.Ops {
		phase = phase.Add(op.Errors)
	}
	for _, iv := range d.Intervals {
		for _, op := range iv.Ops {
			inIntervals = inIntervals.Add(op.Errors)
		}
	}
	if phase != inIntervals {
		t.Errorf("errors: phase %+v, intervals' sum %+v; want equal", phase, inIntervals)
	}
	if phase.Other != 0 {
		t.Errorf("errors: %d unclassified (other) of %+v", phase.Other, phase)
	}
	if d.Client.ClientBound {
		t.Errorf("claims client-bound: %v", d.Client.Reasons)
	}
	if err := shows(d); err != nil {
		t.Errorf("the fault does not show: %v\nerrors %+v; intervals:\n%s", err, phase, intervalLines(d))
	}
}

func intervalLines(d *result.Doc) string {
	var b strings.Builder
	for _, iv := range d.Intervals {
		var n int64
		var errs result.Errors
		var p99 float64
		for _, op := range iv.Ops {
			n += op.Count
			errs = errs.Add(op.Errors)
			if op.Latency.P99 != nil {
				p99 = max(p99, *op.Latency.P99)
			}
		}
		fmt.Fprintf(&b, "  %s ok %d errors %d (timeout %d network %d) p99 %.1f ms late %d dropped %d\n",
			iv.Start.Format("15:04:05.000"), n, errs.Total, errs.Timeout, errs.Network, p99, iv.Late, iv.Dropped)
	}
	return b.String()
}

// maxLatencyMs is the largest latency of any operation type.
func maxLatencyMs(d *result.Doc) float64 {
	var m float64
	for _, op := range d.Ops {
		if op.Latency.Max != nil {
			m = max(m, *op.Latency.Max)
		}
	}
	return m
}

func errorsOf(d *result.Doc) result.Errors {
	var e result.Errors
	for _, op := range d.Ops {
		e = e.Add(op.Errors)
	}
	return e
}

// stalled: a stall of about 2s shows as operations that took over 1.5 s,
// or as timeouts and network errors.
func stalled(d *result.Doc) error {
	if maxLatencyMs(d) < 1500 && errorsOf(d).Total == 0 {
		return fmt.Errorf("max latency %.1f ms and no errors, want a stall of about 2 s", maxLatencyMs(d))
	}
	return nil
}

// failedOver: a reset or a killed server shows as network errors (or
// timeouts) counted, or as a stall while the client reconnected.
func failedOver(d *result.Doc) error {
	if e := errorsOf(d); e.Network+e.Timeout == 0 && maxLatencyMs(d) < 500 {
		return fmt.Errorf("no network errors or timeouts and max latency %.1f ms", maxLatencyMs(d))
	}
	return nil
}

// slower: 50 ms added each way shows in the median of the intervals
// after the fault (in closed loop the fast intervals before it hold most
// operations, so the phase's median need not move).
func slower(d *result.Doc) error {
	for _, iv := range d.Intervals {
		for _, op := range iv.Ops {
			if op.Latency.P50 != nil && *op.Latency.P50 >= 90 {
				return nil
			}
		}
	}
	return fmt.Errorf("no interval has an operation type with a p50 of 90 ms or more")
}

// proxied returns uri with its host replaced by the proxy's address.
func proxied(t *testing.T, uri, addr string) string {
	t.Helper()
	u, err := url.Parse(uri)
	if err != nil {
		t.Fatal(err)
	}
	u.Host = addr
	return u.String()
}

func hostOf(t *testing.T, uri string) string {
	t.Helper()
	u, err := url.Parse(uri)
	if err != nil {
		t.Fatal(err)
	}
	return u.Host
}

func startProxy(t *testing.T, target string) *faultproxy.Proxy {
	t.Helper()
	p, err := faultproxy.Start(target)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

// TestFaultsThroughProxy runs every load through the fault proxy with a
// 2 s black hole, with every connection reset for 1 s, and with 50 ms
// added each way.
func TestFaultsThroughProxy(t *testing.T) {
	uri := testenv.URI(t)
	faults := []struct {
		name  string
		apply func(p *faultproxy.Proxy)
		shows func(d *result.Doc) error
	}{
		{"black hole 2s", func(p *faultproxy.Proxy) { p.BlackHole(2 * time.Second) }, stalled},
		{"reset 1s", func(p *faultproxy.Proxy) { p.Reset(time.Second) }, failedOver},
		{"latency 50ms", func(p *faultproxy.Proxy) { p.Latency(50 * time.Millisecond) }, slower},
	}
	for _, f := range faults {
		for _, l := range loads {
			t.Run(f.name+"/"+l.name, func(t *testing.T) {
				p := startProxy(t, hostOf(t, uri))
				o := runThrough(t, proxied(t, uri, p.Addr()), uri, l.coll, l.args, func() { f.apply(p) })
				p.Pass()
				o.check(t, f.shows)
			})
		}
	}
}

// TestFaultsBlackHoleOutlastsRun black-holes the target from mid-run for
// longer than the run: with socketTimeoutMS=2000 in the URI every
// operation caught in it ends as a timeout, so the run still ends within
// its duration plus the grace, its result stored.
func TestFaultsBlackHoleOutlastsRun(t *testing.T) {
	uri := testenv.URI(t)
	for _, l := range loads {
		t.Run(l.name, func(t *testing.T) {
			p := startProxy(t, hostOf(t, uri))
			target := withOption(t, proxied(t, uri, p.Addr()), "socketTimeoutMS", "2000")
			o := runThrough(t, target, uri, l.coll, l.args, func() { p.BlackHole(25 * time.Second) })
			p.Pass()
			o.check(t, timedOut)
		})
	}
}

// timedOut: operations caught in a black hole end as timeouts.
func timedOut(d *result.Doc) error {
	if e := errorsOf(d); e.Timeout == 0 {
		return fmt.Errorf("no timeouts counted (%+v)", e)
	}
	return nil
}

func withOption(t *testing.T, uri, key, value string) string {
	t.Helper()
	u, err := url.Parse(uri)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set(key, value)
	u.RawQuery = q.Encode()
	return u.String()
}

// TestFaultsFrozenServer freezes the server (SIGSTOP) for 2 s mid-run.
func TestFaultsFrozenServer(t *testing.T) {
	h := testenv.Own(t, server.Options{})
	for _, l := range loads {
		t.Run(l.name, func(t *testing.T) {
			o := runThrough(t, h.URI, h.URI, l.coll, l.args, func() {
				if err := h.Freeze(); err != nil {
					t.Error(err)
				}
				time.AfterFunc(2*time.Second, func() { _ = h.Thaw() })
			})
			o.check(t, stalled)
		})
	}
}

// TestFaultsKilledServer kills the server (SIGKILL) mid-run and starts it
// again on its data a second later; the run reaches it through a proxy
// whose target follows the restarted server.
func TestFaultsKilledServer(t *testing.T) {
	dir, parent := t.TempDir(), t
	h0env := server.EnvFrom(os.Getenv)
	h := testenv.Own(t, server.Options{Dir: dir, Env: h0env})
	p := startProxy(t, "127.0.0.1:"+strconv.Itoa(h.Port))
	for _, l := range loads {
		t.Run(l.name, func(t *testing.T) {
			o := runThrough(t, proxied(t, h.URI, p.Addr()), h.URI, l.coll, l.args, func() {
				_ = syscall.Kill(h.PID, syscall.SIGKILL)
				time.Sleep(time.Second)
				again, err := server.Start(context.Background(), server.Options{Dir: dir, Test: true, Env: h0env})
				if err != nil {
					t.Errorf("restart the server: %v", err)
					return
				}
				parent.Cleanup(func() { _ = again.Stop(context.Background()) })
				p.SetTarget("127.0.0.1:" + strconv.Itoa(again.Port))
				h = again
			})
			o.check(t, failedOver)
		})
	}
}

// TestOverloadWarmupBacklog runs an open loop at 3× what the target can
// serve (8 in flight over a proxy adding 20 ms each way: about 200/s,
// asked 600/s) with a warm-up: the warm-up's backlog must not spill into
// the measured phase (warm-up slots follow the same lateness rules), so
// its first interval completes operations at about the target's capacity.
func TestOverloadWarmupBacklog(t *testing.T) {
	uri := testenv.URI(t)
	p := startProxy(t, hostOf(t, uri))
	p.Latency(20 * time.Millisecond)
	o := runThrough(t, proxied(t, uri, p.Addr()), uri, "kv",
		[]string{"--workload", "kv", "-p", "records=500", "--rate", "600/s", "--threads", "8", "--warmup", "3s"}, func() {})
	if o.doc == nil {
		t.Fatalf("no result stored (exit %d); stderr:\n%s", o.code, o.stderr)
	}
	if len(o.doc.Intervals) == 0 {
		t.Fatal("no intervals")
	}
	var first int64
	for _, op := range o.doc.Intervals[0].Ops {
		first += op.Count + op.Errors.Total
	}
	if first < 50 {
		t.Errorf("first measured interval completed %d operations, want about 200 (the warm-up's backlog spilled into the measured phase)\n%s", first, intervalLines(o.doc))
	}
	if o.doc.Client.ClientBound {
		t.Errorf("claims client-bound: %v", o.doc.Client.Reasons)
	}
}
