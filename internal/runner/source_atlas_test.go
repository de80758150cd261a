package runner

import (
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/atlas"
	"github.com/mongobench/mongobench/internal/result"
)

func TestAtlasWindowAndArrival(t *testing.T) {
	t0 := time.Date(2026, 11, 24, 10, 0, 0, 0, time.UTC)
	at := func(s int, v *float64) result.DataPoint {
		return result.DataPoint{Timestamp: t0.Add(time.Duration(s) * time.Second), Value: v}
	}
	series := []result.Series{{Name: result.CPUUser, DataPoints: []result.DataPoint{
		at(-10, result.F(1)), at(0, result.F(2)), at(10, result.F(3)), at(20, nil), at(40, result.F(5)),
	}}}
	w := atlas.Window{Start: t0.Add(500 * time.Millisecond), End: t0.Add(30 * time.Second)}
	got := within(series, w)[0].DataPoints
	if len(got) != 3 || !got[0].Timestamp.Equal(t0) || !got[2].Timestamp.Equal(t0.Add(20*time.Second)) {
		t.Fatalf("within: got %+v, want the points at 0, 10 and 20 s", got)
	}
	if !arrived(series, w.End, 10*time.Second) {
		t.Error("a value at 10 s of a window ending at 30 s, granularity 10 s: want arrived")
	}
	late := []result.Series{{Name: result.CPUUser, DataPoints: []result.DataPoint{at(0, result.F(2)), at(10, nil), at(20, nil)}}}
	if arrived(late, w.End, 10*time.Second) {
		t.Error("only the first granule has a value: want not arrived yet")
	}
}
