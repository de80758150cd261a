package cli_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/mongobench/mongobench/internal/cli"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/testsupport/prometheus"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
	"github.com/mongobench/mongobench/internal/threshold"
)

// tallyWorkloads is every built-in workload, sized to set up in a
// moment, and YCSB F with its read-modify-write's parts measured.
var tallyWorkloads = []struct {
	name string
	args []string
}{
	{"kv", []string{"--workload", "kv", "-p", "records=200"}},
	{"ledger", []string{"--workload", "ledger", "-p", "accounts=100"}},
	{"insert", []string{"--workload", "insert", "-p", "docSize=256B", "-p", "batchSize=4"}},
	{"hotdoc", []string{"--workload", "hotdoc", "-p", "records=100"}},
	{"updateapi", []string{"--workload", "updateapi", "-p", "records=200", "-p", "percentNew=20"}},
	{"query", []string{"--workload", "query", "-p", "query=id", "-p", "records=800", "-p", "uncachedFactor=0", "-p", "docsPerQuery=10", "-p", "cacheSize=2MB"}},
	{"ycsb-a", []string{"--workload", "ycsb-a", "-p", "recordcount=200"}},
	{"ycsb-b", []string{"--workload", "ycsb-b", "-p", "recordcount=200"}},
	{"ycsb-c", []string{"--workload", "ycsb-c", "-p", "recordcount=200"}},
	{"ycsb-d", []string{"--workload", "ycsb-d", "-p", "recordcount=200"}},
	{"ycsb-e", []string{"--workload", "ycsb-e", "-p", "recordcount=200", "-p", "maxscanlength=10"}},
	{"ycsb-f", []string{"--workload", "ycsb-f", "-p", "recordcount=200"}},
	{"ycsb-f measurerwparts", []string{"--workload", "ycsb-f", "-p", "recordcount=200", "-p", "measurerwparts=true"}},
}

// TestLiveFiguresEqualStored runs every workload open loop with
// --metrics-addr (400 ms intervals: the few milliseconds after the last
// tick join the fifth interval, which is handed again), scraping /metrics
// until the endpoint closes, and with
// --abort-on-fail on a threshold that always holds, watching what the
// abort judge judges: the final scrape's counters and achieved rate, and
// the judge's last cumulative figures, equal the stored result's, parts
// of operations (YCSB's measurerwparts) included.
func TestLiveFiguresEqualStored(t *testing.T) {
	uri := testenv.URI(t)
	db := testenv.DBName(t)
	dropAfter(t, connect(t, uri), db)
	for _, w := range tallyWorkloads {
		t.Run(w.name, func(t *testing.T) {
			addr := prometheus.FreeAddr(t)
			file := filepath.Join(t.TempDir(), "results.jsonl")
			var judged *threshold.Figures
			defer cli.OnAbortJudged(func(f threshold.Figures) { judged = &f })()
			scrapes := scrape(t, addr)
			args := append([]string{"run", "--uri", uri, "--database", db, "--rate", "200", "--duration", "2s",
				"--warmup", "500ms", "--interval", "400ms", "--results-file", file, "--no-report", "--metrics-addr", addr,
				"--threshold", "errors <= 100%", "--abort-on-fail"}, w.args...)
			o := mb(t, args...)
			final := scrapes()
			wantCode(t, o, cli.ExitOK)
			docs, err := store.NewFile(file).List(context.Background(), 0)
			if err != nil || len(docs) != 1 {
				t.Fatalf("stored: %d results (%v), want 1", len(docs), err)
			}
			d := &docs[0]
			if final == nil {
				t.Fatalf("no scrape of /metrics read the run's final figures")
			}
			got := promView(t, *final, d.RunID)
			want := storedView(d)
			t.Logf("stored: %s", want)
			if got.String() != want.String() {
				t.Errorf("Prometheus's final figures:\n got %s\nwant %s", got, want)
			}
			if judged == nil {
				t.Fatalf("the abort judge judged nothing")
			}
			if j := judgedView(*judged); j.String() != want.withoutSchedule().String() {
				t.Errorf("the abort judge's last figures:\n got %s\nwant %s", j, want.withoutSchedule())
			}
		})
	}
}

// figures are the cumulative figures compared: per operation type its
// successes, parts and errors by class; the run's completed operations
// and achieved rate; late, dropped and intervals.
type figures struct {
	ops                      []string
	completed                int64
	achieved                 float64
	late, dropped, intervals int64
	noSchedule               bool
}

func (f figures) String() string {
	f.ops = slices.Sorted(slices.Values(f.ops)) // Prometheus orders series by their labels
	s := fmt.Sprintf("%s; completed %d, achieved %v/s", strings.Join(f.ops, ", "), f.completed, f.achieved)
	if !f.noSchedule {
		s += fmt.Sprintf(", late %d, dropped %d, intervals %d", f.late, f.dropped, f.intervals)
	}
	return s
}

// withoutSchedule leaves out what the abort judge's document does not
// carry.
func (f figures) withoutSchedule() figures {
	f.noSchedule, f.late, f.dropped, f.intervals = true, 0, 0, 0
	return f
}

