package result

import "time"

// SchemaVersion is the version of the result document layout written by
// this build. Readers accept documents of this version or older.
// Version 2 adds a long run's coarsened intervals (resolution, with its
// full-resolution intervals in a collection of their own) and a run's
// registration while it runs (live); a version 1 document is a version 2
// document without them.
const SchemaVersion = 2

// Doc is one measured run. Field names follow the public contract in
// docs/results.md; fields marked "mongobench" there are this tool's own.
type Doc struct {
	// ID identifies the test and variant, so a re-run of the same variant
	// replaces its row in the results collection. Its keys are ordered,
	// because MongoDB compares embedded documents key by key; the store
	// writes it as the document's _id.
	ID            Ordered  `bson:"-" json:"-"`
	SchemaVersion int      `bson:"schemaVersion" json:"schemaVersion"`
	RunID         string   `bson:"runId" json:"runId"`
	TestName      string   `bson:"testName" json:"testName"`
	Label         string   `bson:"label,omitempty" json:"label,omitempty"`
	Tags          []string `bson:"tags,omitempty" json:"tags,omitempty"`
	Repetition    int      `bson:"repetition" json:"repetition"`

	Start time.Time `bson:"start" json:"start"` // measured phase start
	End   time.Time `bson:"end" json:"end"`     // measured phase end
	// Duration is the measured phase's wall time in milliseconds.
	Duration float64 `bson:"duration" json:"duration"`
	// Partial is set when the run stopped early (Ctrl-C, fatal error).
	Partial       bool   `bson:"partial" json:"partial"`
	PartialReason string `bson:"partialReason,omitempty" json:"partialReason,omitempty"`
	// Notes are warnings about how the run was made, e.g. a setting the
	// server refused and what was used instead.
	Notes []string `bson:"notes,omitempty" json:"notes,omitempty"`

	Variant     map[string]any `bson:"variant" json:"variant"`
	TestConfig  map[string]any `bson:"test_config" json:"test_config"`
	BenchConfig map[string]any `bson:"bench_config" json:"bench_config"`

	BeforeStatus map[string]any `bson:"before_status,omitempty" json:"before_status,omitempty"`
	AfterStatus  map[string]any `bson:"after_status,omitempty" json:"after_status,omitempty"`
	Metrics      Metrics        `bson:"metrics" json:"metrics"`
	TestResults  TestResults    `bson:"testResults" json:"testResults"`

	// Thresholds are the run's verdicts on the thresholds it was given
	// (--threshold, a scenario's thresholds), in the order given.
	Thresholds []ThresholdVerdict `bson:"thresholds,omitempty" json:"thresholds,omitempty"`

	Schedule  Schedule   `bson:"schedule" json:"schedule"`
	Ops       []OpStats  `bson:"ops" json:"ops"`
	Intervals []Interval `bson:"intervals" json:"intervals"`
	Client    Client     `bson:"client" json:"client"`
	Target    Target     `bson:"target" json:"target"`
	Generator Generator  `bson:"generator" json:"generator"`
	// Diagnosis says what limited the run; absent on documents stored
	// before it was computed.
	Diagnosis *Diagnosis `bson:"diagnosis,omitempty" json:"diagnosis,omitempty"`
	// Validity says whether the run counts (valid, suspect, invalid) and
	// why; absent on documents stored before it was judged (they count).
	Validity *Validity `bson:"validity,omitempty" json:"validity,omitempty"`
	// Canary is the client host's noise measured around the run.
	Canary *Noise `bson:"canary,omitempty" json:"canary,omitempty"`
	// Group is set on the results of a run group: each client's own, and
	// the group's merged one.
	Group *Group `bson:"group,omitempty" json:"group,omitempty"`
	// Resolution is set when the run was too long for its document to
	// hold every interval: its intervals and series are coarsened, and
	// the full-resolution ones are in a collection of their own.
	Resolution *Resolution `bson:"resolution,omitempty" json:"resolution,omitempty"`
	// Live is set while the run is registered but not yet stored whole:
	// its client is measuring it (or was, until it stopped writing: the
	// run is lost). The complete result has none.
	Live *Live `bson:"live,omitempty" json:"live,omitempty"`
	// Replay is set on the run of a recording's replay (replay.go).
	Replay *Replay `bson:"replay,omitempty" json:"replay,omitempty"`
}

