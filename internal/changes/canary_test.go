package changes

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/result"
)

// quietCanary and loadedCanary are the canary's medians measured on the
// shared machine as it was, and with two busy loops beside it
// (bench/RESULTS.md, bench/canary.sh).
func quietCanary() *result.Canary {
	return &result.Canary{CPUNs: result.F(2.61), MemNs: result.F(157), LoopbackP50Us: result.F(16.9), LoopbackP99Us: result.F(99.5),
		WakeP50Us: result.F(32.3), WakeP99Us: result.F(350)}
}

func loadedCanary() *result.Canary {
	return &result.Canary{CPUNs: result.F(5.17), MemNs: result.F(434), LoopbackP50Us: result.F(17), LoopbackP99Us: result.F(975),
		WakeP50Us: result.F(29.4), WakeP99Us: result.F(1470)}
}

// A step in throughput on night 25 is a change either way; the look says
// the client host moved across it when the nights from 25 on carry the
// loaded machine's canary, steady when every night's is the quiet one,
// and cannot say without canaries. The series page shows each night
// beside its canary.
func TestChangeSaysWhenTheClientHostMoved(t *testing.T) {
	step := func(i int) float64 {
		if i >= 25 {
			return 900
		}
		return 1000
	}
	look := Look{Tags: []string{"ci"}, Options: Options{Window: 50, P: 0.001}}
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	for _, tc := range []struct {
		name   string
		canary func(i int) *result.Canary
		host   string
		words  string
	}{
		{"loaded from the step", func(i int) *result.Canary {
			if i >= 25 {
				return loadedCanary()
			}
			return quietCanary()
		}, "moved", "the client host was noisier for the runs from run025 than for the runs before run025 (cpuNsPerStep 2.61 → 5.17 ns"},
		{"quiet throughout", func(int) *result.Canary { return quietCanary() }, Steady, ""},
		{"no canary", func(int) *result.Canary { return nil }, "—", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			docs := nights(40, step, same)
			for i := range docs {
				if c := tc.canary(i); c != nil {
					docs[i].Canary = &result.Noise{Before: c, After: c}
				}
			}
			f, err := look.Run(context.Background(), docs, nil, now)
			if err != nil || len(f.Shown) != 1 {
				t.Fatalf("found %+v, %v: want the one step", f.Shown, err)
			}
			c := f.Shown[0]
			row := Table(f.Shown).Rows()[0]
			if got := row[len(row)-1]; got != tc.host {
				t.Errorf("client host column %q, want %q (%q)", got, tc.host, c.ClientHost)
			}
			var b strings.Builder
			if err := f.WriteText(&b); err != nil {
				t.Fatal(err)
			}
			if tc.words != "" && (!strings.Contains(c.ClientHost, tc.words) || !strings.Contains(b.String(), c.ID+": "+tc.words)) {
				t.Errorf("client host %q, text %q; want %q", c.ClientHost, b.String(), tc.words)
			}
			if tc.words == "" && len(HostNotes(f.Shown)) != 0 {
				t.Errorf("notes %v, want none", HostNotes(f.Shown))
			}
			v := SeriesView(f.Series[0], f.Shown, "")
			last := v.Sections[len(v.Sections)-1]
			rows := last.Blocks[1].Table.Rows()
			if len(rows) != 40 || rows[25][0] != "run025" {
				t.Fatalf("canary table of %d rows (%v), want one per night", len(rows), rows[25])
			}
			want := map[string]string{"loaded from the step": "5.17", "quiet throughout": "2.61", "no canary": "—"}[tc.name]
			if rows[25][2] != want {
				t.Errorf("night 25's cpuNsPerStep %q, want %q", rows[25][2], want)
			}
		})
	}
}
