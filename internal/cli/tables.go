package cli

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/bounded"
	"github.com/mongobench/mongobench/internal/lab"
	"github.com/mongobench/mongobench/internal/options"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/template"
)

type tablesFlags struct {
	results storeFlags
	out     string
	html    bool // also write the document as HTML beside -o
	options.Template
}

func (a *app) tablesCmd() *cobra.Command {
	var f tablesFlags
	cmd := &cobra.Command{
		Use:   "tables TEMPLATE.md",
		Short: "Fill a report template's MONGO_TABLE blocks from the results",
		Long: `Fill a Markdown template's <!-- MONGO_TABLE --> blocks from the results
store; the blocks stay, so the output renders again. A broken block is noted
in place of its table and the command exits 1; --strict is for template
authors. Manual: docs/catalog.md (Reports and templates), docs/results.md.`,
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
	f.Add(cmd.Flags())
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
	opts := f.Options(name)
	if err := template.Check(md, opts); err != nil {
		return err
	}
	return f.results.with(a, cmd, func(st store.Store) error {
		out, rerr := store.RenderTemplate(cmd.Context(), st, md, opts)
		if out == nil {
			return rerr
		}
		if err := a.writeRendered(f.out, out, f.html); err != nil {
			return errors.Join(rerr, err)
		}
		if wrote != nil {
			wrote()
		}
		return rerr
	})
}

// writeRendered writes the rendered document to path (with html, its
// page beside it), or to standard output.
func (a *app) writeRendered(path string, doc []byte, html bool) error {
	if path == "" {
		_, err := a.stdout.Write(doc)
		return err
	}
	return lab.WriteDocument(path, doc, html)
}