// Live is a registered run's state while its client measures it.
type Live struct {
	State string `bson:"state" json:"state"` // StateRunning
	// Heartbeat is when its client last wrote; a running run whose
	// heartbeat is older than LostAfter is lost.
	Heartbeat time.Time `bson:"heartbeat" json:"heartbeat"`
	// Writer names the client's process (host, pid and a random token):
	// only its records are the run's.
	Writer string `bson:"writer" json:"writer"`
	// Intervals counts the intervals it has written.
	Intervals int64 `bson:"intervals" json:"intervals"`
}

// The state of a registered run, and how long its client may stay silent
// before the run counts as lost (its client writes every BeatEvery).
const (
	StateRunning = "running"
	StateLost    = "lost"
	BeatEvery    = time.Minute
	LostAfter    = 150 * time.Second
)

// State is the run's state at now: "" for a complete (stored whole) run,
// StateRunning while its client writes, StateLost once it has been silent
// longer than LostAfter.
func (d *Doc) State(now time.Time) string {
	switch {
	case d.Live == nil:
		return ""
	case now.Sub(d.Live.Heartbeat) > LostAfter:
		return StateLost
	}
	return d.Live.State
}

// Resolution says how a long run's document holds its intervals:
// coarsened to IntervalSec (merged exactly: counts summed, histograms
// merged, never a percentile averaged; telemetry readings averaged),
// while the FullIntervals intervals of FullIntervalSec, with their
// histograms, and every telemetry reading are in Collection of the
// results database.
type Resolution struct {
	IntervalSec     float64 `bson:"intervalSec" json:"intervalSec"`
	FullIntervalSec float64 `bson:"fullIntervalSec" json:"fullIntervalSec"`
	FullIntervals   int     `bson:"fullIntervals" json:"fullIntervals"`
	Collection      string  `bson:"collection" json:"collection"`
}

// ThresholdVerdict is one threshold judged on a run: the expression as
// given, the figure measured (nil when it is missing, with the reason in
// Missing) and whether it holds. A missing figure never holds.
type ThresholdVerdict struct {
	Expression string `bson:"expression" json:"expression"`
	// Value is the measured figure in Unit: "ms" (latency or service
	// time), "errors" (a count), "%" (a share of completed operations, or
	// of the target rate), "ops/s", or "bool" (1 true, 0 false).
	Value *float64 `bson:"value" json:"value"`
	Unit  string   `bson:"unit" json:"unit"`
	// Op is the operation type the value belongs to: the one named, or
	// for a threshold on every type the one that decided the verdict.
	Op      string `bson:"op,omitempty" json:"op,omitempty"`
	Missing string `bson:"missing,omitempty" json:"missing,omitempty"`
	Pass    bool   `bson:"pass" json:"pass"`
	// Baseline is the baseline's figure a relative bound was judged
	// against (a capacity plan's constraint); nil for any other bound.
	Baseline *float64 `bson:"baseline,omitempty" json:"baseline,omitempty"`
}

// Ordered is a document whose key order is significant (an _id).
type Ordered []KV

// KV is one key of an Ordered document.
type KV struct {
	Key   string
	Value any
}

// Get returns the value stored under key, and whether it is present.
func (o Ordered) Get(key string) (any, bool) {
	for _, kv := range o {
		if kv.Key == key {
			return kv.Value, true
		}
	}
	return nil, false
}

