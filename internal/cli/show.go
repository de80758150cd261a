package cli

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/store"
)

// show prints the result (summary or JSON) and writes the report.
func (a *app) show(d *result.Doc, rf runFlags) error {
	if rf.json {
		if err := a.printJSON(d); err != nil {
			return err
		}
	} else if err := report.Summary(a.stdout, d); err != nil {
		return err
	}
	for _, n := range d.Notes {
		a.say("note: %s\n", n)
	}
	if rf.noReport {
		return nil
	}
	path, err := writeReport(d, rf.reportDir)
	if err != nil {
		return fmt.Errorf("write report: %w", err)
	}
	a.say("report: %s\n", path)
	return nil
}

func (a *app) printJSON(d *result.Doc) error {
	b, err := store.JSON(d)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(a.stdout, string(b))
	return err
}

// writeReport writes the Markdown report and its charts under dir and
// returns the report's path.
func writeReport(d *result.Doc, dir string) (string, error) {
	md, charts, err := report.Markdown(d, "charts")
	if err != nil {
		return "", err
	}
	for rel, svg := range charts {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(p, svg, 0o644); err != nil {
			return "", err
		}
	}
	path := filepath.Join(dir, d.RunID+".md")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	return path, os.WriteFile(path, md, 0o644)
}
