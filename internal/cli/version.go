package cli

import (
	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/lab"
)

func (a *app) versionCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "The tool's version, the Go and MongoDB driver versions, and the embedded server's if installed",
		Long: `Print the tool's version, the Go release and MongoDB Go driver it was built
with, and the embedded default server's binary and version when one is
installed (no server is started), or what to do without one.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v := lab.VersionsOf(cmd.Context(), a.servers(), Version)
			if asJSON {
				return a.writeJSON(v)
			}
			return v.WriteText(a.stdout)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the versions as JSON")
	return cmd
}
