package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/bounded"
	"github.com/mongobench/mongobench/internal/htmlreport"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/template"
)

type tablesFlags struct {
	results   storeFlags
	out       string
	keepGoing bool
	strict    bool
	html      bool // also write the document as HTML beside -o
}

// addFlags adds the rendering flags 'tables' and 'report' share.
func (f *tablesFlags) addFlags(cmd *cobra.Command) {
	cmd.Flags().BoolVar(&f.strict, "strict", false, "for template authors: a column no output document has is an error, and the first broken block stops the command with nothing written")
	cmd.Flags().BoolVar(&f.keepGoing, "keep-going", false, "with --strict: render a broken block as an error note and go on (without --strict this is the default)")
}

// options are the template options the flags ask for: without --strict
// every block renders that can, a broken one is noted in its place.
func (f tablesFlags) options(name string) template.Options {
	return template.Options{Name: name, Strict: f.strict, KeepGoing: f.keepGoing || !f.strict}
}

func (a *app) tablesCmd() *cobra.Command {
	var f tablesFlags
	cmd := &cobra.Command{
		Use:   "tables TEMPLATE.md",
		Short: "Fill a report template's MONGO_TABLE blocks from the results",
		Long: `Renders a Markdown template: each <!-- MONGO_TABLE: {...} --> block runs
its aggregation pipeline on the results database and its table is written
right after the block, up to an end marker (<!-- /MONGO_TABLE -->). The
block stays, so the output can be rendered again to refresh its template.

A column that no output document has (a field the results do not hold,
such as the IOPS of a disk nobody described) is a column of empty cells,
with a note under its table naming the field. A broken block (bad JSON, a
pipeline the server refuses) does not cost the others: its table is
replaced by a note naming its line and the error, every other block is
rendered, the document is written, and the command exits 1 with the
errors on standard error.

--strict is for template authors: a column that no output document has is
an error too, and the first broken block stops the command with nothing
written (with --keep-going as well: broken blocks noted, the rest rendered,
exit 1).`,
		Example: `  mongobench tables templates/performance-template.md -o report.md`,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return a.renderTemplate(cmd, args[0], f)
		},
	}
	cmd.Flags().StringVarP(&f.out, "output", "o", "", "write the document here (default: standard output)")
	cmd.Flags().StringVar(&f.results.uri, "results", "", "results MongoDB URI (default: $MONGOBENCH_RESULTS_URI, else the embedded server)")
	cmd.Flags().StringVar(&f.results.file, "results-file", "", "not supported: a JSON Lines file cannot run pipelines")
	_ = cmd.Flags().MarkHidden("results-file")
	f.addFlags(cmd)
	return cmd
}

// renderTemplate renders the template at path against the results database.
func (a *app) renderTemplate(cmd *cobra.Command, path string, f tablesFlags) error {
	if f.results.file != "" {
		return usage(errors.New("tables: --results-file cannot run aggregation pipelines; import the file into MongoDB (mongoimport) and use --results URI"))
	}
	md, err := bounded.ReadFile(path, bounded.TemplateFile)
	if err != nil {
		return usage(fmt.Errorf("template: %w", err))
	}
	return a.renderDoc(cmd, md, path, f, nil)
}

// renderDoc renders the template md, named name in errors, against the
// results database and writes it where f says; wrote, if set, is called
// once the document is written.
func (a *app) renderDoc(cmd *cobra.Command, md []byte, name string, f tablesFlags, wrote func()) error {
	opts := f.options(name)
	if err := template.Check(md, opts); err != nil {
		return err
	}
	return f.results.with(a, cmd, func(st store.Store) error {
		m, ok := st.(store.TemplateSource)
		if !ok {
			return fmt.Errorf("tables: the results store %s cannot run aggregation pipelines", st.Where())
		}
		src, err := m.TemplateReader(cmd.Context())
		if err != nil {
			return err
		}
		out, rerr := template.Render(cmd.Context(), md, src, opts)
		if out != nil {
			if err := a.writeRendered(f.out, out); err != nil {
				return errors.Join(rerr, err)
			}
			if f.html && f.out != "" {
				if err := writeHTMLDocument(f.out, out); err != nil {
					return errors.Join(rerr, err)
				}
			}
			if wrote != nil {
				wrote()
			}
		}
		return rerr
	})
}

// writeHTMLDocument writes the rendered Markdown document md, written at
// mdPath, as HTML beside it (name.md → name.html), titled by its first
// heading.
func writeHTMLDocument(mdPath string, md []byte) error {
	title := strings.TrimSuffix(filepath.Base(mdPath), filepath.Ext(mdPath))
	for _, line := range strings.Split(string(md), "\n") {
		if h, ok := strings.CutPrefix(line, "# "); ok {
			title = strings.TrimSpace(h)
			break
		}
	}
	var b bytes.Buffer
	if err := htmlreport.Document(&b, title, md); err != nil {
		return err
	}
	path := strings.TrimSuffix(mdPath, filepath.Ext(mdPath)) + ".html"
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		return fmt.Errorf("output: %w", err)
	}
	return nil
}

// writeRendered writes the rendered document to path, or to stdout.
func (a *app) writeRendered(path string, doc []byte) error {
	if path == "" {
		_, err := a.stdout.Write(doc)
		return err
	}
	if dir := filepath.Dir(path); dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("output: %w", err)
		}
	}
	if err := os.WriteFile(path, doc, 0o644); err != nil {
		return fmt.Errorf("output: %w", err)
	}
	return nil
}
