// Command responder is a calibration instrument for mongobench: a loopback
// server that speaks just enough of the MongoDB wire protocol for a
// mongobench run over records loaded earlier (the Go driver's handshake,
// hello, buildInfo, ping, serverStatus, listCollections and the counts of
// the data database's ownership check, endSessions) and answers the hot
// path, a find, after a fixed delay d, optionally frozen by stalls on a
// schedule. Against it the true latency of every request is known, so the
// tool's own error and its coordinated-omission correction can be checked
// against exact answers. It is not a stand-in for MongoDB.
//
//	responder serve --listen 127.0.0.1:27931 --delay 100us [--stall 1s --every 10s --first 5s] [--stats FILE]
//	responder compare --result RUN.json --stats FILE --rate R --warmup W --duration D --threads N --delay d [--stall ...]
//
// serve runs until SIGINT or SIGTERM, then writes its own reply-time
// accuracy (write time minus due time) to --stats and standard error.
// compare computes the exact latency distribution of the run's schedule
// and prints it beside what mongobench reported, as Markdown table rows.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/signal"
	"runtime"
	"syscall"
	"time"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: responder serve|compare [flags]")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "serve":
		err = serve(os.Args[2:], os.Stderr)
	case "compare":
		err = compare(os.Args[2:], os.Stdout)
	default:
		err = fmt.Errorf("unknown command %q: want serve or compare", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "responder:", err)
		os.Exit(1)
	}
}

func stallFlags(fs *flag.FlagSet) *Stalls {
	s := &Stalls{}
	fs.DurationVar(&s.Length, "stall", 0, "stall length (0: no stalls)")
	fs.DurationVar(&s.Every, "every", 10*time.Second, "one stall starts every this long")
	fs.DurationVar(&s.First, "first", 5*time.Second, "the first stall starts this long after the first hot-path request")
	return s
}

func serve(args []string, stderr io.Writer) error {
	fs := flag.NewFlagSet("serve", flag.ContinueOnError)
	listen := fs.String("listen", "127.0.0.1:27931", "address to listen on")
	delay := fs.Duration("delay", 100*time.Microsecond, "reply delay of the hot path, from the request's arrival")
	spin := fs.Duration("spin", 30*time.Microsecond, "busy-wait this last stretch before each reply")
	records := fs.Int64("records", 1000, "documents every data collection reports holding (the run's recordcount)")
	rt := fs.String("realtime", "sender", "run under SCHED_FIFO: sender (the reply thread), all (every thread; starves a client on the same cores) or off")
	statsFile := fs.String("stats", "", "write the accuracy figures here as JSON at exit")
	traceFile := fs.String("trace", "", "write every hot-path request's kernel arrival, due time, write times and kernel transmit stamp here at exit, keyed by request id")
	traceMax := fs.Int("trace-max", 4<<20, "most requests the trace keeps (at most 8388608)")
	stalls := stallFlags(fs)
	if err := fs.Parse(args); err != nil {
		return err
	}
	if err := stalls.Validate(); err != nil {
		return err
	}
	if *traceMax < 1 || *traceMax > maxReqTrace {
		return fmt.Errorf("--trace-max %d: want 1 to %d", *traceMax, maxReqTrace)
	}
	l, err := net.Listen("tcp", *listen)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	// The sender holds a P while it sleeps and spins to a due time; one
	// more P keeps the connections' goroutines from queueing behind it.
	runtime.GOMAXPROCS(runtime.NumCPU() + 1)
	s := &server{delay: *delay, stalls: *stalls, replies: newReplies(*records), sender: newSender(*spin)}
	if *traceFile != "" {
		s.trace = newReqTrace(*traceMax)
		s.sender.trace = s.trace
	}
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	switch *rt {
	case "all":
		s.sender.rt = realtimeAll()
	case "sender":
	case "off":
		s.sender.rt = "SCHED_OTHER"
	default:
		return fmt.Errorf("--realtime %q: want all, sender or off", *rt)
	}
	go s.sender.loop(ctx.Done())
	go func() {
		<-ctx.Done()
		_ = l.Close()
	}()
	fmt.Fprintf(stderr, "responder: listening on %s, delay %v, stalls %+v, pid %d\n", l.Addr(), *delay, *stalls, os.Getpid())
	if err := s.serve(l); err != nil {
		return err
	}
	st := s.stats()
	out, _ := json.MarshalIndent(st, "", "  ")
	fmt.Fprintf(stderr, "responder: %s\n", out)
	if s.trace != nil {
		// Replies still queued (a stop inside a stall) keep no write times.
		if err := s.trace.write(*traceFile, s.origin, s.delay, s.stalls); err != nil {
			return err
		}
	}
	if *statsFile != "" {
		if err := os.WriteFile(*statsFile, append(out, '\n'), 0o644); err != nil {
			return fmt.Errorf("write stats: %w", err)
		}
	}
	return nil
}
