package telemetry

import (
	"maps"
	"testing"
	"time"
)

// TestCompactStatusKeepsEveryFigure: the figures of compacted serverStatus
// documents are those of the whole ones, for mongod (7.0 and 8.0 sections),
// SecantusDB and a getDiagnosticData sample, and a compacted document
// is a small part of the whole.
func TestCompactStatusKeepsEveryFigure(t *testing.T) {
	for _, pair := range [][2]string{{"mongod-before.json", "mongod-after.json"}, {"secantus-before.json", "secantus-after.json"}} {
		before, after := loadStatus(t, pair[0]), loadStatus(t, pair[1])
		want := ServerFigures(before, after)
		cb, ca := before, after
		cb.Doc, ca.Doc = CompactStatus(before.Doc), CompactStatus(after.Doc)
		if got := ServerFigures(cb, ca); !maps.Equal(got, want) {
			t.Errorf("%s: compacted figures\n got %v\nwant %v", pair[1], got, want)
		}
		if len(want) == 0 {
			t.Errorf("%s: no figures to compare", pair[1])
		}
		if n, whole := leaves(ca.Doc), leaves(after.Doc); n*2 > whole {
			t.Errorf("%s: compacted to %d of %d values, want far fewer", pair[1], n, whole)
		}
	}
	if CompactStatus(nil) != nil {
		t.Error("a missing sample is compacted to a document")
	}
}

func leaves(doc map[string]any) int {
	n := 0
	for _, v := range doc {
		if sub, ok := v.(map[string]any); ok {
			n += leaves(sub)
		} else {
			n++
		}
	}
	return n
}

// TestThinKeepsOnePerGrain: samples a second apart thinned to a grain of
// ten seconds keep the one nearest each tenth second, every boundary mark
// and the newest.
func TestThinKeepsOnePerGrain(t *testing.T) {
	origin := time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC)
	var in []Sample
	for i := range 95 {
		in = append(in, Sample{Time: origin.Add(time.Duration(i) * time.Second)})
	}
	in = append(in[:50:50], append([]Sample{{Time: origin.Add(50500 * time.Millisecond), Mark: true}}, in[50:]...)...)
	out := Thin(in, origin, 10*time.Second)
	var got []string
	for _, s := range out {
		got = append(got, s.Time.Sub(origin).String())
	}
	want := []string{"0s", "10s", "20s", "30s", "40s", "50s", "50.5s", "1m0s", "1m10s", "1m20s", "1m30s", "1m34s"}
	if len(got) != len(want) {
		t.Fatalf("kept %v, want %v", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("kept %v, want %v", got, want)
		}
	}
}
