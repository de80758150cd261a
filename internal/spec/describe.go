package spec

import (
	"fmt"
	"strings"
)

// Describe says how the scenario drives its workload in one phrase: its
// loop, rate and concurrency, and how long it measures after what
// warm-up, such as "open loop at 1000/s, up to 64 in flight, 30s after 5s
// warm-up".
func (s *Scenario) Describe() string {
	var b strings.Builder
	if s.Rate > 0 {
		if len(s.Stages) > 0 {
			fmt.Fprintf(&b, "open loop in stages %s (%s on average while measured), up to %d in flight", StagesSummary(s.Stages), s.Rate, s.Threads)
		} else {
			fmt.Fprintf(&b, "open loop at %s, up to %d in flight", s.Rate, s.Threads)
		}
		if s.Arrival == ArrivalPoisson {
			b.WriteString(", Poisson arrivals")
		}
	} else {
		fmt.Fprintf(&b, "closed loop, %d workers", s.Threads)
	}
	if s.Duration > 0 {
		fmt.Fprintf(&b, ", %s", s.Duration)
	}
	if s.Ops > 0 {
		fmt.Fprintf(&b, ", %d ops", s.Ops)
	}
	if s.Warmup > 0 {
		fmt.Fprintf(&b, " after %s warm-up", s.Warmup)
	}
	return b.String()
}

// Limits says the parameter's bounds for a listing of parameters, such as
// " (1 to 100)", " (at least 1)" or " (at most 100)"; "" without any.
func (p ParamSpec) Limits() string {
	switch {
	case p.Min != "" && p.Max != "":
		return fmt.Sprintf(" (%s to %s)", p.Min, p.Max)
	case p.Min != "":
		return fmt.Sprintf(" (at least %s)", p.Min)
	case p.Max != "":
		return fmt.Sprintf(" (at most %s)", p.Max)
	}
	return ""
}
