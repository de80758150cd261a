package ftdc

import (
	"math/rand/v2"
	"strconv"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/testsupport/ftdcwrite"
)

// benchChunk is a chunk shaped like a real mongod's: 3,000 metrics × 300
// samples (a full chunk at the server's default), six in ten metrics
// constant, three in ten counters moving by up to 100 a second, one in
// ten moving by up to a million.
func benchChunk(b *testing.B) []byte {
	const metrics, samples = 3000, 300
	rng := rand.New(rand.NewPCG(1, 2))
	kind := make([]int, metrics)
	for i := range kind {
		kind[i] = rng.IntN(10)
	}
	vals := make([]int64, metrics)
	c := &ftdcwrite.Compressor{MaxSamples: samples - 1}
	var data []byte
	for s := range samples {
		group := bson.D{}
		var sec bson.D
		for m := range metrics {
			switch {
			case kind[m] < 6:
			case kind[m] < 9:
				vals[m] += rng.Int64N(100)
			default:
				vals[m] += rng.Int64N(1_000_000)
			}
			sec = append(sec, bson.E{Key: "m" + strconv.Itoa(m), Value: vals[m]})
			if len(sec) == 100 {
				group = append(group, bson.E{Key: "g" + strconv.Itoa(m/100), Value: sec})
				sec = nil
			}
		}
		doc := bson.D{{Key: "start", Value: date(s)}, {Key: "serverStatus", Value: group}, {Key: "end", Value: date(s)}}
		if d := c.Add(doc); d != nil {
			data = d
		}
	}
	if data == nil {
		b.Fatal("no chunk")
	}
	return data
}

// BenchmarkDecodeChunk: bench/ftdc.sh reads samples per second from it.
func BenchmarkDecodeChunk(b *testing.B) {
	data := benchChunk(b)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		c, err := DecodeChunk(data)
		if err != nil || c.Samples != 300 {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(300*b.N)/b.Elapsed().Seconds(), "samples/s")
}
