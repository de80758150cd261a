// Command ftdcgen writes an FTDC file for the benchmarks: -n samples of
// a mongod (internal/testsupport/ftdcwrite's Sample), -period apart,
// from 2026-01-01, in chunks of 300 samples as the server writes them.
// With -split it writes 8.0's role-split layout of a shard member, with
// -filler extra serverStatus counters (5,430 make 5,500 metrics a
// sample). bench/ftdc.sh and bench/ftdc-memory.sh use it.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/testsupport/ftdcwrite"
)

func main() {
	out := flag.String("out", "", "file to write")
	n := flag.Int("n", 86400, "samples")
	period := flag.Duration("period", time.Second, "time between samples")
	split := flag.Bool("split", false, "8.0's role-split layout (a shard member)")
	filler := flag.Int("filler", 0, "extra serverStatus counters")
	flag.Parse()
	if err := write(*out, *n, *period, *split, *filler); err != nil {
		fmt.Fprintln(os.Stderr, "ftdcgen:", err)
		os.Exit(1)
	}
}

func write(path string, n int, period time.Duration, split bool, filler int) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	s := ftdcwrite.State{V8: true, Filler: filler, CacheMax: 1 << 30, Tickets: 128, NumCPUs: 8, MemTotalKB: 8 << 20, MemAvailableKB: 4 << 20}
	if split {
		s.Split = "shard"
	}
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	if _, err := w.Write(ftdcwrite.MetadataDoc(ftdcwrite.Metadata(s), t0)); err != nil {
		return err
	}
	c := &ftdcwrite.Compressor{MaxSamples: 299}
	first := t0
	var doc bson.D
	for i := range n {
		at := t0.Add(time.Duration(i) * period)
		s.Inserts += 1000
		s.UserMs += 500
		s.IdleMs += 1500
		doc = ftdcwrite.Sample(at, s)
		if data := c.Add(doc); data != nil {
			if _, err := w.Write(ftdcwrite.ChunkDoc(data, first)); err != nil {
				return err
			}
			first = at.Add(period)
		}
	}
	if data := c.Flush(); data != nil {
		if _, err := w.Write(ftdcwrite.ChunkDoc(data, first)); err != nil {
			return err
		}
	}
	if err := w.Flush(); err != nil {
		return err
	}
	return f.Close()
}
