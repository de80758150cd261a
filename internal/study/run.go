package study

import (
	"fmt"
	"time"

	"github.com/mongobench/mongobench/internal/result"
)

// TestName is the test of the result documents this package reads.
const TestName = "txn_sla"

// TxnOp is the operation that holds a transaction's latency and failures.
const TxnOp = "txn"

// Run is one repetition of one variant at one target rate, as read from its
// result document. Latencies are milliseconds; nil is not recorded.
type Run struct {
	RunID string
	Mode  string // "per-op" or "client-bulk"
	Stage string // free-text label of the configuration; "" = none
	TPS   float64
	Rep   int // 0-based
	Start time.Time

	P50, P95, P99, P999, Max *float64

	Achieved      float64 // completed transactions per second
	Failed        int64   // transactions that failed permanently
	Retries       int64   // whole-transaction retries
	CommitRetries int64
	Aborts        int64
	OpsPerTxn     *float64 // server operations per transaction
	Partial       bool     // the run stopped early

	// How the transactions ran: the read concern asked for
	// (variant.readConcern), the one the transactions sent
	// (test_config.readConcern, "default": none), the write concern, and
	// the run's notes, which say why a setting differs from the one asked
	// for. Empty when the document does not say.
	ReadConcernAsked string
	ReadConcern      string
	WriteConcern     string
	Notes            []string
	// Thresholds says which of the run's thresholds failed (a run whose
	// thresholds fail does not pass).
	Thresholds []string
	// Limited is the run's diagnosis verdict ("limited by: …"), with
	// the checkpoints it coincided with; empty when the document has none.
	Limited string
	// Tail is what the run's p99 tail coincided with (its diagnosis's
	// "p99 tail: …" line: a cause with its evidence, or that nothing
	// lines up); empty when the document has none or the tail was not
	// judged (too few intervals).
	Tail string
	// Verdict is the SLA study's verdict stored with the run
	// (testResults.sla); nil before it is judged.
	Verdict *result.SLAVerdict
	// StudyVerdicts are the verdicts of the SLA's thresholds, judged by
	// the lab on the run's result (testResults.bounds).
	StudyVerdicts []result.ThresholdVerdict
	// Judged are the thresholds the stored verdict judged (Judged).
	Judged []string
}

// RunOf reads a Run from a txn_sla result document.
func RunOf(d *result.Doc) (Run, error) {
	if d.TestName != TestName {
		return Run{}, fmt.Errorf("run %s: test %q is not %s", d.RunID, d.TestName, TestName)
	}
	v := result.VariantOf(d)
	var mode, stage string
	if v.Mode != nil {
		mode = *v.Mode
	}
	if v.Stage != nil {
		stage = *v.Stage
	}
	if mode == "" {
		return Run{}, fmt.Errorf("run %s: variant has no mode", d.RunID)
	}
	tps, err := targetRate(d)
	if err != nil {
		return Run{}, fmt.Errorf("run %s: %w", d.RunID, err)
	}
	r := Run{RunID: d.RunID, Mode: mode, Stage: stage, TPS: tps, Rep: d.Repetition,
		Start: d.Start, Achieved: d.Schedule.AchievedRate, Partial: d.Partial, Thresholds: ThresholdReasons(d), Verdict: d.TestResults.SLA,
		StudyVerdicts: d.TestResults.Bounds}
	if v := d.TestResults.SLA; v != nil {
		r.Judged = Judged(d.TestResults.Bounds, v.Spec, legacySLA)
	}
	if d.Diagnosis != nil {
		r.Limited = d.Diagnosis.Line
		if t := d.Diagnosis.Tail; t != nil && t.NotJudged == "" {
			r.Tail = t.Line
		}
	}
	if op := d.Op(TxnOp); op != nil {
		l := op.Latency
		r.P50, r.P95, r.P99, r.P999, r.Max = l.P50, l.P95, l.P99, l.P999, l.Max
		r.Failed = op.Errors.Total
	}
	r.readCounters(d.TestResults)
	r.ReadConcernAsked, _ = d.Variant["readConcern"].(string)
	r.ReadConcern, _ = d.TestConfig["readConcern"].(string)
	r.WriteConcern, _ = d.TestConfig["writeConcern"].(string)
	r.Notes = d.Notes
	return r, nil
}

// RunsOf reads the txn_sla runs among docs, skipping other tests.
func RunsOf(docs []result.Doc) ([]Run, error) {
	var runs []Run
	for i := range docs {
		if docs[i].TestName != TestName {
			continue
		}
		r, err := RunOf(&docs[i])
		if err != nil {
			return nil, fmt.Errorf("run %s: %w", docs[i].RunID, err)
		}
		runs = append(runs, r)
	}
	return runs, nil
}

// targetRate returns the variant's target rate, else the schedule's.
func targetRate(d *result.Doc) (float64, error) {
	v, ok, err := number(d.Variant, "targetRate")
	switch {
	case err != nil:
		return 0, fmt.Errorf("variant.%w", err)
	case ok:
		return v, nil
	case d.Schedule.TargetRate != nil:
		return *d.Schedule.TargetRate, nil
	}
	return 0, fmt.Errorf("no target rate")
}

// readCounters reads the retry and abort counts and the server operations
// per transaction; an absent counter is 0, an absent ratio nil.
func (r *Run) readCounters(tr result.TestResults) {
	for _, c := range []struct {
		src *int64
		dst *int64
	}{{tr.Retries, &r.Retries}, {tr.CommitRetries, &r.CommitRetries}, {tr.Aborts, &r.Aborts}} {
		if c.src != nil {
			*c.dst = *c.src
		}
	}
	r.OpsPerTxn = tr.ServerOpsPerOp
}

// number reads m[key] as a float64, and whether it is present.
func number(m map[string]any, key string) (float64, bool, error) {
	switch n := m[key].(type) {
	case nil:
		return 0, false, nil
	case int:
		return float64(n), true, nil
	case int32:
		return float64(n), true, nil
	case int64:
		return float64(n), true, nil
	case float32:
		return float64(n), true, nil
	case float64:
		return n, true, nil
	}
	return 0, false, fmt.Errorf("%s: %v is a %T, not a number", key, m[key], m[key])
}

// hasLatency reports whether any latency of r was recorded.
func (r Run) hasLatency() bool {
	for _, p := range []*float64{r.P50, r.P95, r.P99, r.P999, r.Max} {
		if p != nil {
			return true
		}
	}
	return false
}
