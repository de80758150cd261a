package diagnosis

import (
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/mongobench/mongobench/internal/result"
)

// Nothing is the limit named when no resource saturated.
const Nothing = "nothing saturated"

// lineCandidates is how many other candidates the one-line verdict names
// after the limit.
const lineCandidates = 3

// Diagnose judges a run: every rule over the document and the stated
// limits, the limit (the first saturated rule in precedence order), the
// other candidates by how close each came to its ceiling, the rules that
// could not judge, Little's law and what to try next. It returns nil for
// a nil document.
func Diagnose(d *result.Doc, l Limits) *result.Diagnosis {
	if d == nil {
		return nil
	}
	r := newRun(d, l)
	out := &result.Diagnosis{}
	var saturated, others []result.Finding
	for _, rule := range Rules() {
		f := &finding{Finding: result.Finding{Rule: rule.Name, Resource: rule.Resource, Threshold: rule.Threshold}}
		rule.judge(r, f)
		if f.Missing != "" {
			f.Evidence = "could not judge: " + f.Missing
			out.NotJudged = append(out.NotJudged, f.Finding)
			continue
		}
		f.Saturated = f.extra || (f.Share != nil && *f.Share >= rule.Threshold)
		if f.Saturated {
			f.Next = rule.Next
			saturated = append(saturated, f.Finding)
		} else {
			others = append(others, f.Finding)
		}
	}
	sort.SliceStable(others, func(i, j int) bool { return closeness(others[i]) > closeness(others[j]) })
	out.Candidates = append(saturated, others...)
	out.Little = little(r)
	if len(saturated) > 0 {
		out.Limit, out.Rule = saturated[0].Resource, saturated[0].Rule
		for _, f := range saturated {
			out.Next = append(out.Next, f.Next)
		}
	} else {
		out.Limit = Nothing
		out.Next = append(out.Next, nothingNext(r, out.Little))
	}
	if d.Partial {
		out.Next = append(out.Next, "the run stopped early: its figures cover only the part measured")
	}
	out.Tail = Tail(d)
	out.Line = line(r, out)
	return out
}

// closeness orders unsaturated candidates: the share of the rule's own
// threshold reached.
func closeness(f result.Finding) float64 {
	if f.Share == nil || f.Threshold <= 0 {
		return -1
	}
	return *f.Share / f.Threshold
}

// little applies Little's law to the run: in flight = rate × latency.
func little(r *run) *result.Little {
	lat, ok := r.meanLatency()
	if !ok {
		return nil
	}
	rate := r.d.Schedule.AchievedRate
	l := &result.Little{Rate: rate, MeanLatency: lat, InFlight: rate * lat / 1000, Threads: r.d.Schedule.Workers}
	if p, ok := r.peakInFlight(); ok {
		l.PeakInFlight = &p
	}
	return l
}

// nothingNext says what limited a run in which nothing saturated.
func nothingNext(r *run, l *result.Little) string {
	s := r.d.Schedule
	if s.Mode == "open" && s.TargetRate != nil {
		return fmt.Sprintf("the run kept to the offered rate (%s of %s ops/s) with no resource saturated: raise --rate (or run a sweep) to find the limit", num(s.AchievedRate), num(*s.TargetRate))
	}
	if l == nil {
		return "nothing saturated and no latency was recorded"
	}
	return fmt.Sprintf("latency × concurrency is the limit: %s workers each waiting %s ms give %s ops/s; raise --threads while no resource saturates", strconv.Itoa(l.Threads), num(l.MeanLatency), num(l.Rate))
}

// line is the one-line verdict: the limit with its figures, then the
// closest other candidates' shares.
func line(r *run, d *result.Diagnosis) string {
	var b strings.Builder
	b.WriteString("limited by: ")
	rest := d.Candidates
	if d.Limit == Nothing {
		b.WriteString(Nothing)
		if t := d.Tail; t != nil && len(t.Causes) > 0 {
			fmt.Fprintf(&b, "; the p99 tail coincided with %s", t.Causes[0].Condition)
		}
		if l := d.Little; l != nil {
			fmt.Fprintf(&b, "; in flight %s = %s ops/s × %s ms (of %d threads)", num(l.InFlight), num(l.Rate), num(l.MeanLatency), l.Threads)
		}
		if s := r.d.Schedule; s.Mode == "open" && s.TargetRate != nil {
			fmt.Fprintf(&b, "; offered %s ops/s", num(*s.TargetRate))
		}
	} else {
		b.WriteString(figure(rest[0]))
		rest = rest[1:]
	}
	n := 0
	for _, f := range rest {
		if n == lineCandidates {
			break
		}
		if f.Share == nil || *f.Share <= 0 {
			continue
		}
		fmt.Fprintf(&b, "; %s %s%%", f.Resource, num(100**f.Share))
		n++
	}
	return b.String()
}

// figure names a finding with its value against its limit.
func figure(f result.Finding) string {
	if f.Value == nil || f.Limit == nil || f.Share == nil {
		return f.Resource
	}
	v, l := *f.Value, *f.Limit
	switch f.Unit {
	case "bytes/s":
		return fmt.Sprintf("%s, %s of %s MB/s (%s%%)", f.Resource, mb(v), mb(l), num(100**f.Share))
	case "%":
		return fmt.Sprintf("%s, %s%% (threshold %s%%)", f.Resource, num(v), num(100*f.Threshold))
	case "cores":
		return fmt.Sprintf("%s, %s of %s (%s%%)", f.Resource, num(v), plural(l, "core"), num(100**f.Share))
	}
	if strings.HasPrefix(f.Unit, "%") {
		return fmt.Sprintf("%s, %s%s (threshold %s%%)", f.Resource, num(v), f.Unit, num(l*f.Threshold))
	}
	return fmt.Sprintf("%s, %s of %s %s (%s%%)", f.Resource, num(v), num(l), f.Unit, num(100**f.Share))
}

// num formats a figure with three significant digits, without exponent.
func num(v float64) string {
	switch a := math.Abs(v); {
	case a == math.Trunc(a) && a < 1e15:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// mb formats bytes (per second) in MB (1MB = 1024KB, as the tool's sizes).
func mb(v float64) string { return num(v / (1 << 20)) }

func plural(n float64, unit string) string {
	text := num(n)
	if n == 1 {
		return text + " " + unit
	}
	return text + " " + unit + "s"
}
