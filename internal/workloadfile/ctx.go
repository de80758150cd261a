package workloadfile

import (
	"math/rand/v2"
	"time"

	"github.com/brianvoe/gofakeit/v7"

	"github.com/mongobench/mongobench/internal/ycsb"
)

// A Gen is one worker's generator of a File's values: its random source,
// its fake-data source on the same stream, its per-worker distributions
// and the values shared by the steps of the iteration it is generating.
// It belongs to one goroutine.
type Gen struct {
	f    *File
	pcg  *rand.PCG
	r    *rand.Rand
	fake *gofakeit.Faker
	zipf []*ycsb.Zipfian
	// index is the seed document being generated, -1 at run time.
	index int64
	// vals holds the current iteration's shared values, each an element
	// with an empty key (absent: nil).
	vals [][]byte
	buf  []byte
	now  func() time.Time
	x    *exprState // the file's expressions' state (nil: none evaluated yet)
	// refused is why the command last generated may not be sent (nil:
	// it may); Refused reads it
	refused error
}

// NewGen returns the generator of worker (distinct per worker,
// repeatable per seed).
func (f *File) NewGen(seed int64, worker int) *Gen {
	g := &Gen{f: f, pcg: rand.NewPCG(uint64(seed), uint64(worker)+1), index: -1, now: time.Now}
	g.r = rand.New(g.pcg)
	g.fake = gofakeit.NewFaker(g.pcg, false)
	g.zipf = make([]*ycsb.Zipfian, len(f.zipfs))
	for i, z := range f.zipfs {
		g.zipf[i] = ycsb.Clone(z).(*ycsb.Zipfian)
	}
	g.vals = make([][]byte, f.maxValues)
	return g
}

// Rand is the generator's random source.
func (g *Gen) Rand() *rand.Rand { return g.r }

// seedDoc sets the generator to seed document index of a collection: its
// random stream depends on the run's seed and the index alone, so a
// document is the same whichever loader builds it.
func (g *Gen) seedDoc(seed int64, c *Collection, index int64) {
	g.pcg.Seed(uint64(seed)^c.salt, uint64(index))
	g.index = index
}

// begin starts an iteration of op: its shared values are drawn once.
func (g *Gen) begin(op *Op) {
	g.buf = g.buf[:0]
	for i, v := range op.values {
		start := len(g.buf)
		g.buf = v.gen.element(g.buf, "", g)
		if len(g.buf) == start {
			g.vals[i] = nil
			continue
		}
		g.vals[i] = g.buf[start:len(g.buf):len(g.buf)]
	}
}
