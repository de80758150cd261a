// Command delayproxy relays TCP connections to a target, delaying every
// byte each way by a fixed time (internal/testsupport/faultproxy), and
// prints its address; it runs until it is killed (bench/interleave.sh).
//
//	go run ./bench/delayproxy TARGET DELAY   # e.g. 127.0.0.1:27017 150us
package main

import (
	"fmt"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/mongobench/mongobench/internal/testsupport/faultproxy"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: delayproxy TARGET DELAY")
		os.Exit(2)
	}
	d, err := time.ParseDuration(os.Args[2])
	if err != nil || d < 0 || d > time.Second {
		fmt.Fprintf(os.Stderr, "delay %q: want a duration from 0 to 1s, such as 150us\n", os.Args[2])
		os.Exit(2)
	}
	p, err := faultproxy.Start(os.Args[1])
	if err != nil {
		fmt.Fprintf(os.Stderr, "proxy to %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
	if d > 0 {
		p.Latency(d)
	}
	fmt.Println(p.Addr())
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, os.Interrupt)
	<-stop
	_ = p.Close()
}
