package spec

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

const wantRateStages = "stages as DURATION:TARGET, comma-separated, such as 30s:1000/s, 1m:1000/s, 30s:4000/s (each ramps from the previous target, 0 before the first, to its own over its duration; 0s jumps)"

// Stage is one stage of an open-loop schedule, as k6 writes them: over
// Duration the rate moves linearly from the previous stage's target (0
// before the first) to Target. A stage of zero duration jumps to its
// target; two stages with the same target in a row hold it. After the
// last stage its target holds.
type Stage struct {
	Duration Duration
	Target   Rate
}

// ParseStages reads stages written DURATION:TARGET, comma-separated.
func ParseStages(text string) ([]Stage, error) {
	var out []Stage
	for _, part := range strings.Split(text, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		d, r, ok := strings.Cut(part, ":")
		if !ok {
			return nil, invalid(part, wantRateStages)
		}
		dur, err := ParseDuration(strings.TrimSpace(d))
		if err != nil {
			return nil, invalid(part, wantRateStages)
		}
		rate, err := parseTarget(strings.TrimSpace(r))
		if err != nil {
			return nil, invalid(part, wantRateStages)
		}
		out = append(out, Stage{Duration: dur, Target: rate})
	}
	if len(out) == 0 {
		return nil, invalid(text, wantRateStages)
	}
	if StagesLength(out) <= 0 {
		return nil, &Error{Value: text, Problem: "has no stage of positive duration", Want: wantRateStages}
	}
	return out, nil
}

// parseTarget is ParseRate that also takes a rate of zero, where a ramp
// down ends.
func parseTarget(s string) (Rate, error) {
	switch strings.TrimSuffix(strings.TrimSuffix(s, "/s"), "/m") {
	case "0", "0.0":
		return 0, nil
	}
	return ParseRate(s)
}

// StagesText writes stages back in the form ParseStages reads.
func StagesText(st []Stage) string {
	parts := make([]string, len(st))
	for i, s := range st {
		parts[i] = fmt.Sprintf("%s:%s", s.Duration, s.Target)
	}
	return strings.Join(parts, ", ")
}

// maxStagesShown is how many stages StagesSummary names.
const maxStagesShown = 8

// StagesSummary is StagesText for people: the first stages, then how
// many more there are, so that a long schedule is not echoed whole.
func StagesSummary(st []Stage) string {
	if len(st) <= maxStagesShown {
		return StagesText(st)
	}
	return fmt.Sprintf("%s, … and %d more stages", StagesText(st[:maxStagesShown]), len(st)-maxStagesShown)
}

// StagesLength is the stages' total duration.
func StagesLength(st []Stage) Duration {
	var d Duration
	for _, s := range st {
		d += s.Duration
	}
	return d
}

// DueBy is the number of operations the stages make due by offset t: the
// integral of the rate, the last target holding after the stages end.
func DueBy(st []Stage, t time.Duration) float64 {
	var n, prev float64
	left := t.Seconds()
	for _, s := range st {
		to := float64(s.Target)
		d := time.Duration(s.Duration).Seconds()
		if d <= 0 {
			prev = to
			continue
		}
		if left <= d {
			r := prev + (to-prev)*left/d // the rate at t
			return n + (prev+r)/2*left
		}
		n += (prev + to) / 2 * d
		left -= d
		prev = to
	}
	return n + prev*left
}

// MeanRate is the stages' mean rate over [from, to].
func MeanRate(st []Stage, from, to time.Duration) (Rate, error) {
	if to <= from {
		return 0, errors.New("empty window")
	}
	return Rate((DueBy(st, to) - DueBy(st, from)) / (to - from).Seconds()), nil
}
