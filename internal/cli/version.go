package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/runner"
	"github.com/mongobench/mongobench/internal/server"
)

// driverModule is the MongoDB Go driver's module path.
const driverModule = "go.mongodb.org/mongo-driver/v2"

// versions is what 'mongobench version' prints.
type versions struct {
	Version string         `json:"version"` // the tool's (Version, set at build time)
	Go      string         `json:"go"`      // the Go release the binary was built with
	Driver  string         `json:"driver"`  // the MongoDB Go driver's module version
	Server  *serverVersion `json:"server"`  // the embedded default server; null when none is installed
}

type serverVersion struct {
	Kind    string `json:"kind"` // mongod or secantus
	Version string `json:"version,omitempty"`
	Path    string `json:"path"`
	Error   string `json:"error,omitempty"` // why its version is unknown
}

func (a *app) versionCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "version",
		Short: "The tool's version, the Go and MongoDB driver versions, and the embedded server's if installed",
		Long: `Prints the tool's version, the Go release it was built with, the MongoDB Go
driver's version, and the embedded default server's binary and version when
one is installed (asked with --version; no server is started).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			v := collectVersions(cmd.Context())
			if asJSON {
				enc := json.NewEncoder(a.stdout)
				enc.SetIndent("", "  ")
				return enc.Encode(v)
			}
			fmt.Fprintf(a.stdout, "mongobench %s\ngo         %s\ndriver     %s %s\n", v.Version, v.Go, driverModule, v.Driver)
			switch s := v.Server; {
			case s == nil:
				fmt.Fprintln(a.stdout, "server     none installed (scripts/install-server.sh)")
			case s.Error != "":
				fmt.Fprintf(a.stdout, "server     %s at %s, version unknown: %s\n", s.Kind, s.Path, s.Error)
			default:
				fmt.Fprintf(a.stdout, "server     %s %s at %s\n", s.Kind, s.Version, s.Path)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the versions as JSON")
	return cmd
}

// collectVersions reads the build's own record (runtime/debug; the
// driver's version constant when the binary has none) and asks
// the embedded server's binary, if one is installed, for its version.
func collectVersions(ctx context.Context) versions {
	v := versions{Version: Version, Go: runtime.Version(), Driver: "v" + runner.DriverVersion()} // a test binary records no modules
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, d := range info.Deps {
			if d.Path == driverModule {
				v.Driver = d.Version
				if d.Replace != nil {
					v.Driver = d.Replace.Version
				}
			}
		}
	}
	e := serverEnv()
	bin, err := e.Find()
	switch {
	case errors.Is(err, server.ErrNotFound) && e.ServerBin == "":
		return v
	case err != nil:
		v.Server = &serverVersion{Error: err.Error()}
		return v
	}
	s := &serverVersion{Kind: bin.Kind, Path: bin.Path}
	if s.Version, err = bin.Version(ctx); err != nil {
		s.Error = err.Error()
	}
	v.Server = s
	return v
}
