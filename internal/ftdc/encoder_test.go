package ftdc

// A test encoder written from the server's src/mongo/db/ftdc:
// compressor.cpp (addSample, getCompressedSamples), util.cpp
// (extractMetricsFromDocument, createBSONMetricChunkDocument,
// createBSONMetadataDocument) and metadata_compressor.cpp (addSample).
// Its extraction is its own, over the bson.D the tests build, so the
// decoder's extraction is checked against it, not against itself.

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"math"
	"strconv"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// testMetric is one extracted number and whether its type is numeric
// (numeric types match each other in the schema check).
type testMetric struct {
	path  string
	class string
	value uint64
}

func testExtract(d bson.D, prefix string, out []testMetric) []testMetric {
	for _, e := range d {
		p := e.Key
		if prefix != "" {
			p = prefix + "." + e.Key
		}
		switch v := e.Value.(type) {
		case int32:
			out = append(out, testMetric{p, "number", uint64(int64(v))})
		case int64:
			out = append(out, testMetric{p, "number", uint64(v)})
		case float64:
			var n int64
			switch {
			case math.IsNaN(v):
			case v >= math.MaxInt64:
				n = math.MaxInt64
			case v <= math.MinInt64:
				n = math.MinInt64
			default:
				n = int64(v)
			}
			out = append(out, testMetric{p, "number", uint64(n)})
		case bool:
			var n uint64
			if v {
				n = 1
			}
			out = append(out, testMetric{p, "bool", n})
		case bson.DateTime:
			out = append(out, testMetric{p, "date", uint64(int64(v))})
		case bson.Timestamp:
			out = append(out, testMetric{p + ".t", "timestamp", uint64(v.T)}, testMetric{p + ".i", "timestamp", uint64(v.I)})
		case bson.D:
			out = testExtract(v, p, out)
		case bson.A:
			sub := make(bson.D, len(v))
			for i, x := range v {
				sub[i] = bson.E{Key: strconv.Itoa(i), Value: x}
			}
			out = testExtract(sub, p, out)
		}
	}
	return out
}

func sameSchema(a, b []testMetric) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].path != b[i].path || a[i].class != b[i].class {
			return false
		}
	}
	return true
}

// testCompressor is compressor.cpp's FTDCCompressor.
type testCompressor struct {
	maxSamples int
	ref        bson.Raw
	refMetrics []testMetric
	prev       []testMetric
	deltas     [][]uint64 // per sample after the reference, per metric
}

// add adds a sample; it returns a chunk's data when the chunk is full or
// the schema changed (then the sample starts the next chunk).
func (c *testCompressor) add(doc bson.D) []byte {
	raw, err := bson.Marshal(doc)
	if err != nil {
		panic(err)
	}
	metrics := testExtract(doc, "", nil)
	if c.ref == nil {
		c.reset(raw, metrics)
		return nil
	}
	if !sameSchema(c.refMetrics, metrics) {
		out := c.compressed()
		c.reset(raw, metrics)
		return out
	}
	row := make([]uint64, len(metrics))
	for i := range metrics {
		row[i] = metrics[i].value - c.prev[i].value // uint64: wraps as the server's does
	}
	c.deltas = append(c.deltas, row)
	c.prev = metrics
	if len(c.deltas) == c.maxSamples {
		out := c.compressed()
		c.ref = nil
		return out
	}
	return nil
}

func (c *testCompressor) reset(raw bson.Raw, metrics []testMetric) {
	c.ref, c.refMetrics, c.prev, c.deltas = raw, metrics, metrics, nil
}

