package result

// Diagnosis says what limited a run (diagnosis in the document): the
// resource that saturated, or that nothing did, with the evidence of
// every rule as numbers, and what to try next. It is computed from the
// rest of the document, so stored documents can be diagnosed again.
type Diagnosis struct {
	// Limit names the limiting resource, or "nothing saturated".
	Limit string `bson:"limit" json:"limit"`
	// Rule is the name of the rule that found the limit; empty when
	// nothing saturated.
	Rule string `bson:"rule,omitempty" json:"rule,omitempty"`
	// Line is the one-line verdict the run summary ends with.
	Line string `bson:"line" json:"line"`
	// Candidates are the rules that could judge, the limit first, then
	// by how close each resource came to its limit.
	Candidates []Finding `bson:"candidates" json:"candidates"`
	// NotJudged are the rules whose inputs are missing, each saying which.
	NotJudged []Finding `bson:"notJudged,omitempty" json:"notJudged,omitempty"`
	// Little is Little's law over the run: operations in flight = rate ×
	// mean latency, against the concurrency allowed.
	Little *Little `bson:"little,omitempty" json:"little,omitempty"`
	// Next is what to try next.
	Next []string `bson:"next,omitempty" json:"next,omitempty"`
	// Tail says where the run's latency tail fell and what co-occurred
	// there; absent on documents diagnosed before it existed.
	Tail *Tail `bson:"tail,omitempty" json:"tail,omitempty"`
}

// Tail is where a run's tail lives: the operations above their type's
// p99 over the whole run, counted per interval from the stored
// histograms, and the conditions of the run's series that the tail met
// more often than the run's time did.
type Tail struct {
	// Above is how many operations were above their type's p99.
	Above int64 `bson:"above" json:"above"`
	// PerInterval is how many of them each interval holds, by the
	// interval's position in intervals.
	PerInterval []int64 `bson:"perInterval" json:"perInterval"`
	// Causes are the conditions that line up with the tail, the best
	// first; empty when nothing does.
	Causes []TailCause `bson:"causes,omitempty" json:"causes,omitempty"`
	// Line is the verdict in words: the best cause with its evidence,
	// that nothing lines up, or why the tail could not be judged.
	Line string `bson:"line" json:"line"`
	// NotJudged says why the tail could not be judged, when it could not.
	NotJudged string `bson:"notJudged,omitempty" json:"notJudged,omitempty"`
	// Series counts the series the tail was compared with.
	Series int `bson:"series" json:"series"`
}

// TailCause is one condition ("disk writes above 300 MB/s") and how much
// more often the tail met it than the run's time did.
type TailCause struct {
	// Condition is the condition in words; Series names the series it
	// reads (intervals.host.diskWriteBytesPerSec, a metrics series'
	// name) and Source where that series came from.
	Condition string `bson:"condition" json:"condition"`
	Series    string `bson:"series" json:"series"`
	Source    string `bson:"source,omitempty" json:"source,omitempty"`
	// Threshold is the condition's bound in the series' own units.
	Threshold float64 `bson:"threshold" json:"threshold"`
	// TailShare is the share of the operations above p99 that fell in
	// the intervals meeting the condition, TimeShare those intervals'
	// share of the run's time, Lift their ratio.
	TailShare float64 `bson:"tailShare" json:"tailShare"`
	TimeShare float64 `bson:"timeShare" json:"timeShare"`
	Lift      float64 `bson:"lift" json:"lift"`
	// Intervals are the positions of the intervals meeting it.
	Intervals []int `bson:"intervals" json:"intervals"`
	// Evidence is the sentence the summary and the report print.
	Evidence string `bson:"evidence" json:"evidence"`
}

// Finding is one rule's judgement of one resource.
type Finding struct {
	Rule     string `bson:"rule" json:"rule"`
	Resource string `bson:"resource" json:"resource"`
	// Value is the figure judged and Limit the ceiling it is judged
	// against, in Unit; Share is Value / Limit. Each is absent when the
	// rule does not have it.
	Value *float64 `bson:"value,omitempty" json:"value,omitempty"`
	Limit *float64 `bson:"limit,omitempty" json:"limit,omitempty"`
	Unit  string   `bson:"unit,omitempty" json:"unit,omitempty"`
	Share *float64 `bson:"share,omitempty" json:"share,omitempty"`
	// LimitFrom says where the limit comes from (a flag, the target's
	// description, the server process's CPU set, a default threshold).
	LimitFrom string `bson:"limitFrom,omitempty" json:"limitFrom,omitempty"`
	// Threshold is the share from which the resource counts as saturated.
	Threshold float64 `bson:"threshold" json:"threshold"`
	Saturated bool    `bson:"saturated" json:"saturated"`
	// Evidence is the judgement in words, with its numbers.
	Evidence string `bson:"evidence" json:"evidence"`
	// Missing names the input the rule lacked; set only on rules that
	// could not judge.
	Missing string `bson:"missing,omitempty" json:"missing,omitempty"`
	// Next is what to try when this resource is the limit.
	Next string `bson:"next,omitempty" json:"next,omitempty"`
}

// Little is Little's law over a run's measured phase.
type Little struct {
	// Rate is completed operations per second, MeanLatency their mean
	// latency in milliseconds, InFlight their product (operations in
	// flight on average).
	Rate        float64 `bson:"opsPerSec" json:"opsPerSec"`
	MeanLatency float64 `bson:"meanLatencyMs" json:"meanLatencyMs"`
	InFlight    float64 `bson:"inFlight" json:"inFlight"`
	// Threads is the concurrency allowed (workers, or the open loop's
	// cap on operations in flight).
	Threads int `bson:"threads" json:"threads"`
	// PeakInFlight is the most operations in flight in any interval,
	// when recorded.
	PeakInFlight *int64 `bson:"peakInFlight,omitempty" json:"peakInFlight,omitempty"`
}
