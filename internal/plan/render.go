package plan

import (
	"fmt"
	"io"
	"strings"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/texttable"
)

// Write renders the answer: the candidates' table, their ratios against
// the baseline with a line each, the stages' table and one verdict line
// per stage; Markdown when md is set, aligned text otherwise. A value
// that was not measured is "—" in text and an empty cell in Markdown.
func Write(w io.Writer, a Answer, md bool) error {
	if err := WriteCandidates(w, a, md); err != nil {
		return err
	}
	if md {
		fmt.Fprintf(w, "\nAgainst the baseline, %s:\n\n", a.Baseline)
	} else {
		fmt.Fprintf(w, "\nagainst the baseline, %s:\n", a.Baseline)
	}
	if err := WriteRatios(w, a, md); err != nil {
		return err
	}
	WriteRatioLines(w, a, md)
	WriteLimits(w, a, md)
	if line := UserModelLine(a); line != "" {
		fmt.Fprintf(w, "\n%s\n", line)
	}
	fmt.Fprintln(w)
	if err := WriteStages(w, a, md); err != nil {
		return err
	}
	fmt.Fprintln(w)
	WriteVerdicts(w, a, md)
	return nil
}

// WriteLimits says what limited each candidate's runs (their diagnosis),
// a line per candidate; "not diagnosed" for runs stored without one.
func WriteLimits(w io.Writer, a Answer, md bool) {
	if md {
		fmt.Fprintln(w)
	} else {
		fmt.Fprintf(w, "\nwhat limited each candidate:\n")
	}
	for _, line := range LimitLines(a) {
		if md {
			fmt.Fprintf(w, "- %s\n", line)
		} else {
			fmt.Fprintf(w, "  %s\n", line)
		}
	}
}

// LimitLines say what limited each candidate's runs, a line each.
func LimitLines(a Answer) []string {
	var out []string
	for _, as := range a.Assessments {
		why := "not diagnosed (its runs were stored without a diagnosis)"
		if len(as.Limited) > 0 {
			why = strings.Join(as.Limited, " | ")
		}
		out = append(out, as.Name+": "+why)
	}
	return out
}

// WriteRatios renders one row per candidate other than the baseline: its
// throughput, each operation type's p95 and p99, its cost and its
// throughput per cost, each against the baseline's as a signed change
// ("+160%").
func WriteRatios(w io.Writer, a Answer, md bool) error {
	return write(RatiosTable(a, md), w, md)
}

// RatiosTable is the table WriteRatios writes.
func RatiosTable(a Answer, md bool) *texttable.Table {
	c := cells(md)
	ops := LatencyOps(a)
	cols := []string{"candidate", ">throughput"}
	for _, op := range ops {
		cols = append(cols, ">"+op+" p95", ">"+op+" p99")
	}
	t := texttable.New(append(cols, ">cost", ">throughput per cost")...)
	change := func(r *float64) string { return c.Opt(r, func(v float64) string { return signedPct(v - 1) }) }
	for _, as := range a.Assessments {
		if as.Baseline {
			continue
		}
		r := as.VsBaseline
		row := []string{as.Name, change(r.Throughput)}
		for _, op := range ops {
			l := r.Latency[op]
			row = append(row, change(l.P95), change(l.P99))
		}
		t.Add(append(row, change(r.Cost), change(r.ThroughputPerCost))...)
	}
	return t
}

// RatioLines returns one quotable line per candidate other than the
// baseline, as in "a: +160% throughput for +48% cost, 75.7% better
// throughput per cost than base.".
func RatioLines(a Answer) []string {
	var out []string
	for _, as := range a.Assessments {
		if as.Baseline {
			continue
		}
		r := as.VsBaseline
		s := as.Name + ": "
		if r.Throughput == nil {
			s += "throughput not comparable (the baseline sustained none)"
		} else {
			s += signedPct(*r.Throughput-1) + " throughput"
		}
		if r.Cost != nil {
			s += " for " + signedPct(*r.Cost-1) + " cost"
		}
		if p := r.ThroughputPerCost; p != nil {
			s += ", " + relative(*p, 1, "better", "worse") + " throughput per cost"
		}
		out = append(out, s+" than "+a.Baseline+".")
	}
	return out
}

