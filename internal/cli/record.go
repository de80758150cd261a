package cli

import (
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/record"
	"github.com/mongobench/mongobench/internal/secret"
	"github.com/mongobench/mongobench/internal/spec"
)

// Bounds of record's --buffer.
const (
	minRecordBuffer = 1 << 20
	maxRecordBuffer = 4 << 30
)

func (a *app) recordCmd() *cobra.Command {
	var listen, upstream, out string
	var useTLS, insecure bool
	buffer := spec.Size(record.DefaultBuffer)
	cmd := &cobra.Command{
		Use:   "record",
		Short: "Record an application's traffic through a proxy, in the server's 8.x recording format",
		Long: `Listen on --listen and forward every connection to the server of --uri, every
byte unchanged both ways, while writing each wire message with its
connection, direction and microsecond time to --out, in the layout of the
server's own 8.x traffic recording (startTrafficRecording), so a server's
recording and this one are read alike. Point the application at the
proxy with directConnection=true (a driver that discovers a replica set
would connect to its members directly, past the proxy).

Credentials are never written: authentication conversations (saslStart,
saslContinue, authenticate, a hello's speculativeAuthenticate, and their
replies) are recorded without their payloads, createUser's and
updateUser's pwd without the password. The application waits for no
disk: a message read whole is copied into a queue and forwarded at once,
and the writer takes credentials out as it writes; a queue of --buffer
bytes that fills (the disk is too slow) stops the recording,
complete up to then, and the traffic flows on. Ctrl-C closes every
connection and leaves a readable file. TLS to the upstream: tls=true in
--uri (its tlsCAFile and tlsInsecure honoured), or --tls. Manual:
docs/replay.md.`,
		Example: `  mongobench record --listen 127.0.0.1:27018 --uri mongodb://db1.example:27017 --out shop.rec
  # then run the application against mongodb://127.0.0.1:27018/?directConnection=true
  mongobench record --listen 0.0.0.0:27018 --uri "mongodb://db1.example:27017/?tls=true" --out shop.rec --buffer 256MB`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			o, err := recordOptions(listen, upstream, out, useTLS, insecure, int64(buffer))
			if err != nil {
				return usage(err)
			}
			f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
			if err != nil {
				if errors.Is(err, os.ErrExist) {
					return usage(fmt.Errorf("--out %s: the file exists; name a new file", out))
				}
				return fmt.Errorf("--out: %w", err)
			}
			o.Out = f
			o.Say = func(format string, args ...any) { a.say("record: "+format+"\n", args...) }
			p, err := record.Start(o)
			if err != nil {
				_ = f.Close()
				_ = os.Remove(out)
				return err
			}
			a.say("recording %s -> %s into %s; Ctrl-C stops\n", p.Addr(), secret.URI(upstream), out)
			<-cmd.Context().Done()
			stats, werr := p.Close()
			serr := f.Sync()
			cerr := f.Close()
			fmt.Fprintf(a.stdout, "%s: %d connections, %d messages (%d without their credentials), %d bytes\n", out, stats.Connections, stats.Messages, stats.Redacted, stats.Bytes)
			if stats.Stopped != "" {
				fmt.Fprintf(a.stdout, "the recording stopped: %s; %d messages forwarded unrecorded\n", stats.Stopped, stats.NotRecorded)
			}
			if stats.Unframed > 0 || stats.Unreadable > 0 {
				fmt.Fprintf(a.stdout, "not recorded: %d connections that were not the wire protocol, %d messages that did not decode\n", stats.Unframed, stats.Unreadable)
			}
			if err := errors.Join(werr, serr, cerr); err != nil {
				return err
			}
			if stats.Stopped != "" {
				return fmt.Errorf("the recording of %s is incomplete: %s", out, stats.Stopped)
			}
			return nil
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&listen, "listen", "127.0.0.1:27018", "the address the application connects to (host:port)")
	fl.StringVar(&upstream, "uri", "", "the server to forward to: a mongodb:// URI naming one host (required; $MONGOBENCH_URI)")
	fl.StringVar(&out, "out", "", "the recording file to write (a new file; required)")
	fl.BoolVar(&useTLS, "tls", false, "connect to the upstream with TLS whatever --uri says")
	fl.BoolVar(&insecure, "tls-insecure", false, "with TLS, do not verify the upstream's certificate")
	fl.Var(&buffer, "buffer", "bytes of messages that may wait for the disk before the recording stops (1MB–4GB)")
	return cmd
}

// recordOptions checks record's flags and reads the upstream from the
// URI.
func recordOptions(listen, upstream, out string, useTLS, insecure bool, buffer int64) (record.Options, error) {
	var o record.Options
	if out == "" {
		return o, errors.New("--out: required (the recording file to write)")
	}
	if upstream == "" {
		return o, errors.New("--uri: required (the server the application's traffic goes to)")
	}
	if _, _, err := net.SplitHostPort(listen); err != nil {
		return o, fmt.Errorf("--listen %q: want host:port, such as 127.0.0.1:27018", listen)
	}
	if buffer < minRecordBuffer || buffer > maxRecordBuffer {
		return o, fmt.Errorf("--buffer: got %s, want 1MB to 4GB", spec.Size(buffer))
	}
	host, tlsConfig, err := record.Upstream(upstream, useTLS, insecure)
	if err != nil {
		return o, fmt.Errorf("--uri: %w", err)
	}
	return record.Options{Listen: listen, Upstream: host, TLS: tlsConfig, Buffer: buffer, DialTimeout: 10 * time.Second}, nil
}