// Metrics holds host and process series over the measured phase, named as
// in the MongoDB Atlas monitoring API.
type Metrics struct {
	Measurements []Series `bson:"measurements" json:"measurements"`
	DiskMetrics  []Series `bson:"diskMetrics" json:"diskMetrics"`
	// Members holds the series (measurements and disk alike) of the
	// replica set members other than the one the measurements read (the
	// primary, or the member of a direct connection), each naming its
	// member: their hosts' (--host-metrics, or each member's own
	// getDiagnosticData), and each secondary's replication lag; and, in
	// any replica set, every member's state (MemberState, the main
	// member's too); absent outside a replica set.
	Members []Series `bson:"members,omitempty" json:"members,omitempty"`
}

// SeriesList is one of the metrics' lists of series, with its field name.
type SeriesList struct {
	Name   string
	Series []Series
}

// Lists are the metrics' lists of series: measurements, diskMetrics and
// members.
func (m Metrics) Lists() []SeriesList {
	return []SeriesList{{"measurements", m.Measurements}, {"diskMetrics", m.DiskMetrics}, {"members", m.Members}}
}

// Series is one named time series. A nil Value marks a missing sample.
type Series struct {
	Name  string `bson:"name" json:"name"`
	Units string `bson:"units" json:"units"`
	// Source is where the values come from: "local" (this host's /proc),
	// "node_exporter" (the server host's Prometheus node exporter),
	// "atlas" (the Atlas API) or "serverStatus"; GranularitySec is the
	// time between its readings.
	Source         string  `bson:"source,omitempty" json:"source,omitempty"`
	GranularitySec float64 `bson:"granularitySec,omitempty" json:"granularitySec,omitempty"`
	// Member is the replica set member (host:port, as the set names it)
	// whose host a node exporter's series reads, and Role its role when
	// the run started ("primary" or "secondary"); both absent when the
	// host is not a member's known by name.
	Member     string      `bson:"member,omitempty" json:"member,omitempty"`
	Role       string      `bson:"role,omitempty" json:"role,omitempty"`
	DataPoints []DataPoint `bson:"dataPoints" json:"dataPoints"`
}

// DataPoint is one sample of a Series.
type DataPoint struct {
	Timestamp time.Time `bson:"timestamp" json:"timestamp"`
	Value     *float64  `bson:"value" json:"value"`
}

// Measurement and disk series names (Atlas monitoring API names).
const (
	CPUUser          = "SYSTEM_NORMALIZED_CPU_USER"
	CPUKernel        = "SYSTEM_NORMALIZED_CPU_KERNEL"
	CPUIOWait        = "SYSTEM_NORMALIZED_CPU_IOWAIT"
	ProcessCPUUser   = "PROCESS_NORMALIZED_CPU_USER"
	ProcessCPUKernel = "PROCESS_NORMALIZED_CPU_KERNEL"
	OpTimeWrites     = "OP_EXECUTION_TIME_WRITES"
	OpTimeReads      = "OP_EXECUTION_TIME_READS"
	DiskIOPS         = "DISK_PARTITION_IOPS_TOTAL"
	DiskReadBytes    = "DISK_PARTITION_THROUGHPUT_READ"
	DiskWriteBytes   = "DISK_PARTITION_THROUGHPUT_WRITE"
	CacheUsed        = "CACHE_USED_BYTES"
	CacheDirty       = "CACHE_DIRTY_BYTES"
	QueueTotal       = "GLOBAL_LOCK_CURRENT_QUEUE_TOTAL"
	// ReplicationLag is one secondary's lag behind the primary, in
	// seconds (a members series, its Member the secondary).
	ReplicationLag = "OPLOG_SLAVE_LAG_MASTER_TIME"
)

