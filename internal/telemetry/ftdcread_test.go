package telemetry

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/diagnosis"
	"github.com/mongobench/mongobench/internal/result"
)

// A window of FTDC files gives the figures of the pairs of samples
// within it, counts its samples, and stops with its context.
func TestFTDCReadWindow(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	dir := writeFTDC(t, ftdcStates(true), t0)
	var ends []time.Time
	n := 0
	info, err := FTDCRead{Path: dir}.Figures(context.Background(), func(f Figures) { ends = append(ends, f.End) }, func(k int) { n += k })
	if err != nil || len(ends) != 11 || n != 12 || len(info.Versions) != 1 {
		t.Fatalf("the whole file: %d figures, %d samples, %+v, %v; want 11 and 12", len(ends), n, info, err)
	}
	r := FTDCRead{Path: dir, From: t0.Add(3 * time.Second), To: t0.Add(8 * time.Second)}
	ends, n = nil, 0
	if _, err := r.Figures(context.Background(), func(f Figures) { ends = append(ends, f.End) }, func(k int) { n += k }); err != nil {
		t.Fatal(err)
	}
	if len(ends) != 5 || !ends[0].Equal(t0.Add(4*time.Second)) || !ends[4].Equal(t0.Add(8*time.Second)) || n != 6 {
		t.Errorf("seconds 3 to 8: figures ending %v, %d samples; want 5 figures and 6 samples", ends, n)
	}
	samples, err := r.Samples(context.Background())
	if err != nil || len(samples) != 6 || !samples[0].Time.Equal(r.From) || !samples[5].Time.Equal(r.To) {
		t.Errorf("samples of seconds 3 to 8: %d, %v", len(samples), err)
	}
	for i := 1; i < len(samples); i++ {
		if !samples[i].Time.After(samples[i-1].Time) {
			t.Errorf("sample %d at %v after %v: want each once, in order", i, samples[i].Time, samples[i-1].Time)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Samples(ctx); err == nil {
		t.Error("a cancelled read: no error")
	}
}

// AttachFTDC adds the window's series to a run, keeps the run's own,
// notes it and diagnoses the run again; too few samples say what to
// check.
func TestAttachFTDC(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	dir := writeFTDC(t, ftdcStates(true), t0)
	d := &result.Doc{RunID: "r1", Start: t0.Add(2 * time.Second), End: t0.Add(9 * time.Second)}
	d.Metrics.Measurements = []result.Series{{Name: result.CPUUser, Source: "local"}}
	from, to := RunWindow(d)
	if !from.Equal(t0.Add(time.Second)) || !to.Equal(t0.Add(10*time.Second)) {
		t.Errorf("window %v to %v", from, to)
	}
	samples, err := FTDCRead{Path: dir, From: from, To: to}.Samples(context.Background())
	if err != nil || len(samples) != 10 {
		t.Fatalf("%d samples, %v", len(samples), err)
	}
	if err := AttachFTDC(d, samples, dir, diagnosis.Limits{}); err != nil {
		t.Fatal(err)
	}
	if i := slices.IndexFunc(d.Metrics.Measurements, func(s result.Series) bool { return s.Name == result.CPUUser }); d.Metrics.Measurements[i].Source != "local" {
		t.Errorf("the run's own %s replaced", result.CPUUser)
	}
	if len(d.Metrics.Measurements) < 2 || len(d.Notes) != 1 || !strings.Contains(d.Notes[0], "10 samples, attached after the run: ") ||
		!strings.Contains(d.Notes[0], "the run's own "+result.CPUUser+" kept") {
		t.Errorf("series %d, notes %q", len(d.Metrics.Measurements), d.Notes)
	}
	if d.Diagnosis == nil {
		t.Error("no diagnosis")
	}
	// attaching twice changes nothing: the series replaced, one note
	series, note := len(d.Metrics.Measurements), d.Notes[0]
	if err := AttachFTDC(d, samples, dir, diagnosis.Limits{}); err != nil {
		t.Fatal(err)
	}
	if len(d.Metrics.Measurements) != series || !slices.Equal(d.Notes, []string{note}) {
		t.Errorf("attached twice: %d series (want %d), notes %q (want only %q)", len(d.Metrics.Measurements), series, d.Notes, note)
	}
	err = AttachFTDC(&result.Doc{RunID: "r2", Start: t0, End: t0.Add(time.Second)}, samples[:1], dir, diagnosis.Limits{})
	if err == nil || !strings.Contains(err.Error(), "no FTDC samples of run r2's measured phase (2026-03-01T12:00:00Z to 2026-03-01T12:00:01Z)") {
		t.Errorf("one sample: %v", err)
	}
}

// Right after a run (--ftdc): the window's samples attached, with the
// seconds the files do not hold yet said; a window without samples, or
// files that cannot be read, leave the run as it was with one note.
func TestAttachRunFTDC(t *testing.T) {
	t0 := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	dir := writeFTDC(t, ftdcStates(true), t0) // samples at seconds 0 to 11; the window from second 4
	d := &result.Doc{RunID: "r1", Start: t0.Add(5 * time.Second), End: t0.Add(15 * time.Second)}
	note := AttachRunFTDC(context.Background(), d, dir, diagnosis.Limits{})
	if d.Metrics.Series(result.CheckpointRunning) == nil || len(d.Notes) != 1 || d.Notes[0] != note || strings.Contains(note, "\n") ||
		!strings.Contains(note, "8 samples, attached after the run") ||
		!strings.Contains(note, "the files hold the run's seconds up to 2026-03-01T12:00:11Z, 4s before its end") {
		t.Fatalf("notes %q", d.Notes)
	}
	for _, c := range []struct{ path, want string }{
		{dir, "--ftdc " + dir + ": no FTDC sample in the run's window (2026-03-01T12:59:59Z to 2026-03-01T13:00:11Z)"},
		{dir + "/missing", "--ftdc " + dir + "/missing: the run's FTDC samples were not attached: "},
	} {
		d := &result.Doc{RunID: "r2", Start: t0.Add(time.Hour), End: t0.Add(time.Hour + 10*time.Second)}
		note := AttachRunFTDC(context.Background(), d, c.path, diagnosis.Limits{})
		if !strings.HasPrefix(note, c.want) || strings.Contains(note, "\n") || len(d.Notes) != 1 || len(d.Metrics.Measurements) != 0 || d.Diagnosis != nil {
			t.Errorf("note %q, %d series: want %q and nothing attached", note, len(d.Metrics.Measurements), c.want)
		}
	}
}
