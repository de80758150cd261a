package htmlreport

import (
	"bytes"
	"io"

	"github.com/mongobench/mongobench/internal/report"
)

// ftdcIntro introduces an FTDC window's charts.
const ftdcIntro = "The same figures second by second, on one time axis (the cursors move together); the seconds in which a checkpoint ran are shaded. " +
	"Drag to zoom, double-click to zoom out, click a legend entry to hide its line."

// FTDC writes the page of a window of FTDC samples: the summary's text
// and table, then its charts over time, drawn as a run's are.
func FTDC(w io.Writer, s report.FTDCSummary, charts []report.TimeChart) error {
	var md bytes.Buffer
	if err := s.WriteMarkdown(&md); err != nil {
		return err
	}
	p := &page{title: "FTDC " + s.Path, markdown: md.Bytes()}
	if len(charts) > 0 {
		sec := section{heading: "Over time", intro: ftdcIntro}
		for _, tc := range charts {
			c := timeChart(tc)
			c.Height = telemetryHeight
			sec.charts = append(sec.charts, c)
		}
		p.extra = append(p.extra, sec)
	}
	return p.write(w)
}
