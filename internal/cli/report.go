package cli

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/templates"

	"github.com/mongobench/mongobench/internal/bounded"
	"github.com/mongobench/mongobench/internal/lab"
)

// defaultReportPath is where 'report' writes unless told otherwise.
const defaultReportPath = "mongobench-reports/performance-tables.md"

// shippedTemplateName names the embedded template in error messages.
const shippedTemplateName = "templates/performance-tables.md"

func (a *app) reportCmd() *cobra.Command {
	f := tablesFlags{html: true}
	var templatePath string
	cmd := &cobra.Command{
		Use:   "report",
		Short: "Render the MongoDB Performance Tables document from the stored results",
		Long: `Render the shipped Performance Tables document (or --template) from the
stored results, as 'tables' does, with a self-contained HTML page beside it;
render it again later with 'mongobench tables OUT.md -o OUT.md'.
Manual: docs/catalog.md (Reports and templates).`,
		Example: `  mongobench catalog run insert_docsize insert_batchsize insert_idtype insert_nindexes
  mongobench report
  mongobench report -o report.md --results mongodb://results-host/`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			md, name := templates.PerformanceTables, shippedTemplateName
			if templatePath != "" {
				b, err := bounded.ReadFile(templatePath, bounded.TemplateFile)
				if err != nil {
					return usage(fmt.Errorf("template: %w", err))
				}
				md, name = b, templatePath
			}
			return a.renderDoc(cmd, md, name, f, func() {
				if f.out != "" {
					fmt.Fprintf(a.stdout, "report written to %s and %s\n", f.out, lab.HTMLPath(f.out))
				}
			})
		},
	}
	cmd.Flags().StringVarP(&f.out, "output", "o", defaultReportPath, "write the document here (empty: standard output)")
	cmd.Flags().StringVar(&templatePath, "template", "", "render this template instead of the shipped one")
	cmd.Flags().StringVar(&f.results.uri, "results", "", "results MongoDB URI (default: $MONGOBENCH_RESULTS_URI, else the embedded server)")
	f.Add(cmd.Flags())
	return cmd
}