// compressed is getCompressedSamples.
func (c *testCompressor) compressed() []byte {
	var buf bytes.Buffer
	buf.Write(c.ref)
	buf.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(c.refMetrics))))
	buf.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(c.deltas))))
	if len(c.refMetrics) != 0 && len(c.deltas) != 0 {
		var zeros uint64
		for i := range c.refMetrics {
			for j := range c.deltas {
				d := c.deltas[j][i]
				if d == 0 {
					zeros++
					continue
				}
				if zeros > 0 {
					buf.Write(binary.AppendUvarint(nil, 0))
					buf.Write(binary.AppendUvarint(nil, zeros-1))
					zeros = 0
				}
				buf.Write(binary.AppendUvarint(nil, d))
			}
			if i == len(c.refMetrics)-1 && zeros > 0 {
				buf.Write(binary.AppendUvarint(nil, 0))
				buf.Write(binary.AppendUvarint(nil, zeros-1))
			}
		}
	}
	var z bytes.Buffer
	w := zlib.NewWriter(&z)
	if _, err := w.Write(buf.Bytes()); err != nil {
		panic(err)
	}
	if err := w.Close(); err != nil {
		panic(err)
	}
	out := binary.LittleEndian.AppendUint32(nil, uint32(buf.Len()))
	return append(out, z.Bytes()...)
}

// flush returns the chunk in progress, if any (the file manager's close).
func (c *testCompressor) flush() []byte {
	if c.ref == nil {
		return nil
	}
	out := c.compressed()
	c.ref = nil
	return out
}

func chunkDoc(data []byte, at time.Time) []byte {
	b, _ := bson.Marshal(bson.D{{Key: "_id", Value: bson.NewDateTimeFromTime(at)}, {Key: "type", Value: int32(1)},
		{Key: "data", Value: bson.Binary{Subtype: 0, Data: data}}})
	return b
}

func metadataDoc(doc bson.D, at time.Time) []byte {
	b, _ := bson.Marshal(bson.D{{Key: "_id", Value: bson.NewDateTimeFromTime(at)}, {Key: "type", Value: int32(0)}, {Key: "doc", Value: doc}})
	return b
}

// testMetadataCompressor is metadata_compressor.cpp's
// FTDCMetadataCompressor: two levels of fields compared.
type testMetadataCompressor struct {
	ref   bson.D
	count int
}

func keys(d bson.D) []string {
	out := make([]string, len(d))
	for i, e := range d {
		out[i] = e.Key
	}
	return out
}

func equalKeys(a, b bson.D) bool {
	ka, kb := keys(a), keys(b)
	if len(ka) != len(kb) {
		return false
	}
	for i := range ka {
		if ka[i] != kb[i] {
			return false
		}
	}
	return true
}

// add returns the document to write (nil: nothing changed) and its index.
func (m *testMetadataCompressor) add(sample bson.D) (bson.D, int) {
	if m.ref == nil || !equalKeys(m.ref, sample) {
		m.ref, m.count = sample, 0
		return sample, 0
	}
	var delta bson.D
	changed := false
	for i, e := range sample {
		if e.Key == "start" || e.Key == "end" {
			delta = append(delta, e)
			continue
		}
		sub, refSub := e.Value.(bson.D), m.ref[i].Value.(bson.D)
		if !equalKeys(sub, refSub) {
			m.ref, m.count = sample, 0
			return sample, 0
		}
		var out bson.D
		lvl2 := false
		for j, f := range sub {
			if f.Key == "start" || f.Key == "end" {
				out = append(out, f)
				continue
			}
			a, _ := bson.Marshal(bson.D{f})
			b, _ := bson.Marshal(bson.D{refSub[j]})
			if !bytes.Equal(a, b) {
				out = append(out, f)
				lvl2 = true
			}
		}
		if lvl2 {
			delta = append(delta, bson.E{Key: e.Key, Value: out})
			changed = true
		}
	}
	if !changed {
		return nil, 0
	}
	m.ref = sample
	m.count++
	return delta, m.count
}

func periodicDoc(doc bson.D, index int, at time.Time) []byte {
	b, _ := bson.Marshal(bson.D{{Key: "_id", Value: bson.NewDateTimeFromTime(at)}, {Key: "type", Value: int32(2)},
		{Key: "index", Value: int32(index)}, {Key: "doc", Value: doc}})
	return b
}
