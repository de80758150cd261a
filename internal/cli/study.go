package cli

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/mongobench/mongobench/internal/diagnosis"
	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/group"
	"github.com/mongobench/mongobench/internal/htmlreport"
	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/runner"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/threshold"
	"github.com/mongobench/mongobench/internal/within"
	"github.com/mongobench/mongobench/internal/workload"
	"github.com/mongobench/mongobench/internal/workload/builtin"
)

// studyRun is what the commands that make many runs (sla, sweep,
// calibrate, catalog, plan, load) share: the target and results store,
// the notes already shown, and each run's report.
type studyRun struct {
	app       *app
	registry  *workload.Registry // the workloads it runs (default: the built-in ones)
	target    runner.Target
	atlas     *runner.AtlasSource // every target's, when the flags name one
	store     store.Store
	reportDir string // "": no per-run reports
	json      bool   // print the stored documents as JSON instead of tables
	noted     map[string]bool
	reports   []string
	docs      []result.Doc // the runs kept, for --json
	metrics   *liveMetrics // --metrics-addr; nil: none
	clock     stepClock    // when the study began, for its estimate of the time left
	// thresholds are judged on every run with its scenario's own
	// (--threshold); runs counts the runs judged, failed those whose
	// thresholds failed.
	thresholds   []threshold.Threshold
	runs, failed int
	limits       diagnosis.Limits // stated ceilings (--disk-limit, --link) every run is diagnosed against
	// group, share and joined make the runs a run group's (groupflags.go).
	group          *groupFlags
	share          engine.Share
	joined         *group.Client
	joinedScenario *spec.Scenario // the joined run's, whose thresholds judge the group's result
}

func newStudy(a *app, t runner.Target, st store.Store, reportDir string) *studyRun {
	return &studyRun{app: a, registry: builtin.Registry(), target: t, store: st, reportDir: reportDir, noted: map[string]bool{}}
}

// env is the seam a study runs through: the real runner and store.
func (s *studyRun) env() study.Env {
	env := study.Env{Measure: s.measure, Keep: s.keep, Registry: s.registry, Say: s.app.say, Step: s.step}
	if s.group != nil {
		env.Merged = s.merged
	}
	return env
}

// step prints the header of a study's next run, with the time left.
func (s *studyRun) step(info study.StepInfo) {
	s.app.say("%s\n", report.StepLine(s.clock.next(info, time.Now())))
}

// measure runs one scenario with a live progress line (or, not on a
// terminal, status lines); variant holds the values that identify the
// run within the study.
func (s *studyRun) measure(ctx context.Context, sc *spec.Scenario, variant result.Variant) (*result.Doc, error) {
	g, err := s.groupFor(ctx, sc, variant)
	if err != nil {
		return nil, err
	}
	p := newProgress(s.app.stderr, s.app.term, s.app.statusInterval, sc)
	t := s.target
	t.Limits = s.limits
	runID, published, ended := s.metrics.begin(sc, variant)
	d, err := runner.Run(ctx, runner.Options{
		Scenario: sc, Registry: s.registry, Target: t, ToolVersion: Version,
		Variant: variant, OnSetup: p.setup, OnStart: p.start, OnInterval: both(p.interval, published), Group: g, RunID: runID, OnTelemetry: s.metrics.telemetry(),
	})
	ended()
	p.done()
	s.judge(d, sc)
	if err != nil && s.joined != nil {
		s.joined.Leave()
		s.joined = nil
	}
	return d, err
}

// keep stores a run (or rescues it to a file), shows each of its notes
// once per study, and writes its report; a report that cannot be written
// is a warning, never the loss of the stored run.
func (s *studyRun) keep(ctx context.Context, d *result.Doc) error {
	if err := s.app.save(ctx, s.store, d); err != nil {
		return err
	}
	if err := s.keptInGroup(ctx, d); err != nil {
		return err
	}
	if s.json {
		s.docs = append(s.docs, *d)
	}
	for _, n := range d.Notes {
		if !s.noted[n] {
			s.app.say("note: %s\n", n)
			s.noted[n] = true
		}
	}
	if s.reportDir == "" {
		return nil
	}
	path, err := writeReport(d, s.reportDir)
	if err != nil {
		s.app.say("warning: run %s is stored, but its report was not written: %v\n", d.RunID, err)
		return nil
	}
	s.reports = append(s.reports, path)
	return nil
}

// finish prints the tables of a study that made runs, after its
// progress lines (with --json, the stored documents of its runs as one
// JSON array instead), and writes its reports, name.md and name.html
// (writeSummary).
func (s *studyRun) finish(runs int, tables func(io.Writer, study.Format) error, name string, render func(w io.Writer, runs []string) ([]study.File, error), page func(w io.Writer, runs []string) error) error {
	if s.json {
		if err := store.WriteJSON(s.app.stdout, s.docs); err != nil || runs == 0 {
			return err
		}
		return s.writeSummary(name, render, page)
	}
	if runs == 0 {
		return nil
	}
	fmt.Fprintln(s.app.stdout)
	if err := tables(s.app.stdout, study.Text); err != nil {
		return err
	}
	return s.writeSummary(name, render, page)
}

// writeSummary writes the study's Markdown report, name.md, the files it
// links and its HTML report, name.html, into the report directory, and
// says where; render and page are handed the file names of the runs'
// Markdown reports. Nothing without a report directory.
func (s *studyRun) writeSummary(name string, render func(w io.Writer, runs []string) ([]study.File, error), page func(w io.Writer, runs []string) error) error {
	if s.reportDir == "" {
		return nil
	}
	runs := make([]string, len(s.reports))
	for i, p := range s.reports {
		runs[i] = filepath.Base(p)
	}
	return s.app.writeReportDir(s.reportDir, name,
		func(w io.Writer) ([]study.File, error) { return render(w, runs) },
		func(w io.Writer) error { return page(w, runs) })
}

// writeReportDir writes the Markdown report render writes, dir/name.md,
// the files it links, and the HTML report page writes, dir/name.html, and
// says where.
func (a *app) writeReportDir(dir, name string, render func(io.Writer) ([]study.File, error), page func(io.Writer) error) error {
	var b, h bytes.Buffer
	files, err := render(&b)
	if err != nil {
		return err
	}
	if err := page(&h); err != nil {
		return err
	}
	files = append(files, study.File{Path: name + ".html", Data: h.Bytes()})
	path, err := writeReportFiles(dir, name, b.Bytes(), files)
	if err != nil {
		return err
	}
	a.say("report: %s and %s\n", path, htmlreport.Name(path))
	return nil
}

// writeReportFiles writes dir/name.md and the files it links (paths
// relative to dir), and returns the report's path. Every file is joined
// to dir by within.Join: a name that would leave dir (a run id or a plan
// name such as "../x") writes nothing.
func writeReportFiles(dir, name string, md []byte, files []study.File) (string, error) {
	path, err := within.Join(dir, name+".md")
	if err != nil {
		return "", err
	}
	paths := make([]string, len(files))
	for i, f := range files {
		if paths[i], err = within.Join(dir, f.Path); err != nil {
			return "", err
		}
	}
	for i, f := range files {
		if err := os.MkdirAll(filepath.Dir(paths[i]), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(paths[i], f.Data, 0o644); err != nil {
			return "", err
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return path, os.WriteFile(path, md, 0o644)
}
