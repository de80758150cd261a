package telemetry

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mongobench/mongobench/internal/diagnosis"
	"github.com/mongobench/mongobench/internal/ftdc"
	"github.com/mongobench/mongobench/internal/result"
)

// FTDCRead is a window of a server's FTDC files: its diagnostic.data
// directory or one metrics.* file, read from From to To. A zero time
// leaves that side open unless FromSet or ToSet says it is a bound (a
// sample in year 1 is a sample like another).
type FTDCRead struct {
	Path           string
	From, To       time.Time
	FromSet, ToSet bool
	// Progress, when set, is told how many bytes of the files have been
	// read, and their total.
	Progress func(done, total int64)
}

// FTDCVisit is what a read of a window calls, each when set.
type FTDCVisit struct {
	// Sample is called with the time of each sample in the window, in
	// order (a sample at or before the previous one's time is left out).
	Sample func(at time.Time)
	// Figure is called with the figures of each interval: two
	// consecutive samples of the window (FigureOf).
	Figure func(Figures)
	// Gap is called with each two consecutive samples of the window too
	// far apart to be an interval (FTDCPairs).
	Gap func(from, to time.Time)
	// Stale is called with the time of each sample of the window at or
	// before the previous sample's time: it makes no interval.
	Stale func(at time.Time)
}

// Figures reads the window and calls figure with the figures of each two
// consecutive samples in it (FigureOf), and samples with 1 for each
// sample in it. The read ends with ctx.
func (r FTDCRead) Figures(ctx context.Context, figure func(Figures), samples func(int)) (ftdc.Info, error) {
	return r.Visit(ctx, FTDCVisit{Figure: figure, Sample: func(time.Time) { samples(1) }})
}

// Visit reads the window, calling v's functions.
func (r FTDCRead) Visit(ctx context.Context, v FTDCVisit) (ftdc.Info, error) {
	return r.pairs(ctx, func(before, after Sample) {
		if v.Figure != nil {
			v.Figure(FigureOf(before, after))
		}
	}, v.Sample, v.Gap, v.Stale)
}

// Samples reads the window's samples that pair with a neighbour, in
// order, each once.
func (r FTDCRead) Samples(ctx context.Context) ([]Sample, error) {
	var out []Sample
	_, err := r.pairs(ctx, func(before, after Sample) {
		if len(out) == 0 || !out[len(out)-1].Time.Equal(before.Time) {
			out = append(out, before)
		}
		out = append(out, after)
	}, nil, nil, nil)
	return out, err
}

// in says whether t is in the window.
func (r FTDCRead) in(t time.Time) bool {
	if (r.FromSet || !r.From.IsZero()) && t.Before(r.From) {
		return false
	}
	bounded := r.ToSet || !r.To.IsZero()
	return !bounded || !t.After(r.To)
}

// ctxEvery is how many samples are read between two looks at the
// context: a chunk may hold a million.
const ctxEvery = 4096

// pairs calls pair with each two consecutive samples in the window,
// across chunks (FTDCPairs), sample with each sample's time and gap with
// each gap.
func (r FTDCRead) pairs(ctx context.Context, pair func(before, after Sample), sample func(time.Time), gap func(from, to time.Time), stale func(time.Time)) (ftdc.Info, error) {
	files, err := ftdc.Files(r.Path)
	if err != nil {
		return ftdc.Info{}, err
	}
	var pairs FTDCPairs
	if stale != nil {
		pairs.Stale = func(s Sample) {
			if r.in(s.Time) {
				stale(s.Time)
			}
		}
	}
	n := 0
	scan := ftdc.Scan{Files: files, From: r.From, To: r.To, FromSet: r.FromSet, ToSet: r.ToSet, Progress: r.Progress}
	inPair := func(before, after Sample) {
		if r.in(before.Time) && r.in(after.Time) {
			pair(before, after)
		}
	}
	inGap := func(before, after Sample) {
		if gap != nil && r.in(before.Time) && r.in(after.Time) {
			gap(before.Time, after.Time)
		}
	}
	info, err := scan.Run(func(c *ftdc.Chunk, _ ftdc.Document) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		return pairs.Each(c, func(s Sample) error {
			if n++; n%ctxEvery == 0 {
				if err := ctx.Err(); err != nil {
					return err
				}
			}
			if sample != nil && r.in(s.Time) {
				sample(s.Time)
			}
			return nil
		}, inPair, inGap)
	})
	if err == nil {
		pairs.Flush(inPair, inGap)
	}
	return info, err
}

