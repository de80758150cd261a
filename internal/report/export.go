package report

import "github.com/mongobench/mongobench/internal/result"

// What other renderers of a run (the HTML report) draw from the same
// document as the SVG charts, so that both show the same series.

// OpNames lists the operation types of the run in the order of d.Ops,
// followed by any that appear only in intervals.
func OpNames(d *result.Doc) []string { return opNames(d) }

// IntervalEnd is the end of an interval in seconds from the start of the
// measured phase.
func IntervalEnd(d *result.Doc, iv result.Interval) float64 { return intervalEnd(d, iv) }

// IsOpen reports whether the run was paced (open loop).
func IsOpen(d *result.Doc) bool { return isOpen(d) }

// TelemetryLine is one telemetry key drawn as a line.
type TelemetryLine struct {
	Key   string  // interval key, as documented in internal/telemetry
	Host  bool    // read from Interval.Host rather than Interval.Server
	Name  string  // legend name
	Scale float64 // multiplies the recorded value into the panel's unit
}

// TelemetryPanel is a group of telemetry lines that share a unit, as
// the telemetry chart draws them, top to bottom.
type TelemetryPanel struct {
	YLabel string
	Lines  []TelemetryLine
	// Checkpoints: the panel also marks the intervals in which
	// checkpoints completed.
	Checkpoints bool
	// OmitZero: a line that is zero in every interval is left out.
	OmitZero bool
}

// TelemetryPanels returns the telemetry chart's panels below its latency
// panel.
func TelemetryPanels() []TelemetryPanel {
	out := make([]TelemetryPanel, len(telemetryPanels))
	for i, p := range telemetryPanels {
		out[i] = TelemetryPanel{YLabel: p.yLabel, Checkpoints: p.checkpoints, OmitZero: p.omitZero}
		for _, s := range p.series {
			out[i].Lines = append(out[i].Lines, TelemetryLine{Key: s.key, Host: s.host, Name: s.name, Scale: s.scale})
		}
	}
	return out
}

// CheckpointSpans returns the time ranges, in seconds into the measured
// phase, of consecutive intervals in which a checkpoint ran; nil when
// none did.
func CheckpointSpans(d *result.Doc) [][2]float64 {
	if s := checkpointSpans(d); s != nil {
		return *s
	}
	return nil
}