// Series the Atlas monitoring API does not have, named by mongobench in
// its style: read from a server's FTDC files (results attach-ftdc).
const (
	CacheMax             = "CACHE_MAX_BYTES"                    // wiredTiger.cache.maximum bytes configured
	CacheAppEviction     = "CACHE_PAGES_EVICTED_BY_APP_THREADS" // per second
	CheckpointRunning    = "CHECKPOINT_RUNNING"                 // 1 while a checkpoint runs at the interval's end
	CheckpointsCompleted = "CHECKPOINTS_COMPLETED"              // in the interval
	TicketsOut           = "TICKETS_OUT"                        // execution tickets in use, reads and writes
	TicketsTotal         = "TICKETS_TOTAL"                      // execution tickets there are, reads and writes
	// MemberState is one replica set member's state as replSetGetStatus
	// reports it (1 primary, 2 secondary, ...; a members series, its
	// Member the member, one point per sample of the run).
	MemberState = "REPLSET_MEMBER_STATE"
)

// memberStates are the replica set member states replSetGetStatus names,
// as its stateStr words them, in lower case.
var memberStates = map[int64]string{0: "startup", 1: "primary", 2: "secondary", 3: "recovering", 5: "startup2",
	6: "unknown", 7: "arbiter", 8: "down", 9: "rollback", 10: "removed"}

// MemberStateName is a replica set member state's name as
// replSetGetStatus's stateStr words it, in lower case ("primary",
// "secondary", ...); ok is false for a state it does not name.
func MemberStateName(state int64) (name string, ok bool) {
	name, ok = memberStates[state]
	return name, ok
}

// Schedule describes how operations were paced and how well the schedule
// was kept.
type Schedule struct {
	// Mode is "open" (target rate, intended start times) or "closed"
	// (N workers, no pacing).
	Mode    string `bson:"mode" json:"mode"`
	Pacer   string `bson:"pacer,omitempty" json:"pacer,omitempty"`
	Workers int    `bson:"workers" json:"workers"`
	// TargetRate is the intended operations per second (open loop only).
	TargetRate *float64 `bson:"targetRate,omitempty" json:"targetRate,omitempty"`
	// AchievedRate is the operations the schedule served per second of
	// the measured phase: completed ones (successes and errors) and
	// Skipped ones.
	AchievedRate float64 `bson:"achievedRate" json:"achievedRate"`
	// Intended is how many operations the schedule planned in the measured
	// phase (open loop only).
	Intended int64 `bson:"intended" json:"intended"`
	// Late counts operations sent after their intended start by more than
	// the lateness threshold; Dropped those not sent at all because they
	// were later than the drop bound.
	Late    int64 `bson:"late" json:"late"`
	Dropped int64 `bson:"dropped" json:"dropped"`
	// Abandoned counts operations a stop (Ctrl-C) left undone: due but
	// never sent, or in flight and cancelled after the grace period.
	Abandoned int64 `bson:"abandoned" json:"abandoned"`
	// Skipped counts operations that kept their slot without a request
	// because they no longer applied: a replay's getMores and
	// killCursors whose cursor the candidate had already closed. They are
	// in AchievedRate (the schedule served them), in no operation type's
	// figures, and neither succeeded nor failed.
	Skipped       int64   `bson:"skipped,omitempty" json:"skipped,omitempty"`
	LateThreshold float64 `bson:"lateThresholdMs" json:"lateThresholdMs"`
	// DropBound is the lag past which an operation is dropped; absent
	// (0) when nothing is dropped however late (a recording's replay).
	DropBound float64 `bson:"dropBoundMs,omitempty" json:"dropBoundMs,omitempty"`
	// MaxLag is the largest delay between an intended and an actual start,
	// in milliseconds.
	MaxLag float64 `bson:"maxLagMs" json:"maxLagMs"`
	// MaxReceiveLag is the largest receive lag (a reply's arrival to its
	// task's return) of the interval's operations, in milliseconds; nil
	// when no operation's reply arrival is known.
	MaxReceiveLag *float64 `bson:"maxReceiveLagMs,omitempty" json:"maxReceiveLagMs,omitempty"`
	// SendLag is the distribution of the delay from intended start to
	// actual send of the operations sent (open loop): the share of
	// latency the client itself adds, timer wake-up included.
	SendLag *Dist `bson:"sendLag,omitempty" json:"sendLag,omitempty"`
	// ReceiveLag is the distribution of the delay from a reply's arrival
	// at the client's host (the kernel's receive timestamp) to the
	// worker's return, for the operations whose arrival is known (the
	// lean wire client on Linux; Count says how many). Those operations
	// end at the arrival, so their latency and service time do not carry
	// it; nil when no operation's arrival was known.
	ReceiveLag *Dist `bson:"receiveLag,omitempty" json:"receiveLag,omitempty"`
	// SuccessRate is successful operations per second of measured phase,
	// FailedRate failed ones: AchievedRate is their sum.
	SuccessRate float64 `bson:"successRate" json:"successRate"`
	FailedRate  float64 `bson:"failedRate" json:"failedRate"`
	// Pacing is how open-loop workers waited for their slots' times
	// ("timerfd", "nanosleep", "spin", or "timer", the Go timers of
	// earlier versions).
	Pacing string `bson:"pacing,omitempty" json:"pacing,omitempty"`
	// WarmupSkipped counts warm-up operations never sent: later than the
	// drop bound, or still unsent when the measured phase began.
	WarmupSkipped int64 `bson:"warmupSkipped" json:"warmupSkipped"`
	// Precision is the client's verdict on its own timing.
	Precision *Precision `bson:"precision,omitempty" json:"precision,omitempty"`
}