// RunWindow is the window of FTDC samples of d's measured phase: a second
// either side, so its first and last seconds have both their bounds.
func RunWindow(d *result.Doc) (from, to time.Time) {
	return d.Start.Add(-time.Second), d.End.Add(time.Second)
}

// attachedNote opens the note AttachFTDC adds.
const attachedNote = "series from the server's FTDC files "

// AttachFTDC puts samples, read from the FTDC files at path over d's
// RunWindow, into d's series (FTDCSeries, Attach), notes it, and
// diagnoses d again against limits. Its one error is too few samples:
// files that do not hold the run's seconds.
func AttachFTDC(d *result.Doc, samples []Sample, path string, limits diagnosis.Limits) error {
	if len(samples) < 2 {
		return fmt.Errorf("%s: no FTDC samples of run %s's measured phase (%s to %s): is it the directory of the server the run measured, and does it still hold those seconds?",
			path, d.RunID, d.Start.UTC().Format(time.RFC3339), d.End.UTC().Format(time.RFC3339))
	}
	from, to := RunWindow(d)
	added, kept := Attach(&d.Metrics, FTDCSeries(samples, from, to))
	note := fmt.Sprintf("%s(%s), %d samples, attached after the run: %s", attachedNote, path, len(samples), strings.Join(added, ", "))
	if len(kept) > 0 {
		note += "; the run's own " + strings.Join(kept, ", ") + " kept"
	}
	// an earlier attach's note goes with the series it attached
	d.Notes = slices.DeleteFunc(d.Notes, func(n string) bool { return strings.HasPrefix(n, attachedNote) })
	d.Notes = append(d.Notes, note)
	d.Diagnosis = diagnosis.Diagnose(d, limits)
	return nil
}

// AttachRunFTDC reads the FTDC files at path over d's RunWindow and
// attaches them to d (AttachFTDC) right after the run: the measuring
// commands' --ftdc, for a server on this host. The files never cost the
// run: a directory without a sample of the window (a server that has not
// written its newest seconds yet, another server's directory) or a read
// that fails leaves d as it was, with a one-line note saying so. It
// returns the note added.
func AttachRunFTDC(ctx context.Context, d *result.Doc, path string, limits diagnosis.Limits) string {
	r := FTDCRead{Path: path}
	r.From, r.To = RunWindow(d)
	samples, err := r.Samples(ctx)
	var note string
	switch {
	case err != nil:
		note = fmt.Sprintf("--ftdc %s: the run's FTDC samples were not attached: %v", path, oneLine(err))
	case len(samples) < 2:
		note = fmt.Sprintf("--ftdc %s: no FTDC sample in the run's window (%s to %s): is it the directory of the server the run measured? (a server writes its newest seconds to metrics.interim every 10 samples by default; 'mongobench results attach-ftdc %s %s' attaches them later)",
			path, r.From.UTC().Format(time.RFC3339), r.To.UTC().Format(time.RFC3339), d.RunID, path)
	default:
		_ = AttachFTDC(d, samples, path, limits) // its one error is too few samples
		note = d.Notes[len(d.Notes)-1]
		if last := samples[len(samples)-1].Time; last.Before(d.End) {
			note += fmt.Sprintf("; the files hold the run's seconds up to %s, %s before its end (the server had not written its newest samples yet: 'mongobench results attach-ftdc %s %s' attaches them later)",
				last.UTC().Format(time.RFC3339), d.End.Sub(last).Round(time.Second), d.RunID, path)
			d.Notes[len(d.Notes)-1] = note
		}
		return note
	}
	d.Notes = append(d.Notes, note)
	return note
}

// oneLine is err's message on one line.
func oneLine(err error) string { return strings.Join(strings.Fields(err.Error()), " ") }
