package textreport

import (
	"bytes"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/result"
)

// TestScheduleWithoutDropBound: a schedule that drops nothing however
// late (a replay's, whose dropBoundMs is absent) says so, and never
// prints a bound.
func TestScheduleWithoutDropBound(t *testing.T) {
	d := openDoc()
	d.Schedule.DropBound, d.Schedule.Dropped = 0, 0
	var text bytes.Buffer
	if err := Summary(&text, d); err != nil {
		t.Fatal(err)
	}
	md, _, err := renderMarkdown(d, "charts")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(text.String(), "never dropped") || strings.Contains(text.String(), "dropped >") {
		t.Errorf("summary: want \"never dropped\" and no bound:\n%s", text.String())
	}
	if !strings.Contains(string(md), "| 10.0 | never |") {
		t.Errorf("Markdown schedule: want the drop bound \"never\":\n%s", md)
	}
}

// TestReportShowsAReplaysShapesSlowerFirst: the report of any run with a
// replay section has its query shapes, the one whose p99 grew most
// first, a shape without a recorded p99 last, missing figures blank.
func TestReportShowsAReplaysShapesSlowerFirst(t *testing.T) {
	d := openDoc()
	d.Ops = []result.OpStats{op("S1 find shop.orders", 900, 40, 1), op("S2 insert shop.orders", 100, 40, 2), op("S3 ping admin", 10, 40, 1)}
	d.Replay = &result.Replay{Recording: "shop.rec", Speed: 2, Connections: 3, Requests: 1010, SpanMs: 80000, RecordedRate: f(12.6),
		Shapes: []result.ReplayShape{
			{Op: "S1 find shop.orders", Requests: 900, Share: 0.891, Recorded: dist(900, 2), RecordedDocs: result.Ptr(int64(1800)), ReplayedDocs: result.Ptr(int64(1800)), Sent: 900},
			{Op: "S2 insert shop.orders", Requests: 100, Share: 0.099, Recorded: dist(100, 0.5), Sent: 100},
			{Op: "S3 ping admin", Requests: 10, Share: 0.0099, Sent: 10},
		}}
	md, _, err := renderMarkdown(d, "charts")
	if err != nil {
		t.Fatal(err)
	}
	text := string(md)
	at := func(s string) int {
		i := strings.Index(text, s)
		if i < 0 {
			t.Fatalf("Markdown: no %q in\n%s", s, text)
		}
		return i
	}
	text = text[at("Query shapes (replay)"):] // the operations table above names the shapes too
	at("A replay of shop.rec at ×2: 1010 requests on 3 connections")
	// S2's p99 went from 1.85 to 7.4 ms (×4.00), S1's from 7.4 to 3.7 (×0.50).
	s2, s1, s3 := at("| S2 insert shop.orders | 100 |"), at("| S1 find shop.orders | 900 |"), at("| S3 ping admin | 10 |")
	if s2 > s1 || s1 > s3 {
		t.Errorf("Markdown: want S2 (×4), S1 (×0.5), S3 (no recorded p99):\n%s", text)
	}
	if !strings.Contains(text, "| 4.00 |") || !strings.Contains(text, "| 1800 | 1800 |") {
		t.Errorf("Markdown: want S2's ratio 4.00 and S1's documents 1800 recorded and replayed:\n%s", text)
	}
	d.Replay = nil
	if md, _, _ := renderMarkdown(d, "charts"); bytes.Contains(md, []byte("Query shapes")) {
		t.Error("Markdown: a run without a replay shows query shapes")
	}
}
