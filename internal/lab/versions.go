package lab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"runtime/debug"

	"github.com/mongobench/mongobench/internal/runner"
	"github.com/mongobench/mongobench/internal/server"
)

// driverModule is the MongoDB Go driver's module path.
const driverModule = "go.mongodb.org/mongo-driver/v2"

// noServerHelp says what a machine without a server binary can do.
const noServerHelp = "give --uri mongodb://HOST:PORT/ for your own deployment, or put mongod on PATH (or name a server binary in $MONGOBENCH_SERVER_BIN) for a local one (in a source checkout, make setup builds the embedded server)"

// Versions are what 'mongobench version' prints: the tool's, the Go
// release and MongoDB driver it was built with, and the embedded default
// server's.
type Versions struct {
	Version string         `json:"version"` // the tool's, set at build time
	Go      string         `json:"go"`
	Driver  string         `json:"driver"` // the MongoDB Go driver's module version
	Server  *ServerVersion `json:"server"` // the embedded default server; null when none is installed
}

// ServerVersion is the embedded default server's binary and version.
type ServerVersion struct {
	Kind    string `json:"kind"` // mongod or secantus
	Version string `json:"version,omitempty"`
	Path    string `json:"path"`
	Error   string `json:"error,omitempty"` // why its version is unknown
}

// VersionsOf reads the build's own record (runtime/debug; the driver's
// version constant when the binary has none, as a test binary) and asks
// the embedded server's binary, if one is installed, for its version
// (no server is started).
func VersionsOf(ctx context.Context, srv Servers, tool string) Versions {
	v := Versions{Version: tool, Go: runtime.Version(), Driver: "v" + runner.DriverVersion()}
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
	bin, err := srv.Env.Find()
	switch {
	case errors.Is(err, server.ErrNotFound) && srv.Env.ServerBin == "":
		return v
	case err != nil:
		v.Server = &ServerVersion{Error: err.Error()}
		return v
	}
	s := &ServerVersion{Kind: bin.Kind, Path: bin.Path}
	if s.Version, err = bin.Version(ctx); err != nil {
		s.Error = err.Error()
	}
	v.Server = s
	return v
}

// WriteText writes the versions a line each; a machine without a server
// is told what it can do.
func (v Versions) WriteText(w io.Writer) error {
	_, err := fmt.Fprintf(w, "mongobench %s\ngo         %s\ndriver     %s %s\n", v.Version, v.Go, driverModule, v.Driver)
	switch s := v.Server; {
	case err != nil:
	case s == nil:
		_, err = fmt.Fprintf(w, "server     none installed: %s\n", noServerHelp)
	case s.Error != "":
		_, err = fmt.Fprintf(w, "server     %s at %s, version unknown: %s\n", s.Kind, s.Path, s.Error)
	default:
		_, err = fmt.Fprintf(w, "server     %s %s at %s\n", s.Kind, s.Version, s.Path)
	}
	return err
}
