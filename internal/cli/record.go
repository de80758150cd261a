package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mongobench/mongobench/internal/queryshape"
	"github.com/mongobench/mongobench/internal/record"
	"github.com/mongobench/mongobench/internal/recording"
	"github.com/mongobench/mongobench/internal/secret"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/texttable"
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
			a.say("the recording holds the application's data unencrypted (credentials excepted): keep it as you keep the data\n")
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
	cmd.AddCommand(a.recordShowCmd())
	return cmd
}

// Bounds of record show's --top.
const maxShowTop = 10_000

func (a *app) recordShowCmd() *cobra.Command {
	var top int
	cmd := &cobra.Command{
		Use:   "show FILE|DIR",
		Short: "Read a traffic recording (the server's, any generation, or record's) and count its requests per query shape",
		Long: `Read a traffic recording: a file (record's, or a 4.4–7.x server's
startRecordingTraffic file) or an 8.x server's startTrafficRecording
directory of .bin files, whose checksum.txt is checked. Print its layout,
connections, messages each way and time span, and its requests per query
shape (the command, namespace, filter, pipeline, sort and projection with
values replaced by their types, as $queryStats shapes them), the most
frequent first. A damaged recording is one line naming the file and the
byte. Manual: docs/replay.md.`,
		Example: `  mongobench record show shop.rec
  mongobench record show /var/lib/mongo/recordings/rec1 --top 50`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if top < 1 || top > maxShowTop {
				return usage(fmt.Errorf("--top: got %d, want 1 to %d", top, maxShowTop))
			}
			return a.showRecording(cmd.Context(), args[0], top)
		},
	}
	cmd.Flags().IntVar(&top, "top", 20, "how many shapes to list, the most frequent first (1 to 10000)")
	return cmd
}

// showRecording reads a recording whole and prints what it holds.
func (a *app) showRecording(ctx context.Context, path string, top int) error {
	abs, err := filepath.Abs(path)
	if err != nil {
		return usage(err)
	}
	set, err := recording.OpenAs(os.DirFS(filepath.Dir(abs)), filepath.Base(abs), path)
	if err != nil {
		return usage(err)
	}
	defer func() { _ = set.Close() }()
	var tally queryshape.Tally
	conns := map[uint64]bool{}
	layouts := map[recording.Layout]bool{}
	var requests, replies, events, undecoded int
	var last time.Duration
	for n := 0; ; n++ {
		if n%4096 == 0 && ctx.Err() != nil {
			return fmt.Errorf("%w: reading %s", errInterrupted, path)
		}
		p, err := set.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return usage(err)
		}
		layouts[set.Layout()] = true
		conns[p.Conn] = true
		last = max(last, p.Offset)
		switch {
		case p.Event != recording.EventMessage:
			events++
		case p.Direction == recording.DirReply:
			replies++
		default:
			requests++
			m, err := recording.Parse(p.Message)
			if err != nil {
				undecoded++
				continue
			}
			if s, ok := queryshape.Of(m); ok {
				tally.Add(s)
			}
		}
	}
	var names []string
	for l := range layouts {
		names = append(names, l.String())
	}
	slices.Sort(names)
	fmt.Fprintf(a.stdout, "%s: %s; %d connections, %d requests, %d replies, %d session events over %s\n",
		path, strings.Join(names, " and "), len(conns), requests, replies, events, last.Round(time.Microsecond))
	if undecoded > 0 {
		fmt.Fprintf(a.stdout, "%d requests did not decode as wire messages and have no shape\n", undecoded)
	}
	fmt.Fprintf(a.stdout, "%d shapes", tally.Len())
	if tally.Other > 0 {
		fmt.Fprintf(a.stdout, " (and %d requests of shapes past the first %d)", tally.Other, queryshape.MaxShapes)
	}
	fmt.Fprintln(a.stdout)
	t := texttable.New("requests", "share", "command", "namespace", "shape")
	for _, c := range tally.Top(top) {
		ns := c.Shape.Database
		if c.Shape.Collection != "" {
			ns += "." + c.Shape.Collection
		}
		t.Add(strconv.Itoa(c.Requests), fmt.Sprintf("%.1f%%", 100*float64(c.Requests)/float64(tally.Total())), c.Shape.Command, ns, c.Shape.Key())
	}
	return t.WriteText(a.stdout, true)
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
