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

// The server refuses chunks beyond these sizes (decompressor.cpp); so does
// the decoder, so a corrupt length cannot make it allocate gigabytes.
const (
	maxUncompressed  = 10_000_000
	maxMetricSamples = 1_000_000
)

// Chunk is one decoded metric chunk: the reference sample and the samples
// after it, every metric's values kept as a column.
type Chunk struct {
	// Reference is the chunk's first sample as the server stored it.
	Reference bson.Raw
	// Metrics are the numbers of a sample, in extraction order.
	Metrics []Metric
	// Samples is the number of samples: the reference and those after it.
	Samples int
	// values holds metric m's value in sample s at m*Samples+s, as the
	// server's uint64 (two's complement of the int64 it extracted).
	values []uint64
	index  map[string]int
	layout *Layout
}

// Value is metric m's value in sample s.
func (c *Chunk) Value(m, s int) int64 { return int64(c.values[m*c.Samples+s]) }

// Column is metric m's values in every sample, in order. The slice is
// the chunk's own; do not modify it.
func (c *Chunk) Column(m int) []int64 {
	col := c.values[m*c.Samples : (m+1)*c.Samples]
	out := make([]int64, len(col))
	for i, v := range col {
		out[i] = int64(v)
	}
	return out
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
	m := c.Find("start")
	if m < 0 || c.Metrics[m].Type != bson.TypeDateTime {
		return nil
	}
	out := make([]time.Time, c.Samples)
	for s := range out {
		out[s] = time.UnixMilli(c.Value(m, s)).UTC()
	}
	return out
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
		row[m] = c.values[m*c.Samples+s]
	}
	return rebuild(c.Reference, row)
}

// DecodeChunk decodes a metric chunk's data (the BinData of a type 1
// document).
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
	if uint64(metricCount)*uint64(deltaCount) > maxMetricSamples {
		return nil, fmt.Errorf("metric chunk: %d metrics × %d samples is above the server's limit of %d", metricCount, deltaCount, maxMetricSamples)
	}
	metrics, first, err := extract(ref)
	if err != nil {
		return nil, fmt.Errorf("metric chunk: reference document: %w", err)
	}
	if len(metrics) != int(metricCount) {
		return nil, fmt.Errorf("metric chunk: the reference document has %d metrics, the chunk says %d", len(metrics), metricCount)
	}
	samples := int(deltaCount) + 1
	c := &Chunk{Reference: ref, Metrics: metrics, Samples: samples, values: make([]uint64, len(metrics)*samples)}
	if err := c.inflate(raw[refLen+8:], first); err != nil {
		return nil, err
	}
	return c, nil
}

// inflate reads the deltas (decompressor.cpp's loop: a zero run carries
// across metrics) and sums them from the reference's values.
func (c *Chunk) inflate(buf []byte, first []uint64) error {
	deltas := c.Samples - 1
	pos := 0
	var zeros uint64
	for m := range c.Metrics {
		col := c.values[m*c.Samples : (m+1)*c.Samples]
		v := first[m]
		col[0] = v
		for s := 1; s <= deltas; s++ {
			if zeros > 0 {
				zeros--
				col[s] = v
				continue
			}
			d, n := uvarint(buf[pos:])
			if n <= 0 {
				return fmt.Errorf("metric chunk: metric %d (%s), sample %d: truncated varint at byte %d of %d", m, c.Metrics[m].Path, s, pos, len(buf))
			}
			pos += n
			if d == 0 {
				z, n := uvarint(buf[pos:])
				if n <= 0 {
					return fmt.Errorf("metric chunk: metric %d (%s), sample %d: truncated zero run at byte %d of %d", m, c.Metrics[m].Path, s, pos, len(buf))
				}
				pos += n
				zeros = z
			}
			v += d
			col[s] = v
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
