package telemetry

import (
	"context"
	"math"
	"slices"
	"testing"
	"time"
)

// realFTDC is a real mongod's FTDC file (MongoDB 4.0.4, standalone,
// Windows; internal/ftdc/testdata's README.md).
const realFTDC = "../ftdc/testdata/mongod-4.0.4-windows/metrics.2019-02-14T19-39-23Z-00000"

// The real file's figures, pinned from its counters: 600 samples a
// second apart make 599 intervals; its ten checkpoints each ran within
// one second (the running flag never seen up), so each is taken where
// WiredTiger counted it and its most recent time changed: 29, 28, 14,
// 13, 15 ms in the first chunk, 14, 13, 15, 8, 13 in the second; one
// command in ten minutes (opcounters.command 1 → 2); 128 read and 128
// write tickets; Windows's systemMetrics has none of Linux's CPU, disk
// and memory fields, so no host figure.
func TestRealFileFigures(t *testing.T) {
	var samples, intervals int
	var ckpt []float64
	var commands float64
	hostFigures := 0
	_, err := FTDCRead{Path: realFTDC}.Visit(context.Background(), FTDCVisit{
		Sample: func(time.Time) { samples++ },
		Figure: func(f Figures) {
			intervals++
			if ms, ok := f.Server[KeyCheckpointMs]; ok {
				ckpt = append(ckpt, ms)
			}
			commands += f.Server["commandPerSec"] * f.End.Sub(f.Start).Seconds()
			if f.Server[KeyTicketsTotal] != 256 {
				t.Errorf("%v: tickets %v, want 256", f.End, f.Server[KeyTicketsTotal])
			}
			hostFigures += len(f.Host)
		},
		Gap: func(from, to time.Time) {
			t.Errorf("a gap from %v to %v in a file of samples a second apart", from, to)
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if samples != 600 || intervals != 599 {
		t.Errorf("%d samples, %d intervals: want 600, 599", samples, intervals)
	}
	if want := []float64{29, 28, 14, 13, 15, 14, 13, 15, 8, 13}; !slices.Equal(ckpt, want) {
		t.Errorf("checkpoint durations %v, want %v", ckpt, want)
	}
	if math.Abs(commands-1) > 1e-9 || hostFigures != 0 {
		t.Errorf("%v commands, %d host figures: want 1 and none", commands, hostFigures)
	}
}
