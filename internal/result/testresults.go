package result

// TestResults are the figures of a run's measured phase that its test
// computed (testResults in the document). A figure is stored only when the
// test produces it: every field is a pointer or a map, and a nil one is
// absent from the document, never 0.
type TestResults struct {
	// NOps is the operations completed in the measured phase, successes
	// and failures.
	NOps *int64 `bson:"nOps,omitempty" json:"nOps,omitempty"`
	// Counts are what the workload's tasks counted over the measured
	// phase (warm-up subtracted).
	Counts `bson:",inline"`
	// ServerOpsPerOp is the growth of the server's opcounters over the
	// measured phase per completed operation.
	ServerOpsPerOp *float64 `bson:"serverOpsPerOp,omitempty" json:"serverOpsPerOp,omitempty"`

	Catalog `bson:",inline"`
	Load    `bson:",inline"`

	// Bounds are the verdicts of the bounds the run's study judges it by
	// (a sweep's criteria, an SLA's bounds), judged by the measuring
	// environment with the run's thresholds, on the same figures; the
	// study's verdict below is worded from them.
	Bounds []ThresholdVerdict `bson:"bounds,omitempty" json:"bounds,omitempty"`

	// The verdict of the study the run belongs to, if any.
	SLA         *SLAVerdict   `bson:"sla,omitempty" json:"sla,omitempty"`
	Sweep       *SweepVerdict `bson:"sweep,omitempty" json:"sweep,omitempty"`
	Calibration *Calibration  `bson:"calibration,omitempty" json:"calibration,omitempty"`
}

// Counts are the counts a workload's tasks keep. Each workload fills the
// ones it counts; the others stay nil.
type Counts struct {
	// ledger (transactions)
	Txns          *int64 `bson:"txns,omitempty" json:"txns,omitempty"`
	Retries       *int64 `bson:"retries,omitempty" json:"retries,omitempty"`
	CommitRetries *int64 `bson:"commitRetries,omitempty" json:"commitRetries,omitempty"`
	Aborts        *int64 `bson:"aborts,omitempty" json:"aborts,omitempty"`
	Failed        *int64 `bson:"failed,omitempty" json:"failed,omitempty"`
	// query
	DocsReturned *int64 `bson:"docsReturned,omitempty" json:"docsReturned,omitempty"`
	// updateapi
	InsertsOnMiss *int64 `bson:"insertsOnMiss,omitempty" json:"insertsOnMiss,omitempty"`
	Upserts       *int64 `bson:"upserts,omitempty" json:"upserts,omitempty"`
	// YCSB operations
	Scanned  *int64 `bson:"scanned,omitempty" json:"scanned,omitempty"`
	NotFound *int64 `bson:"notFound,omitempty" json:"notFound,omitempty"`
	// YCSB load
	Docs  *int64 `bson:"docs,omitempty" json:"docs,omitempty"`
	Bytes *int64 `bson:"bytes,omitempty" json:"bytes,omitempty"`
	// RetryCauses counts the retries of a transaction workload by cause
	// (the server's error code name, or the error class); only causes
	// seen are present.
	RetryCauses map[string]int64 `bson:"retryCauses,omitempty" json:"retryCauses,omitempty"`
}

// fields lists the counts, so that sums and differences treat every one
// alike.
func (c *Counts) fields() []**int64 {
	return []**int64{&c.Txns, &c.Retries, &c.CommitRetries, &c.Aborts, &c.Failed, &c.DocsReturned,
		&c.InsertsOnMiss, &c.Upserts, &c.Scanned, &c.NotFound, &c.Docs, &c.Bytes}
}

// Add adds o's counts to c. A count either side has is present in the
// sum.
func (c *Counts) Add(o Counts) {
	mine, theirs := c.fields(), o.fields()
	for i, p := range mine {
		if *theirs[i] == nil {
			continue
		}
		v := **theirs[i]
		if *p != nil {
			v += **p
		}
		*p = &v
	}
	for k, n := range o.RetryCauses {
		if c.RetryCauses == nil {
			c.RetryCauses = map[string]int64{}
		}
		c.RetryCauses[k] += n
	}
}

