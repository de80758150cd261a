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

// Readings are the canaries taken, before the run and after it; none for
// a run without its noise measured (n nil).
func (n *Noise) Readings() []Canary {
	if n == nil {
		return nil
	}
	var out []Canary
	for _, c := range []*Canary{n.Before, n.After} {
		if c != nil {
			out = append(out, *c)
		}
	}
	return out
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

// A run's validity, judged before any statistic sees it.
const (
	Valid   = "valid"
	Suspect = "suspect"
	Invalid = "invalid"
)

// Validity says whether a run counts: valid, suspect (it counts, with a
// warning) or invalid (left out of comparisons, change points, SLAs and
// plans unless asked for), with each rule that judged it.
type Validity struct {
	State string         `bson:"state" json:"state"`
	Rules []ValidityRule `bson:"rules" json:"rules"`
}

// ValidityRule is one rule's judgement: its outcome (valid, suspect,
// invalid, or "not judged" when the run lacks its figure, with Evidence
// saying which), the figure it read and the bounds it held it to.
type ValidityRule struct {
	Rule     string   `bson:"rule" json:"rule"`
	Outcome  string   `bson:"outcome" json:"outcome"`
	Value    *float64 `bson:"value,omitempty" json:"value,omitempty"`
	Unit     string   `bson:"unit,omitempty" json:"unit,omitempty"`
	Suspect  *float64 `bson:"suspectAt,omitempty" json:"suspectAt,omitempty"`
	Invalid  *float64 `bson:"invalidAt,omitempty" json:"invalidAt,omitempty"`
	Evidence string   `bson:"evidence" json:"evidence"`
}

// NotJudged is the outcome of a rule whose figure the run does not hold.
const NotJudged = "not judged"