// WriteRatioLines writes RatioLines one a line; in Markdown as a list.
func WriteRatioLines(w io.Writer, a Answer, md bool) {
	for _, line := range RatioLines(a) {
		if md {
			line = "- " + line
		}
		fmt.Fprintln(w, line)
	}
}

// UserModelLine says how the demand's users became a rate, or why they
// could not; "" when the demand is in rates.
func UserModelLine(a Answer) string {
	m := a.Users
	if m == nil {
		return ""
	}
	var s string
	switch m.By {
	case ByCPU:
		s = fmt.Sprintf("users: today's %s users put the baseline (%s) at %s of its server CPU", num(m.Users), a.Baseline, pct(m.Load))
		if m.OpsPerUser > 0 {
			s += fmt.Sprintf("; it sustained %s ops/s at %s%% of its CPUs, so %s ops/s at %s: %.4g ops/s per user",
				num(m.BaselineThroughput), num(*m.BaselineCPU), num(m.BaselineThroughput*m.Load/(*m.BaselineCPU/100)), pct(m.Load), m.OpsPerUser)
		}
	default:
		s = fmt.Sprintf("users: today's %s users load the baseline (%s) to %s of the %s ops/s it sustains: %.4g ops/s per user",
			num(m.Users), a.Baseline, pct(m.Load), num(m.BaselineThroughput), m.OpsPerUser)
	}
	if m.Problem != "" {
		s += "; " + m.Problem
	}
	if m.Note != "" {
		s += " (" + m.Note + ")"
	}
	return s + "."
}

// WriteVerdicts writes Verdicts one a line; in Markdown as a list, each
// stage's rejections nested under it.
func WriteVerdicts(w io.Writer, a Answer, md bool) {
	for _, line := range Verdicts(a) {
		if md {
			if sub, ok := strings.CutPrefix(line, "  "); ok {
				line = "  - " + sub
			} else {
				line = "- " + line
			}
		}
		fmt.Fprintln(w, line)
	}
}

// LatencyOps are the operation types the candidates measured, sorted: the
// ones the candidates' table shows.
func LatencyOps(a Answer) []string {
	var maps []map[string]result.Dist
	for _, as := range a.Assessments {
		maps = append(maps, as.Latency)
	}
	return sortedKeys(maps...)
}

// WriteCandidates renders one row per candidate.
func WriteCandidates(w io.Writer, a Answer, md bool) error {
	return write(CandidatesTable(a, md), w, md)
}

// CandidatesTable is the table WriteCandidates writes.
func CandidatesTable(a Answer, md bool) *texttable.Table {
	c := cells(md)
	ops := LatencyOps(a)
	cols := []string{"candidate", "description", ">runs", ">ops/s", ">range"}
	for _, op := range ops {
		cols = append(cols, ">"+op+" p95 ms", ">"+op+" p99 ms")
	}
	cols = append(cols, ">server CPU % of its CPUs", ">"+a.Currency+"/month", ">ops/s per "+a.Currency)
	if a.OpsPerUser > 0 {
		cols = append(cols, ">users carried")
	}
	cols = append(cols, "constraints")
	t := texttable.New(cols...)
	for _, as := range a.Assessments {
		name := as.Name
		if as.Baseline {
			name += " (baseline)"
		}
		row := []string{name, c.Text(as.Description), fmt.Sprint(as.Repetitions), num(as.Throughput),
			num(as.ThroughputMin) + "–" + num(as.ThroughputMax)}
		for _, op := range ops {
			row = append(row, c.Opt(pick(as.Latency, op, "p95"), num), c.Opt(pick(as.Latency, op, "p99"), num))
		}
		row = append(row, c.Opt(as.ServerCPU, num), num(as.Monthly), perCost(as.ThroughputPerCostUnit))
		if a.OpsPerUser > 0 {
			row = append(row, num(as.UsersSupported))
		}
		row = append(row, checksCell(as.Checks))
		t.Add(row...)
	}
	return t
}

func perCost(v float64) string {
	if v == 0 {
		return "—"
	}
	return num(v)
}

func checksCell(cs []Check) string {
	if len(cs) == 0 {
		return "none"
	}
	if f := failedChecks(cs); f != "" {
		return "❌ " + f
	}
	return "✅ all pass"
}