// Precision compares the client's send lag with the latencies it reports:
// the send lag's p99 against the smallest latency p50 of any operation
// type. Flagged when the share exceeds Bound, the send lag p99 is at
// least FloorMs and the run was not server-bound: the latencies then
// carry the client's own lag.
type Precision struct {
	// Judged is false when the data is missing (closed loop, nothing
	// sent or nothing succeeded); Note says why, and no figure is given.
	// A judged verdict whose share is above Bound but is not flagged
	// has a Note saying why (server-bound, or a lag under FloorMs).
	Judged     bool     `bson:"judged" json:"judged"`
	Note       string   `bson:"note,omitempty" json:"note,omitempty"`
	SendLagP99 *float64 `bson:"sendLagP99Ms,omitempty" json:"sendLagP99Ms,omitempty"`
	Op         string   `bson:"op,omitempty" json:"op,omitempty"`
	LatencyP50 *float64 `bson:"latencyP50Ms,omitempty" json:"latencyP50Ms,omitempty"`
	// Share is SendLagP99 / LatencyP50, a fraction.
	Share   *float64 `bson:"share,omitempty" json:"share,omitempty"`
	Bound   float64  `bson:"bound" json:"bound"`
	FloorMs float64  `bson:"floorMs,omitempty" json:"floorMs,omitempty"`
	Flagged bool     `bson:"flagged" json:"flagged"`
}

// OpStats is the measured phase of one operation type.
type OpStats struct {
	Name    string  `bson:"name" json:"name"`
	Count   int64   `bson:"count" json:"count"` // successful operations
	Errors  Errors  `bson:"errors" json:"errors"`
	Rate    float64 `bson:"opsPerSec" json:"opsPerSec"` // successes per second
	Latency Dist    `bson:"latency" json:"latency"`
	Service Dist    `bson:"serviceTime" json:"serviceTime"`
	// Parts counts the successes of Count and the failures of Errors that
	// were parts of other operations (YCSB's measurerwparts: the read and
	// the update inside a READ-MODIFY-WRITE); nil when none were.
	Parts *PartCounts `bson:"parts,omitempty" json:"parts,omitempty"`
}

// PartCounts are an operation type's recordings that were parts of other
// operations: Count successes, Errors failures.
type PartCounts struct {
	Count  int64 `bson:"count" json:"count"`
	Errors int64 `bson:"errors" json:"errors"`
}

