package cli

import (
	"fmt"
	"net"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/live"
	"github.com/mongobench/mongobench/internal/serve"
	"github.com/mongobench/mongobench/internal/store"
)

func (a *app) serveCmd() *cobra.Command {
	var sf storeFlags
	var listen string
	var liveAddrs []string
	var limit int
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Browse the stored runs in a web browser (read-only)",
		Long: `Serve the results store as read-only web pages: runs, runs compared,
sweeps, SLA journeys, plans, and with --live a running run's page as it goes.
It listens on this machine only unless --listen says otherwise; the pages have
no authentication. Manual: docs/browse.md.`,
		Example: `  mongobench serve
  mongobench serve --results-file results.jsonl --listen 127.0.0.1:9000
  mongobench run --rate 2000 --duration 10m --metrics-addr 127.0.0.1:9464 &
  mongobench serve --live 127.0.0.1:9464`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := serve.CheckAddrs(listen, liveAddrs, limit); err != nil {
				return usage(err)
			}
			return sf.with(a, cmd, func(st store.Store) error {
				ln, err := net.Listen("tcp", listen)
				if err != nil {
					return fmt.Errorf("--listen: %w", err)
				}
				if w := live.ExposedWarning("--listen", listen, "every stored run"); w != "" {
					a.say("%s\n", w)
				}
				s := &serve.Server{Store: st, Live: liveAddrs, ListLimit: limit}
				a.say("serving the results in %s at http://%s/ (read-only; Ctrl-C stops)\n", st.Where(), ln.Addr())
				return serve.Serve(cmd.Context(), ln, s.Handler())
			})
		},
	}
	sf.add(cmd)
	cmd.Flags().StringVar(&listen, "listen", serve.DefaultListen, "address to serve on, HOST:PORT; a non-loopback one (e.g. 0.0.0.0:8080) lets other machines read the results")
	cmd.Flags().StringArrayVar(&liveAddrs, "live", nil, "HOST:PORT of a running mongobench's --metrics-addr, whose runs' pages update as they go; repeatable")
	cmd.Flags().IntVar(&limit, "limit", serve.DefaultListLimit, "most runs a list page shows (0: all)")
	return cmd
}