// Sub subtracts base's counts from c (counts at the measured phase's end
// less those at its start). A count c does not have stays absent.
func (c *Counts) Sub(base Counts) {
	mine, theirs := c.fields(), base.fields()
	for i, p := range mine {
		if *p == nil || *theirs[i] == nil {
			continue
		}
		v := **p - **theirs[i]
		*p = &v
	}
	for k, n := range base.RetryCauses {
		if c.RetryCauses == nil {
			break
		}
		if c.RetryCauses[k] -= n; c.RetryCauses[k] == 0 {
			delete(c.RetryCauses, k)
		}
	}
	if len(c.RetryCauses) == 0 {
		c.RetryCauses = nil
	}
}

// Catalog are the rates the Performance Tables read, over the measured
// phase: documents and megabytes per second for ingest tests, updates
// per second, queries and documents returned per second.
type Catalog struct {
	DocsInserted     *int64   `bson:"docsInserted,omitempty" json:"docsInserted,omitempty"`
	DocsPerSecond    *float64 `bson:"DocsPerSecond,omitempty" json:"DocsPerSecond,omitempty"`
	MBPerSecond      *float64 `bson:"MBPerSecond,omitempty" json:"MBPerSecond,omitempty"`
	NUpdates         *int64   `bson:"nUpdates,omitempty" json:"nUpdates,omitempty"`
	UpdatesPerSecond *float64 `bson:"UpdatesPerSecond,omitempty" json:"UpdatesPerSecond,omitempty"`
	NQueries         *int64   `bson:"nQueries,omitempty" json:"nQueries,omitempty"`
	QueriesPerSecond *float64 `bson:"QueriesPerSecond,omitempty" json:"QueriesPerSecond,omitempty"`
}

// Load are the rates of a measured YCSB load phase: documents per second
// and megabytes (10^6 bytes of BSON) per second.
type Load struct {
	DocsPerSec *float64 `bson:"docsPerSec,omitempty" json:"docsPerSec,omitempty"`
	MBPerSec   *float64 `bson:"MBPerSec,omitempty" json:"MBPerSec,omitempty"`
}

// SLAVerdict is how an SLA study judged a run.
type SLAVerdict struct {
	Spec    string   `bson:"spec" json:"spec"`
	Pass    bool     `bson:"pass" json:"pass"`
	Reasons []string `bson:"reasons" json:"reasons"`
}

// SweepVerdict is how a sweep judged one of its steps.
type SweepVerdict struct {
	ID       string   `bson:"id" json:"id"`
	Step     int      `bson:"step" json:"step"`
	Criteria string   `bson:"criteria" json:"criteria"`
	Holds    bool     `bson:"holds" json:"holds"`
	Reasons  []string `bson:"reasons" json:"reasons"`
}

// Calibration places a run in a thread calibration: its step, and the
// throughput it gained over the step before (absent for the first).
type Calibration struct {
	ID   string   `bson:"id" json:"id"`
	Step int      `bson:"step" json:"step"`
	Gain *float64 `bson:"gain,omitempty" json:"gain,omitempty"`
}

// Map returns the counts present by their stored names (retry causes
// under "cause:<name>"), for printing and for tests.
func (c Counts) Map() map[string]int64 {
	names := []string{"txns", "retries", "commitRetries", "aborts", "failed", "docsReturned",
		"insertsOnMiss", "upserts", "scanned", "notFound", "docs", "bytes"}
	m := map[string]int64{}
	for i, p := range c.fields() {
		if *p != nil {
			m[names[i]] = **p
		}
	}
	for k, n := range c.RetryCauses {
		m["cause:"+k] = n
	}
	return m
}