// Whole returns how many of the operation type's operations completed
// (with or without an error) and how many failed, leaving out those that
// were parts of other operations.
func (o OpStats) Whole() (completed, failed int64) {
	completed, failed = o.Count+o.Errors.Total, o.Errors.Total
	if o.Parts != nil {
		completed -= o.Parts.Count + o.Parts.Errors
		failed -= o.Parts.Errors
	}
	return completed, failed
}

// Errors counts failed operations by class.
type Errors struct {
	Total         int64 `bson:"total" json:"total"`
	Timeout       int64 `bson:"timeout" json:"timeout"`
	Network       int64 `bson:"network" json:"network"`
	WriteConflict int64 `bson:"writeConflict" json:"writeConflict"`
	DuplicateKey  int64 `bson:"duplicateKey" json:"duplicateKey"`
	Overload      int64 `bson:"overload" json:"overload"`
	Other         int64 `bson:"other" json:"other"`
}

// Add returns the sum of two error counts.
func (e Errors) Add(o Errors) Errors {
	return Errors{
		Total: e.Total + o.Total, Timeout: e.Timeout + o.Timeout,
		Network: e.Network + o.Network, WriteConflict: e.WriteConflict + o.WriteConflict,
		DuplicateKey: e.DuplicateKey + o.DuplicateKey, Overload: e.Overload + o.Overload,
		Other: e.Other + o.Other,
	}
}

// Dist summarises a latency distribution in milliseconds. Percentiles are
// nil when nothing was recorded. Hist is the full HDR histogram (values in
// microseconds), V2 compressed and base64 encoded, from which any
// percentile can be recomputed and runs merged exactly.
type Dist struct {
	Count int64    `bson:"count" json:"count"`
	Mean  *float64 `bson:"meanMs,omitempty" json:"meanMs,omitempty"`
	Min   *float64 `bson:"minMs,omitempty" json:"minMs,omitempty"`
	P50   *float64 `bson:"p50Ms,omitempty" json:"p50Ms,omitempty"`
	P95   *float64 `bson:"p95Ms,omitempty" json:"p95Ms,omitempty"`
	P99   *float64 `bson:"p99Ms,omitempty" json:"p99Ms,omitempty"`
	P999  *float64 `bson:"p999Ms,omitempty" json:"p999Ms,omitempty"`
	Max   *float64 `bson:"maxMs,omitempty" json:"maxMs,omitempty"`
	Hist  string   `bson:"hist,omitempty" json:"hist,omitempty"`
}

// Percentile is the stored percentile named p50, p95, p99 or p999
// (anything else reads as p999); nil when not measured.
func (d Dist) Percentile(name string) *float64 {
	switch name {
	case "p50":
		return d.P50
	case "p95":
		return d.P95
	case "p99":
		return d.P99
	}
	return d.P999
}

// Interval is one reporting interval (one second by default) of the
// measured phase, bucketed by operation completion time.
type Interval struct {
	Start   time.Time `bson:"t" json:"t"`
	Seconds float64   `bson:"secs" json:"secs"`
	Ops     []OpStats `bson:"ops" json:"ops"`
	Late    int64     `bson:"late" json:"late"`
	Dropped int64     `bson:"dropped" json:"dropped"`
	// MaxLag is the largest schedule lag of operations sent in the
	// interval, in milliseconds (open loop).
	MaxLag float64 `bson:"maxLagMs" json:"maxLagMs"`
	// MaxReceiveLag is the largest receive lag (a reply's arrival to its
	// task's return) of the interval's operations, in milliseconds; nil
	// when no operation's reply arrival is known.
	MaxReceiveLag *float64 `bson:"maxReceiveLagMs,omitempty" json:"maxReceiveLagMs,omitempty"`
	// PeakInFlight is the most operations in flight at once in the
	// interval.
	PeakInFlight *int64 `bson:"peakInFlight,omitempty" json:"peakInFlight,omitempty"`
	// ClientCPU is the tool's CPU use in the interval as a percent of all
	// cores.
	ClientCPU *float64 `bson:"clientCpuPct,omitempty" json:"clientCpuPct,omitempty"`
	// Server holds per-second rates and gauges derived from the
	// serverStatus samples that bound the interval; absent when the
	// server does not report them.
	Server map[string]float64 `bson:"server,omitempty" json:"server,omitempty"`
	// Host holds host and server-process readings for the interval when
	// the tool can see the server's host.
	Host map[string]float64 `bson:"host,omitempty" json:"host,omitempty"`
}