// WriteStages renders one row per stage: what it needs, the choice and
// its headroom, and every candidate's verdict.
func WriteStages(w io.Writer, a Answer, md bool) error {
	return write(StagesTable(a, md), w, md)
}

// StagesTable is the table WriteStages writes.
func StagesTable(a Answer, md bool) *texttable.Table {
	if a.Paced {
		return pacedStagesTable(a, md)
	}
	cols := []string{"stage", ">users", ">needs ops/s", "recommended", ">headroom"}
	for _, as := range a.Assessments {
		cols = append(cols, as.Name)
	}
	t := texttable.New(cols...)
	c := cells(md)
	for j, r := range a.Stages {
		users := c.Missing
		if r.Stage.Users > 0 {
			users = num(r.Stage.Users)
		}
		choice, head, need := "none passes", c.Missing, num(r.Required)
		switch {
		case r.NotCalibrated != "":
			choice, need = "demand not calibrated", c.Missing
		case r.Choice != "":
			choice, head = r.Choice, pct(r.Headroom)
		}
		row := []string{r.Stage.Name, users, need, choice, head}
		for _, as := range a.Assessments {
			f := as.Stages[j]
			switch {
			case r.NotCalibrated != "":
				row = append(row, c.Missing)
			case f.Pass:
				row = append(row, "✅ "+pct(f.Headroom))
			case f.Carries:
				row = append(row, "❌ constraints")
			default:
				row = append(row, "❌ capacity")
			}
		}
		t.Add(row...)
	}
	return t
}

// Verdicts returns one quotable line per stage: the recommendation
// against the baseline, then each rejected candidate and why.
func Verdicts(a Answer) []string {
	if a.Paced {
		return pacedVerdicts(a)
	}
	base := a.find(a.Baseline)
	var out []string
	for _, r := range a.Stages {
		need := num(r.Required) + " ops/s"
		if r.Stage.Users > 0 {
			need = num(r.Stage.Users) + " users, " + need
		}
		if r.NotCalibrated != "" {
			out = append(out, fmt.Sprintf("%s (%s users): no answer: %s.", r.Stage.Name, num(r.Stage.Users), r.NotCalibrated))
			continue
		}
		switch r.Choice {
		case "":
			out = append(out, fmt.Sprintf("%s (%s): no candidate passes.", r.Stage.Name, need))
		case base.Name:
			out = append(out, fmt.Sprintf("%s (%s): %s, the baseline, carries it with %s headroom.",
				r.Stage.Name, need, base.Name, pct(r.Headroom)))
		default:
			ch := a.find(r.Choice)
			out = append(out, fmt.Sprintf("%s (%s): %s, %s throughput for %s money than %s, %s headroom.",
				r.Stage.Name, need, ch.Name, relative(ch.Throughput, base.Throughput, "more", "less"),
				relative(ch.Monthly, base.Monthly, "more", "less"), base.Name, pct(r.Headroom)))
		}
		out = append(out, rejectedLine(r)...)
	}
	return out
}

// rejectedLine is a stage's rejected candidates, each with why, as one
// indented line; none when no candidate was rejected.
func rejectedLine(r Recommendation) []string {
	var rej []string
	for _, x := range r.Rejected {
		rej = append(rej, x.Candidate+": "+x.Reason)
	}
	if len(rej) == 0 {
		return nil
	}
	return []string{"  rejected: " + strings.Join(rej, "; ") + "."}
}

// relative says "160% more" or "12% less" or "the same".
func relative(v, base float64, more, less string) string {
	if base == 0 {
		return "unknown"
	}
	d := v/base - 1
	switch {
	case d > 0.0005:
		return pct(d) + " " + more
	case d < -0.0005:
		return pct(-d) + " " + less
	}
	return "the same"
}

func (a Answer) find(name string) Assessment {
	for _, as := range a.Assessments {
		if as.Name == name {
			return as
		}
	}
	return Assessment{}
}

func cells(md bool) texttable.Cells {
	if md {
		return texttable.MarkdownCells
	}
	return texttable.TextCells
}

func write(t *texttable.Table, w io.Writer, md bool) error {
	if md {
		return t.WriteMarkdown(w)
	}
	return t.WriteText(w, true)
}
