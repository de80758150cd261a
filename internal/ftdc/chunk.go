package ftdc

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"io"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// maxUncompressed is the server's bound on a chunk's uncompressed size
// (decompressor.cpp): the decoder refuses a larger declared length
// before it inflates anything, so a corrupt length cannot make it
// allocate more. Within it, a chunk costs its uncompressed bytes and a
// few words per metric: its values are decoded as they are read, column
// by column or sample by sample, never held as a metrics × samples
// matrix.
const maxUncompressed = 10_000_000

// MaxChunkSamples is the most samples the decoder takes in one chunk:
// 3,495 times the server's default of 300, about 12 days of one-second
// samples in one chunk. Zero runs let a few bytes declare any count, so
// a count is only bounded here; a real file's chunks hold a few hundred.
const MaxChunkSamples = 1 << 20

// Chunk is one decoded metric chunk: the reference sample and the
// samples after it, each metric's deltas kept as the server wrote them
// and decoded on demand.
type Chunk struct {
	// Reference is the chunk's first sample as the server stored it.
	Reference bson.Raw
	// Metrics are the numbers of a sample, in extraction order.
	Metrics []Metric
	// Samples is the number of samples: the reference and those after it.
	Samples int
	first   []uint64 // each metric's value in the reference
	deltas  []byte   // the delta stream after the counts
	starts  []cursor // where each metric's deltas start in it
	index   map[string]int
	layout  *Layout
}

// cursor is a position in a chunk's delta stream: the byte of the next
// varint and the zeros of a run still to give (a run carries over from
// one metric's column into the next).
type cursor struct {
	pos   int
	zeros uint64
}

// next is the next delta of the stream at cur.
func (c *Chunk) next(cur *cursor) uint64 {
	if cur.zeros > 0 {
		cur.zeros--
		return 0
	}
	d, n := uvarint(c.deltas[cur.pos:])
	cur.pos += n
	if d == 0 {
		z, n := uvarint(c.deltas[cur.pos:])
		cur.pos += n
		cur.zeros = z
	}
	return d
}

// column decodes metric m's values into dst (resized to the samples).
func (c *Chunk) column(m int, dst []uint64) []uint64 {
	dst = append(dst[:0], c.first[m])
	cur := c.starts[m]
	v := c.first[m]
	for s := 1; s < c.Samples; s++ {
		v += c.next(&cur)
		dst = append(dst, v)
	}
	return dst
}

// Value is metric m's value in sample s (decoding its column up to s).
func (c *Chunk) Value(m, s int) int64 {
	cur := c.starts[m]
	v := c.first[m]
	for range s {
		v += c.next(&cur)
	}
	return int64(v)
}

// Column is metric m's values in every sample, in order.
func (c *Chunk) Column(m int) []int64 {
	col := c.column(m, make([]uint64, 0, c.Samples))
	out := make([]int64, len(col))
	for i, v := range col {
		out[i] = int64(v)
	}
	return out
}

// Rows calls fn with each sample's values of the metrics named, sample
// by sample: row[i] is metrics[i]'s value. The row is reused: fn copies
// what it keeps. Memory is the few metrics', whatever the samples; fn's
// error ends the rows.
func (c *Chunk) Rows(metrics []int, fn func(s int, row []int64) error) error {
	curs := make([]cursor, len(metrics))
	vals := make([]uint64, len(metrics))
	row := make([]int64, len(metrics))
	for i, m := range metrics {
		curs[i], vals[i] = c.starts[m], c.first[m]
		row[i] = int64(vals[i])
	}
	for s := range c.Samples {
		if s > 0 {
			for i := range metrics {
				vals[i] += c.next(&curs[i])
				row[i] = int64(vals[i])
			}
		}
		if err := fn(s, row); err != nil {
			return err
		}
	}
	return nil
}

// Find returns the index of the first metric at path, or -1. Duplicate
// paths are reached with FindAll.
func (c *Chunk) Find(path string) int {
	if c.index == nil {
		c.index = make(map[string]int, len(c.Metrics))
		for i := len(c.Metrics) - 1; i >= 0; i-- {
			c.index[c.Metrics[i].Path] = i
		}
	}
	if i, ok := c.index[path]; ok {
		return i
	}
	return -1
}

// FindAll returns the indexes of every metric at path, in order.
func (c *Chunk) FindAll(path string) []int {
	var out []int
	for i, m := range c.Metrics {
		if m.Path == path {
			out = append(out, i)
		}
	}
	return out
}

// Times is each sample's collection start (the top-level start field),
// or nil when the samples have none.
func (c *Chunk) Times() []time.Time {
	m := c.TimeMetric()
	if m < 0 {
		return nil
	}
	out := make([]time.Time, c.Samples)
	for s, v := range c.column(m, make([]uint64, 0, c.Samples)) {
		out[s] = time.UnixMilli(int64(v)).UTC()
	}
	return out
}

// TimeMetric is the metric of the samples' collection start (the
// top-level start date), or -1.
func (c *Chunk) TimeMetric() int {
	m := c.Find("start")
	if m < 0 || c.Metrics[m].Type != bson.TypeDateTime {
		return -1
	}
	return m
}

