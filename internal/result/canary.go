package result

import "time"

// Canary is one reading of the client host's noise: a short, fixed set of
// probes whose figures move only when the host does (another process
// taking its CPU, its memory bandwidth or its scheduler). Each figure is
// nil when its probe could not run, and Problems says why.
type Canary struct {
	At      time.Time `bson:"at" json:"at"`
	Seconds float64   `bson:"seconds" json:"seconds"` // how long the probes took
	// CPUNs is nanoseconds per step of a fixed integer loop on one
	// thread: the median of its repeats, and the slowest repeat (a
	// repeat that lost its core to another process is slower).
	CPUNs      *float64 `bson:"cpuNsPerStep,omitempty" json:"cpuNsPerStep,omitempty"`
	CPUWorstNs *float64 `bson:"cpuWorstNsPerStep,omitempty" json:"cpuWorstNsPerStep,omitempty"`
	// MemNs is nanoseconds per dependent random read over MemMB
	// megabytes (beyond the caches: the memory's latency as loaded).
	MemNs *float64 `bson:"memNsPerRead,omitempty" json:"memNsPerRead,omitempty"`
	MemMB int      `bson:"memMB,omitempty" json:"memMB,omitempty"`
	// LoopbackP50Us and LoopbackP99Us are a 64-byte TCP round trip over
	// loopback, microseconds.
	LoopbackP50Us *float64 `bson:"loopbackP50Us,omitempty" json:"loopbackP50Us,omitempty"`
	LoopbackP99Us *float64 `bson:"loopbackP99Us,omitempty" json:"loopbackP99Us,omitempty"`
	// WakeP50Us and WakeP99Us are how late the pacer's own precise sleep
	// wakes, microseconds: the floor of an open-loop run's send lag.
	WakeP50Us *float64 `bson:"wakeLateP50Us,omitempty" json:"wakeLateP50Us,omitempty"`
	WakeP99Us *float64 `bson:"wakeLateP99Us,omitempty" json:"wakeLateP99Us,omitempty"`
	Problems  []string `bson:"problems,omitempty" json:"problems,omitempty"`
}

// Noise is the canary taken just before a run's (or a study's) first
// operation and just after its last.
type Noise struct {
	Before *Canary `bson:"before,omitempty" json:"before,omitempty"`
	After  *Canary `bson:"after,omitempty" json:"after,omitempty"`
}

// CanaryFigure is one figure of a canary, named as stored, with its
// unit, for tables and comparisons.
type CanaryFigure struct {
	Name, Unit string
	Value      func(Canary) *float64
}

// CanaryFigures are the canary's figures in the order shown.
var CanaryFigures = []CanaryFigure{
	{"cpuNsPerStep", "ns", func(c Canary) *float64 { return c.CPUNs }},
	{"memNsPerRead", "ns", func(c Canary) *float64 { return c.MemNs }},
	{"loopbackP50Us", "µs", func(c Canary) *float64 { return c.LoopbackP50Us }},
	{"loopbackP99Us", "µs", func(c Canary) *float64 { return c.LoopbackP99Us }},
	{"wakeLateP50Us", "µs", func(c Canary) *float64 { return c.WakeP50Us }},
	{"wakeLateP99Us", "µs", func(c Canary) *float64 { return c.WakeP99Us }},
}
