package runner

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/mongobench/mongobench/internal/hostmap"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/telemetry"
)

// Sources is every telemetry source a run can read, in the default order:
// a member's host is read by the first source of the run's sources that
// reads it, and the sources read after the run add to (or replace) the
// series in this order. A new source is a file of its own (a type with
// the methods of Source and of one of its kinds) and one line here.
var Sources = []Source{
	nodeExporterSource{},
	procSource{},
	diagnosticDataSource{},
	atlasSource{},
	ftdcFilesSource{},
	connectionsSource{},
}

// When a source reads.
type When int

const (
	// During: every sampling interval while the run runs.
	During When = iota
	// After: once, after the measured phase, over its window.
	After
)

func (w When) String() string {
	if w == After {
		return "after the run"
	}
	return "during the run"
}

// A Source is one place a run's telemetry comes from. Its readings carry
// the source's mark as they always have (result.Series.Source:
// "serverStatus", "proc", "node_exporter", "ftdc", "atlas") and the
// run's granularity (or the source's own: Atlas's, FTDC's second).
// Besides these methods a source is one of three kinds: a hostSource or
// a seriesSource (during the run) or an afterSource.
type Source interface {
	// Name is the name the user chooses the source by (--telemetry).
	Name() string
	// Reads says what the source reads, and for which host or member.
	Reads() string
	// When is when it reads.
	When() When
	// Default says whether a run reads the source when the user does
	// not choose (it still reads nothing it is not configured for: a
	// node exporter needs --host-metrics, Atlas its project and cluster,
	// FTDC files --ftdc).
	Default() bool
}

// A hostSource reads, during the run, the hosts of the target's members
// (and a member's serverStatus too when its reader is a
// telemetry.StatusSource, which then gives both in one sample).
type hostSource interface {
	Source
	// hosts gives a reader to each member it reads that no source
	// before it reads (run.reads), through run.readMain and
	// run.readMember. Its error ends the run: a source the user named
	// that does not answer.
	hosts(ctx context.Context, r *run) error
}

// A seriesSource samples, during the run, figures of its own into series
// of their own, one point per sampling interval (gauges.go).
type seriesSource interface {
	Source
	// gauges are its series: their names, units and readings' keys.
	gauges() []gauge
	// mark is the source its series name (result.Series.Source).
	mark() string
	// open returns its reader for the run, nil when it has nothing to
	// read there; an error is the run's note that its series are
	// missing.
	open(ctx context.Context, r *run) (gaugeReader, error)
}

// An afterSource reads once the measured phase has ended, into the run's
// document (its series, notes and instance fields). It never fails the
// run: what it cannot read is missing, with a note.
type afterSource interface {
	Source
	after(ctx context.Context, r *run, d *result.Doc)
}

// SourceNames are the names of the sources, in the registry's order.
func SourceNames() []string {
	out := make([]string, len(Sources))
	for i, s := range Sources {
		out[i] = s.Name()
	}
	return out
}

// DefaultSourceNames are the names of the sources a run reads when the
// user does not choose, in order.
func DefaultSourceNames() []string {
	var out []string
	for _, s := range chosen(nil) {
		out = append(out, s.Name())
	}
	return out
}

// CheckSources checks the user's choice of sources (--telemetry): each
// name a source's, once.
func CheckSources(names []string) error {
	for i, n := range names {
		if sourceNamed(n) == nil {
			return fmt.Errorf("--telemetry: %q is no telemetry source: want some of %s", n, strings.Join(SourceNames(), ", "))
		}
		if slices.Contains(names[:i], n) {
			return fmt.Errorf("--telemetry: %q is named twice", n)
		}
	}
	return nil
}

func sourceNamed(name string) Source {
	for _, s := range Sources {
		if s.Name() == name {
			return s
		}
	}
	return nil
}

// chosen are the sources a run reads: those the user named
// (Target.Telemetry), in the user's order, else every default source in
// the registry's order.
func chosen(names []string) []Source {
	if len(names) == 0 {
		return slices.DeleteFunc(slices.Clone(Sources), func(s Source) bool { return !s.Default() })
	}
	var out []Source
	for _, n := range names {
		if s := sourceNamed(n); s != nil {
			out = append(out, s)
		}
	}
	return out
}

// hostSources reads the hosts of the target's members, each by the first
// of the run's sources that reads it, and returns the main member's
// reader (nil: its host figures are missing).
func (r *run) hostSources(ctx context.Context) (telemetry.HostReader, error) {
	for _, s := range chosen(r.opts.Target.Telemetry) {
		if h, ok := s.(hostSource); ok {
			if err := h.hosts(ctx, r); err != nil {
				return nil, err
			}
		}
	}
	return r.main, nil
}

// reads says whether a source already reads member's host ("" or the
// main member's name: the main member).
func (r *run) reads(member string) bool {
	if member == "" || strings.EqualFold(member, r.fp.set.Main()) {
		return r.main != nil
	}
	return slices.ContainsFunc(r.members, func(m memberSampler) bool { return strings.EqualFold(m.host.Member, member) })
}

// readMain makes h the main member's host reader.
func (r *run) readMain(h telemetry.HostReader) { r.main = h }

// readMember samples the host of another member with h.
func (r *run) readMember(m hostmap.MemberHost, h telemetry.HostReader) {
	r.members = append(r.members, memberSampler{host: m, sampler: telemetry.NewSampler("", h)})
}

// afterSources reads the run's sources that read after the run, in
// order, into d.
func (r *run) afterSources(ctx context.Context, d *result.Doc) {
	for _, s := range chosen(r.opts.Target.Telemetry) {
		if a, ok := s.(afterSource); ok {
			a.after(ctx, r, d)
		}
	}
}
