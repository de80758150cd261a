package htmlreport

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/textreport"
	"github.com/mongobench/mongobench/internal/texttable"
)

// TestStudyPage renders a study's view: the verdict in the headline
// before the charts, a chart with data drawn by the page, one with only
// an SVG inlined, the details' tables with missing figures marked, and
// the runs' Markdown reports linked as their HTML twins.
func TestStudyPage(t *testing.T) {
	tb := texttable.New("step", ">p99 ms")
	tb.Add("1", "")
	one := 1.0
	v := &report.StudyView{Title: "Sweep <x>", Name: "sweep-x",
		Intro:   []report.Block{{Text: "A step holds when p99 ≤ 20 ms."}},
		Verdict: []report.Block{{Text: "Maximum throughput that held: 1,000 ops/s."}},
		Charts: []report.StudyChart{
			{Name: "sweep-p99", Caption: "p99 against target", Plot: &report.Plot{Title: "p99", X: []float64{1000}, Lines: []report.Line{{Label: "r6g", Y: []*float64{&one}}}}},
			report.StudyChart{Name: "bars"}.WithSVG(func() ([]byte, error) { return []byte("<svg/>"), nil }),
		},
		Sections: []report.Section{{Title: "Steps", Blocks: []report.Block{{Table: tb}}}},
		Runs:     []report.Link{{Text: "run-01", Href: "run-01.md"}},
	}
	var b bytes.Buffer
	if err := Study(&b, v, nil); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"<h1>Sweep &lt;x&gt;</h1>", `id="headline"`, "Maximum throughput that held", `data-chart="0"`, `"label":"r6g"`,
		`<img class="mb-img" alt="bars" src="data:image/svg&#43;xml;base64,`, `class="n missing">—</td>`, `href="run-01.html"`} {
		if !strings.Contains(page, want) {
			t.Errorf("page lacks %s", want)
		}
	}
	if h, c := strings.Index(page, `id="headline"`), strings.Index(page, `class="mb-chart"`); h < 0 || c < h {
		t.Errorf("the verdict (at %d) does not come before the first chart (at %d)", h, c)
	}
	var txt bytes.Buffer
	if err := textreport.Study(&txt, v); err != nil {
		t.Fatal(err)
	}
	if got := txt.String(); !strings.HasPrefix(got, "Maximum throughput that held") || !strings.Contains(got, "Steps\n\nstep  p99 ms\n1          —\n") {
		t.Errorf("terminal view:\n%s", got)
	}
}