var classes = []string{"timeout", "network", "writeConflict", "duplicateKey", "overload", "other"}

func opFigures(name string, count, parts int64, errs map[string]int64) string {
	s := fmt.Sprintf("%s %d (parts %d", name, count, parts)
	for _, c := range classes {
		if errs[c] > 0 {
			s += fmt.Sprintf(", %s %d", c, errs[c])
		}
	}
	return s + ")"
}

func storedView(d *result.Doc) figures {
	f := opsView(d.Ops)
	if d.TestResults.NOps != nil {
		f.completed = *d.TestResults.NOps
	}
	f.achieved = d.Schedule.AchievedRate
	f.late, f.dropped, f.intervals = d.Schedule.Late, d.Schedule.Dropped, int64(len(d.Intervals))
	if d.Intervals == nil {
		f = f.withoutSchedule()
	}
	return f
}

// judgedView is what the abort judge judged: its operations, the
// operations they completed (parts left out) and the achieved rate.
func judgedView(j threshold.Figures) figures {
	f := opsView(j.Ops)
	for _, op := range j.Ops {
		n, _ := op.Whole()
		f.completed += n
	}
	f.achieved = j.AchievedRate
	return f.withoutSchedule()
}

// opsView is the figures of each operation type.
func opsView(ops []result.OpStats) figures {
	var f figures
	for _, op := range ops {
		var parts int64
		if op.Parts != nil {
			parts = op.Parts.Count
		}
		e := op.Errors
		f.ops = append(f.ops, opFigures(op.Name, op.Count, parts, map[string]int64{
			"timeout": e.Timeout, "network": e.Network, "writeConflict": e.WriteConflict,
			"duplicateKey": e.DuplicateKey, "overload": e.Overload, "other": e.Other}))
	}
	return f
}

// promView reads the run's counters and achieved rate from a scrape.
func promView(t *testing.T, text, runID string) figures {
	t.Helper()
	parser := expfmt.NewTextParser(model.UTF8Validation)
	mfs, err := parser.TextToMetricFamilies(strings.NewReader(text))
	if err != nil {
		t.Fatalf("scrape: %v", err)
	}
	label := func(m *dto.Metric, name string) string {
		for _, l := range m.GetLabel() {
			if l.GetName() == name {
				return l.GetValue()
			}
		}
		return ""
	}
	// each calls f with every series of the run of the metric named.
	each := func(name string, f func(m *dto.Metric, v float64)) {
		for _, m := range mfs[name].GetMetric() {
			if label(m, "run_id") != runID {
				continue
			}
			v := m.GetGauge().GetValue()
			if m.Counter != nil {
				v = m.GetCounter().GetValue()
			}
			f(m, v)
		}
	}
	one := func(name string) float64 {
		var x float64
		each(name, func(_ *dto.Metric, v float64) { x = v })
		return x
	}
	var f figures
	var names []string
	count, parts, errs := map[string]int64{}, map[string]int64{}, map[string]map[string]int64{}
	each("mongobench_operations_total", func(m *dto.Metric, v float64) {
		names = append(names, label(m, "op"))
		count[label(m, "op")] = int64(v)
	})
	each("mongobench_parts_total", func(m *dto.Metric, v float64) { parts[label(m, "op")] = int64(v) })
	each("mongobench_errors_total", func(m *dto.Metric, v float64) {
		op := label(m, "op")
		if errs[op] == nil {
			errs[op] = map[string]int64{}
		}
		errs[op][label(m, "class")] = int64(v)
	})
	for _, n := range names {
		f.ops = append(f.ops, opFigures(n, count[n], parts[n], errs[n]))
	}
	f.completed = int64(one("mongobench_completed_total"))
	f.achieved = one("mongobench_run_achieved_ops_per_second")
	f.late, f.dropped = int64(one("mongobench_late_total")), int64(one("mongobench_dropped_total"))
	f.intervals = int64(one("mongobench_intervals_total"))
	if one("mongobench_run_running") != 0 {
		t.Errorf("the last scrape was taken while the run was running")
	}
	return f
}

// scrape reads http://addr/metrics every 100 ms until the endpoint
// closes; the returned func waits for that and returns the last scrape
// read (nil if none was).
func scrape(t *testing.T, addr string) func() *string {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	var (
		mu   sync.Mutex
		last *string
		wg   sync.WaitGroup
	)
	client := &http.Client{Timeout: 2 * time.Second}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			select {
			case <-ctx.Done():
				return
			case <-time.After(100 * time.Millisecond):
			}
			resp, err := client.Get("http://" + addr + "/metrics")
			if err != nil {
				continue // not serving yet, or no longer
			}
			body, err := io.ReadAll(resp.Body)
			_ = resp.Body.Close()
			if err == nil && resp.StatusCode == http.StatusOK {
				s := string(body)
				mu.Lock()
				last = &s
				mu.Unlock()
			}
		}
	}()
	return func() *string {
		cancel()
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		return last
	}
}
