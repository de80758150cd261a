package report

import (
	"bytes"
	"testing"

	"github.com/mongobench/mongobench/internal/result"
)

func TestBarChart(t *testing.T) {
	svg, err := BarChart("throughput", "ops/s", "baseline", []Bar{
		{Name: "base", Value: result.F(8000), Marked: true},
		{Name: "a", Value: result.F(20800)},
		{Name: "unmeasured"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<svg", "base", "unmeasured", "baseline in orange"} {
		if !bytes.Contains(svg, []byte(want)) {
			t.Errorf("chart lacks %q", want)
		}
	}
	again, _ := BarChart("throughput", "ops/s", "baseline", []Bar{
		{Name: "base", Value: result.F(8000), Marked: true},
		{Name: "a", Value: result.F(20800)},
		{Name: "unmeasured"},
	})
	if !bytes.Equal(svg, again) {
		t.Error("the same bars rendered to different bytes")
	}
	if none, err := BarChart("t", "y", "", []Bar{{Name: "x"}}); none != nil || err != nil {
		t.Errorf("no values: got %d bytes, %v; want nil, nil", len(none), err)
	}
}
