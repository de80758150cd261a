package changes

import (
	"fmt"
	"slices"

	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/significance"
)

// View is the report of the changes cs found in series: the changes'
// table first, then a chart per series and metric with a change, each
// run's value (oldest left) with the suspect range of each change point
// shaded and a dot on its first changed run.
func View(series []Series, cs []Change) *report.StudyView {
	v := &report.StudyView{Title: "Changes over stored runs", Name: "changes",
		Intro: []report.Block{{Text: fmt.Sprintf("%d change(s) in %d series; each point is one run's value, the shaded band the suspect range of a change point.", len(cs), len(series))}},
	}
	if len(cs) == 0 {
		v.Verdict = []report.Block{{Text: "No change point in the series.", Strong: true}}
		return v
	}
	v.Verdict = []report.Block{{Table: Table(cs)}}
	if notes := HostNotes(cs); len(notes) > 0 {
		v.Verdict = append(v.Verdict, report.Block{Items: notes})
	}
	for _, c := range cs {
		for _, s := range series {
			if s.Key.String() == c.Series.String() {
				v.Sections = append(v.Sections, report.Section{Title: "The client host across " + c.ID, Blocks: []report.Block{
					{Text: fmt.Sprintf("The runs %s compared (%s, %s), each beside the client host's canary: %s.", c.ID, s.Key.String(), c.Metric, hostWords(c.ClientHost))},
					{Table: ChangeCanaryTable(s, c)}}})
			}
		}
	}
	for _, s := range series {
		for _, m := range s.Metrics() {
			if c, ok := Chart(s, cs, m); ok && changed(s, cs, m) {
				c.Name = s.Key.String() + "-" + m
				c.Plot.Title = s.Key.String() + ": " + m
				v.Charts = append(v.Charts, c)
			}
		}
	}
	return v
}

// SeriesView is one series' page: a chart of each of its metrics, with
// the changes cs found in it, then their table (with whether the client
// host moved across each), then each run beside the client host's
// canary.
func SeriesView(s Series, cs []Change, intro string) *report.StudyView {
	v := &report.StudyView{Title: "Series: " + s.Key.String(), Name: "series", Intro: []report.Block{{Text: intro}}}
	for _, m := range s.Metrics() {
		if c, ok := Chart(s, cs, m); ok {
			v.Charts = append(v.Charts, c)
		}
	}
	if len(cs) > 0 {
		cs = slices.Clone(cs)
		WithClientHost([]Series{s}, cs)
		blocks := []report.Block{{Table: Table(cs)}}
		if notes := HostNotes(cs); len(notes) > 0 {
			blocks = append(blocks, report.Block{Items: notes})
		}
		v.Sections = []report.Section{{Title: "Changes", Blocks: blocks}}
	}
	v.Sections = append(v.Sections, report.Section{Title: "The client host's canary", Blocks: []report.Block{
		{Text: "Each run beside the noise canary of its client host (the median of the readings taken before and after it; docs/validity.md): a figure that moves with a metric says the client host, not the server, moved."},
		{Table: CanaryTable(s)}}})
	return v
}

// hostWords words a change's ClientHost in a sentence.
func hostWords(h string) string {
	switch h {
	case "":
		return "the runs on one side carry no canary, so the client host cannot be judged"
	case Steady:
		return "no canary figure moved across the change: the client host was steady"
	}
	return h
}

// changed reports whether cs holds a change of the metric of series s.
func changed(s Series, cs []Change, metric string) bool {
	for _, c := range cs {
		if c.Metric == metric && c.Series.String() == s.Key.String() {
			return true
		}
	}
	return false
}

// Chart is the chart of one metric of a series: each run's value, oldest
// first, the suspect range of each of cs's changes of that metric shaded
// and its first changed run dotted; ok is false when the series has no
// value of the metric.
func Chart(s Series, cs []Change, metric string) (report.StudyChart, bool) {
	runs, vals := s.Values(metric)
	var mine []Change
	for _, c := range cs {
		if c.Metric == metric && c.Series.String() == s.Key.String() {
			mine = append(mine, c)
		}
	}
	if len(runs) == 0 {
		return report.StudyChart{}, false
	}
	unit := ""
	if mm, err := significance.ParseMetric(metric); err == nil {
		unit = mm.Unit
	}
	x, ys, marks := make([]float64, len(vals)), make([]*float64, len(vals)), make([]*float64, len(vals))
	at := map[string]int{}
	for i, v := range vals {
		x[i], ys[i] = float64(i+1), ptr(v)
		at[runs[i].ID] = i
	}
	caption := fmt.Sprintf("%d runs, oldest left; %d change point(s).", len(runs), len(mine))
	p := &report.Plot{Title: metric, XLabel: "run (oldest first)", YLabel: unit, Unit: unit, X: x}
	for _, c := range mine {
		if c.Unit != "" {
			p.Unit, p.YLabel = c.Unit, c.Unit
		}
		if i, ok := at[c.FirstChanged.ID]; ok {
			marks[i] = ptr(vals[i])
			p.Shade = append(p.Shade, [2]float64{float64(i), float64(i + 1)})
		}
		caption += fmt.Sprintf(" %s %s %s: %s → %s (p %s, %s, %s).", c.ID, c.Direction, Percent(c.Change), c.LastStable.ID, c.FirstChanged.ID, significance.PText2(c.P), c.Status, c.StageName())
	}
	p.Lines = []report.Line{{Label: metric, Y: ys, Points: true}, {Label: "first changed run", Y: marks, Color: 1, Points: true}}
	return report.StudyChart{Name: metric, Caption: caption, Plot: p}, true
}

func ptr(v float64) *float64 { return &v }
