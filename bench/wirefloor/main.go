// Command wirefloor measures the client CPU floor of a point read on this
// machine: eight connections each sending a raw OP_MSG find by _id and
// reading the reply, with no driver in between. It is the reference the
// tool's own client cost is compared with (bench/RESULTS.md).
//
//	go run ./bench/wirefloor HOST:PORT [seconds]
//
// The target needs the kv workload's data (mongobench run --workload kv
// -p records=5000 first); plain TCP only, no authentication or TLS.
package main

import (
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

func cpu() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: wirefloor HOST:PORT [seconds]")
		os.Exit(2)
	}
	addr := os.Args[1]
	secs := 10
	if len(os.Args) > 2 {
		if _, err := fmt.Sscan(os.Args[2], &secs); err != nil {
			fmt.Fprintf(os.Stderr, "wirefloor: seconds %q: %v\n", os.Args[2], err)
			os.Exit(2)
		}
	}
	var ops atomic.Int64
	stop := time.Now().Add(time.Duration(secs) * time.Second)
	c0, t0 := cpu(), time.Now()
	var wg sync.WaitGroup
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			conn, err := net.Dial("tcp", addr)
			if err != nil {
				fmt.Fprintln(os.Stderr, "wirefloor:", err)
				os.Exit(1)
			}
			r := rand.New(rand.NewPCG(uint64(w), 1))
			msg := make([]byte, 0, 256)
			hdr := make([]byte, 16)
			body := make([]byte, 0, 4096)
			for id := int32(1); time.Now().Before(stop); id++ {
				msg = msg[:0]
				msg = append(msg, make([]byte, 16)...)
				msg = binary.LittleEndian.AppendUint32(msg, 0) // flags
				msg = append(msg, 0)                           // section kind 0
				idx, doc := bsoncore.AppendDocumentStart(msg)
				doc = bsoncore.AppendStringElement(doc, "find", "kv")
				fi, f := bsoncore.AppendDocumentElementStart(doc, "filter")
				f = bsoncore.AppendInt64Element(f, "_id", r.Int64N(5000))
				f, _ = bsoncore.AppendDocumentEnd(f, fi)
				f = bsoncore.AppendInt32Element(f, "limit", 1)
				f = bsoncore.AppendBooleanElement(f, "singleBatch", true)
				f = bsoncore.AppendStringElement(f, "$db", "mongobench_data")
				msg, _ = bsoncore.AppendDocumentEnd(f, idx)
				binary.LittleEndian.PutUint32(msg[0:], uint32(len(msg)))
				binary.LittleEndian.PutUint32(msg[4:], uint32(id))
				binary.LittleEndian.PutUint32(msg[12:], 2013)
				if _, err := conn.Write(msg); err != nil {
					fmt.Fprintln(os.Stderr, "wirefloor:", err)
					os.Exit(1)
				}
				if _, err := io.ReadFull(conn, hdr); err != nil {
					fmt.Fprintln(os.Stderr, "wirefloor:", err)
					os.Exit(1)
				}
				n := int(binary.LittleEndian.Uint32(hdr)) - 16
				if n < 0 || n > 48_000_000 {
					fmt.Fprintln(os.Stderr, "wirefloor: bad reply length", n)
					os.Exit(1)
				}
				body = append(body[:0], make([]byte, n)...)
				if _, err := io.ReadFull(conn, body); err != nil {
					fmt.Fprintln(os.Stderr, "wirefloor:", err)
					os.Exit(1)
				}
				ops.Add(1)
			}
		}()
	}
	wg.Wait()
	c, el := cpu()-c0, time.Since(t0)
	fmt.Printf("raw OP_MSG: %d ops, %.0f ops/s, client CPU %.1f µs/op\n", ops.Load(), float64(ops.Load())/el.Seconds(), float64(c.Microseconds())/float64(ops.Load()))
}
