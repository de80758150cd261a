// Command roundtrip measures the Go driver's round trip to a server
// directly and through proxies (mongobench record; a plain relay that
// copies bytes and records nothing, for reference), alternating in
// blocks so all see the same machine at the same moments, and prints
// each path's percentiles and what each proxy adds (bench/record.sh,
// bench/RESULTS.md).
//
//	go run ./bench/roundtrip DIRECT_URI PROXY_URI [RELAY_URI] -n ROUND_TRIPS
//	go run ./bench/roundtrip relay LISTEN TARGET   # the plain relay
//
// A round trip is a find of one document by _id (a 200-byte document,
// seeded first) on one connection, one at a time.
package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"slices"
	"strconv"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

func main() {
	if len(os.Args) == 4 && os.Args[1] == "relay" {
		relay(os.Args[2], os.Args[3])
		return
	}
	n := 20000
	var uris []string
	for i := 1; i < len(os.Args); i++ {
		if os.Args[i] == "-n" && i+1 < len(os.Args) {
			v, err := strconv.Atoi(os.Args[i+1])
			if err != nil || v < 100 || v > 10_000_000 {
				fmt.Fprintln(os.Stderr, "-n: round trips per path, 100 to 10,000,000")
				os.Exit(2)
			}
			n = v
			i++
			continue
		}
		uris = append(uris, os.Args[i])
	}
	if len(uris) < 2 || len(uris) > 3 {
		fmt.Fprintln(os.Stderr, "usage: roundtrip DIRECT_URI PROXY_URI [RELAY_URI] [-n ROUND_TRIPS]")
		os.Exit(2)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	colls := make([]*mongo.Collection, len(uris))
	for i, uri := range uris {
		c, err := mongo.Connect(options.Client().ApplyURI(uri).SetMaxPoolSize(1))
		if err != nil {
			fail(err)
		}
		defer func() { _ = c.Disconnect(ctx) }()
		colls[i] = c.Database("mongobench_roundtrip").Collection("docs")
	}
	_ = colls[0].Drop(ctx)
	docs := make([]any, 1000)
	for i := range docs {
		docs[i] = bson.D{{Key: "_id", Value: i}, {Key: "pad", Value: string(make([]byte, 180))}}
	}
	if _, err := colls[0].InsertMany(ctx, docs); err != nil {
		fail(err)
	}
	defer func() { _ = colls[0].Drop(ctx) }()
	lat := make([][]time.Duration, len(uris))
	const block = 500
	var doc bson.Raw
	for done := 0; done < n; done += block {
		for side := range uris {
			for i := range block {
				start := time.Now()
				err := colls[side].FindOne(ctx, bson.D{{Key: "_id", Value: (done + i) % 1000}}).Decode(&doc)
				if err != nil {
					fail(err)
				}
				lat[side] = append(lat[side], time.Since(start))
			}
		}
	}
	q := func(d []time.Duration, p float64) time.Duration { return d[int(p*float64(len(d)-1))] }
	us := func(d time.Duration) string { return fmt.Sprintf("%.1f", float64(d)/float64(time.Microsecond)) }
	names := []string{"direct", "through mongobench record", "through a plain relay"}
	fmt.Println("| path | round trips | p50 µs | p90 µs | p99 µs | p99.9 µs |")
	fmt.Println("|---|---:|---:|---:|---:|---:|")
	for side := range uris {
		slices.Sort(lat[side])
		d := lat[side]
		fmt.Printf("| %s | %d | %s | %s | %s | %s |\n", names[side], len(d), us(q(d, .5)), us(q(d, .9)), us(q(d, .99)), us(q(d, .999)))
	}
	for side := 1; side < len(uris); side++ {
		fmt.Printf("| added %s | | %s | %s | %s | %s |\n", names[side],
			us(q(lat[side], .5)-q(lat[0], .5)), us(q(lat[side], .9)-q(lat[0], .9)), us(q(lat[side], .99)-q(lat[0], .99)), us(q(lat[side], .999)-q(lat[0], .999)))
	}
}

// relay forwards every connection on listen to target, copying bytes
// both ways and nothing else: what any proxy costs.
func relay(listen, target string) {
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		fail(err)
	}
	for {
		c, err := ln.Accept()
		if err != nil {
			fail(err)
		}
		go func() {
			up, err := net.Dial("tcp", target)
			if err != nil {
				_ = c.Close()
				return
			}
			go func() { _, _ = io.Copy(up, c); _ = up.Close() }()
			_, _ = io.Copy(c, up)
			_ = c.Close()
		}()
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "roundtrip:", err)
	os.Exit(1)
}
