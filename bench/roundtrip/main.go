// Command roundtrip measures the Go driver's round trip to a server
// directly and through a proxy (mongobench record), alternating in
// blocks so both see the same machine at the same moments, and prints
// each side's percentiles and the proxy's added latency (bench/record.sh,
// bench/RESULTS.md).
//
//	go run ./bench/roundtrip DIRECT_URI PROXY_URI [round trips per side]
//
// A round trip is a find of one document by _id (a 200-byte document,
// seeded first) on one connection, one at a time.
package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
)

func main() {
	if len(os.Args) < 3 {
		fmt.Fprintln(os.Stderr, "usage: roundtrip DIRECT_URI PROXY_URI [round trips per side]")
		os.Exit(2)
	}
	n := 20000
	if len(os.Args) > 3 {
		v, err := strconv.Atoi(os.Args[3])
		if err != nil || v < 100 || v > 10_000_000 {
			fmt.Fprintln(os.Stderr, "round trips per side: 100 to 10,000,000")
			os.Exit(2)
		}
		n = v
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	var colls [2]*mongo.Collection
	for i, uri := range os.Args[1:3] {
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
	var lat [2][]time.Duration
	const block = 500
	var doc bson.Raw
	for done := 0; done < n; done += block {
		for side := range 2 {
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
	fmt.Println("| path | round trips | p50 µs | p90 µs | p99 µs | p99.9 µs |")
	fmt.Println("|---|---:|---:|---:|---:|---:|")
	for side, name := range []string{"direct", "through the proxy"} {
		slices.Sort(lat[side])
		d := lat[side]
		fmt.Printf("| %s | %d | %s | %s | %s | %s |\n", name, len(d), us(q(d, .5)), us(q(d, .9)), us(q(d, .99)), us(q(d, .999)))
	}
	fmt.Printf("| added by the proxy | | %s | %s | %s | %s |\n",
		us(q(lat[1], .5)-q(lat[0], .5)), us(q(lat[1], .9)-q(lat[0], .9)), us(q(lat[1], .99)-q(lat[0], .99)), us(q(lat[1], .999)-q(lat[0], .999)))
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "roundtrip:", err)
	os.Exit(1)
}
