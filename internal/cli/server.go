package cli

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/lab"
	"github.com/mongobench/mongobench/internal/options"
	"github.com/mongobench/mongobench/internal/server"
)

func (a *app) serverCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "server",
		Short: "Start, stop or inspect the embedded default server",
		Long: `The embedded default server: the target and results store when no --uri is
given, a mongod on PATH or else SecantusDB, its state in
$MONGOBENCH_SERVER_DIR. Manual: docs/embedded-server.md.`,
	}
	cmd.AddCommand(a.serverStartCmd(), a.serverStopCmd(), a.serverStatusCmd())
	return cmd
}

func (a *app) serverStartCmd() *cobra.Command {
	var o server.Options
	var noSync bool
	cmd := &cobra.Command{
		Use:   "start",
		Short: "Start the embedded server in the background (no-op if it runs)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o.SyncOnCommit = !noSync
			h, already, err := lab.StartServer(cmd.Context(), a.servers(), o, a.say)
			if already {
				a.say("already running: %s %s at %s (pid %d)\n", h.Kind, h.Version, h.URI, h.PID)
				return nil
			}
			if err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "started %s %s at %s (pid %d, data in %s)\n", h.Kind, h.Version, h.URI, h.PID, h.DataDir)
			return nil
		},
	}
	cmd.Flags().IntVar(&o.Port, "port", 0, "loopback port (default: a free one)")
	cmd.Flags().Var(options.SizeText(&o.CacheSize), "cache-size", "storage cache size, e.g. 256M or 2G (default "+server.EmbeddedCacheSize+", 256M with --small)")
	cmd.Flags().StringVar(&o.CPUs, "cpus", "", "CPU set to pin the server to, e.g. 0 or 0-1 (uses taskset)")
	cmd.Flags().BoolVar(&o.Test, "small", false, "small footprint for small machines and tests (256M cache, 16MB log files)")
	cmd.Flags().BoolVar(&noSync, "no-sync-on-commit", false, "SecantusDB: do not fsync the log on every commit (faster; acknowledged writes can be lost in a crash)")
	return cmd
}

func (a *app) serverStopCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "stop",
		Short: "Stop the embedded server",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			h, err := server.Load(serverDir())
			if errors.Is(err, fs.ErrNotExist) {
				fmt.Fprintln(a.stdout, "not running")
				return nil
			}
			if err != nil {
				return err
			}
			if err := h.Stop(context.WithoutCancel(cmd.Context())); err != nil {
				return err
			}
			fmt.Fprintf(a.stdout, "stopped %s (pid %d)\n", h.Kind, h.PID)
			return nil
		},
	}
}

func (a *app) serverStatusCmd() *cobra.Command {
	var asJSON, onlyURI bool
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Say whether the embedded server runs, and where",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := server.StatusOf(serverDir())
			switch {
			case err != nil:
				return err
			case onlyURI && !st.Running:
				return fmt.Errorf("the embedded server is not running (directory %s)", serverDir())
			case onlyURI:
				fmt.Fprintln(a.stdout, st.Server.URI)
				return nil
			case asJSON:
				return json.NewEncoder(a.stdout).Encode(st)
			}
			return st.WriteText(a.stdout)
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the status as JSON")
	cmd.Flags().BoolVar(&onlyURI, "print-uri", false, "print only the server's URI (fails when it is not running)")
	cmd.Flags().BoolVar(&onlyURI, "uri", false, "deprecated name of --print-uri")
	options.Deprecate(cmd.Flags(), "uri", "print-uri")
	return cmd
}
