package cli

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/runner"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/workload"
	"github.com/mongobench/mongobench/internal/workload/builtin"
)

// study is what the commands that make many runs (sla, sweep, catalog)
// share: the target and results store, the notes already shown, and each
// run's report.
type studyRun struct {
	app       *app
	registry  *workload.Registry // the workloads it runs (default: the built-in ones)
	target    runner.Target
	store     store.Store
	reportDir string // "": no per-run reports
	noted     map[string]bool
	reports   []string
}

func newStudy(a *app, t runner.Target, st store.Store, reportDir string) *studyRun {
	return &studyRun{app: a, registry: builtin.Registry(), target: t, store: st, reportDir: reportDir, noted: map[string]bool{}}
}

// measure runs one scenario with a live progress line; variant holds the
// values that identify the run within the study.
func (s *studyRun) measure(ctx context.Context, sc *spec.Scenario, variant map[string]any) (*result.Doc, error) {
	p := newProgress(s.app.stderr, sc)
	d, err := runner.Run(ctx, runner.Options{
		Scenario: sc, Registry: s.registry, Target: s.target, ToolVersion: Version,
		Variant: variant, OnSetup: p.setup, OnInterval: p.interval,
	})
	p.done()
	return d, err
}

// keep stores a run (or rescues it to a file), shows each of its notes
// once per study, and writes its report.
func (s *studyRun) keep(ctx context.Context, d *result.Doc) error {
	if err := s.store.Save(context.WithoutCancel(ctx), d); err != nil {
		return s.app.rescue(d, err)
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
	if path, err := writeReport(d, s.reportDir); err == nil {
		s.reports = append(s.reports, path)
	}
	return nil
}

// stopped is the error of a run that stopped early, nil otherwise.
func stopped(d *result.Doc) error {
	if !d.Partial {
		return nil
	}
	return fmt.Errorf("%w: run %s stopped early; its partial result is stored", errInterrupted, d.RunID)
}

// writeSummary writes the study's Markdown report, name.md: what body
// writes, then links to the runs' reports; nothing without a report
// directory.
func (s *studyRun) writeSummary(name string, body func(*strings.Builder) error) error {
	if s.reportDir == "" {
		return nil
	}
	var b strings.Builder
	if err := body(&b); err != nil {
		return err
	}
	fmt.Fprintf(&b, "\n## Runs\n\n")
	for _, p := range s.reports {
		fmt.Fprintf(&b, "- [%s](%s)\n", filepath.Base(p), filepath.Base(p))
	}
	if err := os.MkdirAll(s.reportDir, 0o755); err != nil {
		return err
	}
	path := filepath.Join(s.reportDir, name+".md")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		return err
	}
	s.app.say("report: %s\n", path)
	return nil
}
