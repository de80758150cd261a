package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"github.com/mongobench/mongobench/internal/result"
)

// Row is one percentile of one distribution: the exact value from the
// schedule beside what mongobench reported.
type Row struct {
	Metric   string // "latency" or "service"
	Pct      string
	Exact    float64 // ms
	Reported float64 // ms; NaN when mongobench reported none
}

// ErrUs is reported − exact in microseconds.
func (r Row) ErrUs() float64 { return (r.Reported - r.Exact) * 1e3 }

// ErrPct is the error as a percent of the exact value.
func (r Row) ErrPct() float64 { return 100 * (r.Reported - r.Exact) / r.Exact }

// Within says whether the error is within 1% or 50 µs, the bar
// for the stall runs.
func (r Row) Within() bool {
	const eps = 1e-6 // µs: decimal milliseconds in binary floating point
	e := math.Abs(r.ErrUs())
	return e <= 50+eps || e <= 0.01*r.Exact*1e3+eps
}

var quantiles = []struct {
	name string
	q    float64
	get  func(result.Dist) *float64
}{
	{"p50", 0.50, func(d result.Dist) *float64 { return d.P50 }},
	{"p99", 0.99, func(d result.Dist) *float64 { return d.P99 }},
	{"p99.9", 0.999, func(d result.Dist) *float64 { return d.P999 }},
}

// Rows sets the exact percentiles beside the reported ones of op.
func Rows(ex Exact, op result.OpStats) []Row {
	var rows []Row
	for _, m := range []struct {
		name   string
		exact  []time.Duration
		report result.Dist
	}{{"latency", ex.Latency, op.Latency}, {"service", ex.Service, op.Service}} {
		for _, q := range quantiles {
			r := Row{Metric: m.name, Pct: q.name, Exact: Percentile(m.exact, q.q), Reported: math.NaN()}
			if v := q.get(m.report); v != nil {
				r.Reported = *v
			}
			rows = append(rows, r)
		}
	}
	return rows
}

func ms(v float64) string {
	if math.IsNaN(v) {
		return "missing"
	}
	return fmt.Sprintf("%.3f", v)
}

func compare(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("compare", flag.ContinueOnError)
	resultFile := fs.String("result", "", "mongobench run --json output")
	statsFile := fs.String("stats", "", "the responder's stats file (optional)")
	label := fs.String("label", "", "the run's name in the tables")
	opName := fs.String("op", "READ", "operation type to compare")
	table := fs.String("table", "accuracy", "accuracy (percentiles), context (rate, send lag, CPU, responder error) or truth (per request: the error against the responder's kernel stamps, and where it lives)")
	header := fs.Bool("header", false, "print the table's header first")
	clientFile := fs.String("client", "", "truth: mongobench's calibration trace (run --trace)")
	serverFile := fs.String("server", "", "truth: the responder's trace (serve --trace)")
	loop := fs.String("loop", "open", "truth: the run's loop, open or closed")
	var r Run
	fs.Float64Var(&r.Rate, "rate", 0, "the run's target rate, ops/s")
	fs.DurationVar(&r.Warmup, "warmup", 0, "the run's warm-up")
	fs.DurationVar(&r.Duration, "duration", 0, "the run's measured phase")
	fs.IntVar(&r.InFlight, "threads", 64, "the run's most operations in flight (0: unbounded)")
	fs.DurationVar(&r.Delay, "delay", 100*time.Microsecond, "the responder's delay")
	stalls := stallFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	r.Stalls = *stalls
	if *header {
		printHeader(stdout, *table)
	}
	if *table == "truth" && (*clientFile != "" || !*header) {
		return compareTruth(stdout, *label, *clientFile, *serverFile, *loop, r.InFlight)
	}
	if *resultFile == "" {
		if *header {
			return nil
		}
		return errors.New("compare needs --result")
	}
	raw, err := os.ReadFile(*resultFile)
	if err != nil {
		return fmt.Errorf("read result: %w", err)
	}
	// Only the figures compared are decoded (result.Doc's times are
	// stored as extended JSON).
	var doc struct {
		Schedule result.Schedule  `json:"schedule"`
		Ops      []result.OpStats `json:"ops"`
		Client   result.Client    `json:"client"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		return fmt.Errorf("decode result %s: %w", *resultFile, err)
	}
	var op *result.OpStats
	for i := range doc.Ops {
		if doc.Ops[i].Name == *opName {
			op = &doc.Ops[i]
		}
	}
	if op == nil {
		return fmt.Errorf("result %s has no %s operations", *resultFile, *opName)
	}
	ex, err := r.Compute()
	if err != nil {
		return err
	}
	switch *table {
	case "accuracy":
		for _, row := range Rows(ex, *op) {
			within := "no"
			if row.Within() {
				within = "yes"
			}
			if math.IsNaN(row.Reported) {
				within = "missing"
			}
			fmt.Fprintf(stdout, "| %s | %s %s | %s | %s | %+.0f | %+.2f%% | %s |\n",
				*label, row.Metric, row.Pct, ms(row.Exact), ms(row.Reported), row.ErrUs(), row.ErrPct(), within)
		}
	case "context":
		var st Stats
		if *statsFile != "" {
			b, err := os.ReadFile(*statsFile)
			if err != nil {
				return fmt.Errorf("read stats: %w", err)
			}
			if err := json.Unmarshal(b, &st); err != nil {
				return fmt.Errorf("decode stats: %w", err)
			}
		}
		dist := func(d *result.Dist, get func(result.Dist) *float64) string {
			if d == nil || get(*d) == nil {
				return "missing"
			}
			return ms(*get(*d))
		}
		p50 := func(d result.Dist) *float64 { return d.P50 }
		p99 := func(d result.Dist) *float64 { return d.P99 }
		p999 := func(d result.Dist) *float64 { return d.P999 }
		send, recv := doc.Schedule.SendLag, doc.Schedule.ReceiveLag
		cpu := "missing"
		if doc.Client.CPUPerOp != nil {
			cpu = fmt.Sprintf("%.0f", *doc.Client.CPUPerOp)
		}
		fmt.Fprintf(stdout, "| %s | %d | %.1f | %d | %d | %s | %s | %s | %s / %s | %s | %d | %.1f / %.1f / %.0f |\n",
			*label, doc.Schedule.Workers, doc.Schedule.AchievedRate, op.Count+op.Errors.Total, len(ex.Latency),
			dist(send, p50), dist(send, p99), dist(send, p999), dist(recv, p50), dist(recv, p99), cpu, ex.Bound,
			st.EndP50us, st.EndP99us, st.EndMaxus)
	default:
		return fmt.Errorf("table %q: want accuracy or context", *table)
	}
	return nil
}

func printHeader(w io.Writer, table string) {
	switch table {
	case "truth":
		printTruthHeader(w)
	case "accuracy":
		fmt.Fprintln(w, "| run | metric | exact ms | reported ms | error µs | error % | within 1% or 50 µs |")
		fmt.Fprintln(w, "|---|---|---:|---:|---:|---:|---|")
	case "context":
		fmt.Fprintln(w, "| run | in flight | achieved ops/s | measured ops | exact ops | send lag p50 ms | p99 ms | p99.9 ms | receive lag p50 / p99 ms | client CPU µs/op | ops held by the in-flight bound (ideal client) | responder reply − due p50 / p99 / max µs |")
		fmt.Fprintln(w, "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
	}
}
