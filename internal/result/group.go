package result

import "time"

// Group is a run group's part of a result. In a client's own result it
// says which client of the group it was; in the group's merged result it
// lists every client's part and health, and the clients missing from it.
type Group struct {
	ID      string `bson:"id" json:"id"`
	Clients int    `bson:"clients" json:"clients"`
	// ClientIndex is the client's index, from 0 (a client's result only).
	ClientIndex *int `bson:"clientIndex,omitempty" json:"clientIndex,omitempty"`
	// StartAt is the wall-clock instant the group chose for every
	// client's warm-up to start.
	StartAt time.Time `bson:"startAt" json:"startAt"`
	// TargetRate is the group's target (open loop); the client's own
	// schedule.targetRate is its share.
	TargetRate *float64 `bson:"targetRate,omitempty" json:"targetRate,omitempty"`
	// ClockOffsetMs is this client's clock minus the results server's,
	// estimated from the server's hello.localTime, ± ClockUncertaintyMs
	// (half the round trip, plus the server's millisecond resolution).
	ClockOffsetMs      *float64 `bson:"clockOffsetMs,omitempty" json:"clockOffsetMs,omitempty"`
	ClockUncertaintyMs *float64 `bson:"clockUncertaintyMs,omitempty" json:"clockUncertaintyMs,omitempty"`
	// Members are the clients whose results the merged result holds, by
	// index; Missing the indexes of those that stored none (never
	// arrived, or died before storing).
	Members []GroupMember `bson:"members,omitempty" json:"members,omitempty"`
	Missing []int         `bson:"missing,omitempty" json:"missing,omitempty"`
}

// GroupMember is one client's part of a merged group result.
type GroupMember struct {
	ClientIndex   int    `bson:"clientIndex" json:"clientIndex"`
	RunID         string `bson:"runId" json:"runId"`
	Host          string `bson:"host" json:"host"`
	Partial       bool   `bson:"partial" json:"partial"`
	PartialReason string `bson:"partialReason,omitempty" json:"partialReason,omitempty"`
	// Intended and Completed are the client's scheduled and completed
	// measured operations; AchievedRate its completed operations per
	// second against its own TargetRate.
	Intended     int64    `bson:"intended" json:"intended"`
	Completed    int64    `bson:"completed" json:"completed"`
	AchievedRate float64  `bson:"achievedRate" json:"achievedRate"`
	TargetRate   *float64 `bson:"targetRate,omitempty" json:"targetRate,omitempty"`
	// The client's health: client-bound and why, its send lag's p99, its
	// CPU.
	ClientBound   bool     `bson:"clientBound" json:"clientBound"`
	Reasons       []string `bson:"clientBoundReasons,omitempty" json:"clientBoundReasons,omitempty"`
	SendLagP99    *float64 `bson:"sendLagP99Ms,omitempty" json:"sendLagP99Ms,omitempty"`
	CPUSeconds    float64  `bson:"cpuSeconds" json:"cpuSeconds"`
	CPUPercent    float64  `bson:"cpuPct" json:"cpuPct"`
	Cores         int      `bson:"cores" json:"cores"`
	ClockOffsetMs *float64 `bson:"clockOffsetMs,omitempty" json:"clockOffsetMs,omitempty"`
	// Canary is the noise canary of the client's host, taken around its
	// run (the merged result's canary is the first client's).
	Canary *Noise `bson:"canary,omitempty" json:"canary,omitempty"`
}