// Sample rebuilds sample s as the server's decompressor does: the
// reference document with every metric replaced by its value in s,
// numbers as int64, other fields as in the reference.
func (c *Chunk) Sample(s int) (bson.Raw, error) {
	if s < 0 || s >= c.Samples {
		return nil, fmt.Errorf("sample %d: the chunk has %d", s, c.Samples)
	}
	row := make([]uint64, len(c.Metrics))
	for m := range row {
		row[m] = uint64(c.Value(m, s))
	}
	return rebuild(c.Reference, row)
}

// DecodeChunk decodes a metric chunk's data (the BinData of a type 1
// document). It refuses what is inconsistent: an uncompressed length
// above the server's bound or that the zlib stream does not hold, a
// reference document whose metric count differs from the chunk's, delta
// counts that the payload cannot hold, more than MaxChunkSamples samples.
func DecodeChunk(data []byte) (*Chunk, error) {
	if len(data) < 4 {
		return nil, fmt.Errorf("metric chunk of %d bytes: shorter than its 4-byte length", len(data))
	}
	n := binary.LittleEndian.Uint32(data)
	if n > maxUncompressed {
		return nil, fmt.Errorf("metric chunk: uncompressed length %d is above the server's limit of %d", n, maxUncompressed)
	}
	zr, err := zlib.NewReader(bytes.NewReader(data[4:]))
	if err != nil {
		return nil, fmt.Errorf("metric chunk: zlib: %w", err)
	}
	raw := make([]byte, n)
	if _, err := io.ReadFull(zr, raw); err != nil {
		return nil, fmt.Errorf("metric chunk: zlib: %d bytes expected: %w", n, err)
	}
	return decodeUncompressed(raw)
}

func decodeUncompressed(raw []byte) (*Chunk, error) {
	if len(raw) < 5 {
		return nil, fmt.Errorf("metric chunk: %d bytes, too short for a reference document", len(raw))
	}
	refLen := int(int32(binary.LittleEndian.Uint32(raw)))
	if refLen < 5 || refLen+8 > len(raw) {
		return nil, fmt.Errorf("metric chunk: reference document of %d bytes in %d", refLen, len(raw))
	}
	ref := bson.Raw(raw[:refLen])
	if err := ref.Validate(); err != nil {
		return nil, fmt.Errorf("metric chunk: reference document: %w", err)
	}
	metricCount := binary.LittleEndian.Uint32(raw[refLen:])
	deltaCount := binary.LittleEndian.Uint32(raw[refLen+4:])
	if deltaCount >= MaxChunkSamples {
		return nil, fmt.Errorf("metric chunk: %d samples after the reference: at most %d are read (the server writes 300 by default)", deltaCount, MaxChunkSamples-1)
	}
	metrics, first, err := extract(ref)
	if err != nil {
		return nil, fmt.Errorf("metric chunk: reference document: %w", err)
	}
	if len(metrics) != int(metricCount) {
		return nil, fmt.Errorf("metric chunk: the reference document has %d metrics, the chunk says %d", len(metrics), metricCount)
	}
	c := &Chunk{Reference: ref, Metrics: metrics, Samples: int(deltaCount) + 1, first: first, deltas: raw[refLen+8:]}
	if err := c.locate(); err != nil {
		return nil, err
	}
	return c, nil
}

// locate finds where each metric's deltas start, reading the stream once
// as decompressor.cpp does (a zero run carries across metrics) without
// keeping the values, and checks the payload holds every delta the
// counts declare.
func (c *Chunk) locate() error {
	deltas := uint64(c.Samples - 1)
	c.starts = make([]cursor, len(c.Metrics))
	var cur cursor
	for m := range c.Metrics {
		c.starts[m] = cur
		for left := deltas; left > 0; {
			if cur.zeros > 0 {
				k := min(cur.zeros, left)
				cur.zeros -= k
				left -= k
				continue
			}
			d, n := uvarint(c.deltas[cur.pos:])
			if n <= 0 {
				return fmt.Errorf("metric chunk: metric %d (%s), sample %d: the payload ends at byte %d: %d metrics × %d samples declared, more than it holds",
					m, c.Metrics[m].Path, deltas-left+1, cur.pos, len(c.Metrics), c.Samples)
			}
			cur.pos += n
			left--
			if d == 0 {
				z, n := uvarint(c.deltas[cur.pos:])
				if n <= 0 {
					return fmt.Errorf("metric chunk: metric %d (%s), sample %d: truncated zero run at byte %d of %d", m, c.Metrics[m].Path, deltas-left, cur.pos, len(c.deltas))
				}
				cur.pos += n
				cur.zeros = z
			}
		}
	}
	return nil
}

// uvarint decodes an unsigned varint (S2's, the same as
// encoding/binary's), inlined for the decoder's inner loop.
func uvarint(b []byte) (uint64, int) {
	if len(b) > 0 && b[0] < 0x80 {
		return uint64(b[0]), 1
	}
	return binary.Uvarint(b)
}