// Client is the load generator's own cost and health.
type Client struct {
	CPUSeconds float64 `bson:"cpuSeconds" json:"cpuSeconds"`
	// CPUPerOp is client CPU time per completed operation, microseconds.
	CPUPerOp *float64 `bson:"cpuPerOpUs,omitempty" json:"cpuPerOpUs,omitempty"`
	// CPUPercent is client CPU as a percent of all cores over the phase.
	CPUPercent float64 `bson:"cpuPct" json:"cpuPct"`
	// CPUWait is the share of the time the client's threads were ready
	// to run over the measured phase that they spent waiting for a CPU
	// (a starved client waits, whatever its CPU use); nil where the
	// platform does not say.
	CPUWait     *float64 `bson:"cpuWaitShare,omitempty" json:"cpuWaitShare,omitempty"`
	Cores       int      `bson:"cores" json:"cores"`
	ClientBound bool     `bson:"clientBound" json:"clientBound"`
	Reasons     []string `bson:"clientBoundReasons,omitempty" json:"clientBoundReasons,omitempty"`
	// ServerBound: the server's failures or stalls limited the run, with
	// the evidence. NotJudged says why neither verdict was given (an
	// interrupted run).
	ServerBound   bool     `bson:"serverBound" json:"serverBound"`
	ServerReasons []string `bson:"serverBoundReasons,omitempty" json:"serverBoundReasons,omitempty"`
	NotJudged     string   `bson:"boundNotJudged,omitempty" json:"boundNotJudged,omitempty"`
}

// Target fingerprints the server under test.
type Target struct {
	URI            string `bson:"uri" json:"uri"` // credentials removed
	ServerVersion  string `bson:"serverVersion,omitempty" json:"serverVersion,omitempty"`
	Topology       string `bson:"topology,omitempty" json:"topology,omitempty"`
	Kind           string `bson:"kind,omitempty" json:"kind,omitempty"` // embedded-secantus, embedded-mongod, external
	MonitoringMode string `bson:"serverMonitoringMode,omitempty" json:"serverMonitoringMode,omitempty"`
	SameHost       bool   `bson:"sameHost" json:"sameHost"`
	Database       string `bson:"database" json:"database"`
}

// Generator fingerprints the load generator.
type Generator struct {
	Host          string `bson:"host" json:"host"`
	ToolVersion   string `bson:"toolVersion" json:"toolVersion"`
	DriverVersion string `bson:"driverVersion" json:"driverVersion"`
	GoVersion     string `bson:"goVersion" json:"goVersion"`
	OS            string `bson:"os" json:"os"`
	Cores         int    `bson:"cores" json:"cores"`
}

// Op returns the stats of the named operation type, or nil.
func (d *Doc) Op(name string) *OpStats {
	for i := range d.Ops {
		if d.Ops[i].Name == name {
			return &d.Ops[i]
		}
	}
	return nil
}

// Series returns the named measurement or disk series, or nil.
func (m *Metrics) Series(name string) *Series {
	for _, list := range [][]Series{m.Measurements, m.DiskMetrics} {
		for i := range list {
			if list[i].Name == name {
				return &list[i]
			}
		}
	}
	return nil
}

// F returns a pointer to v, for optional values.
func F(v float64) *float64 { return &v }
