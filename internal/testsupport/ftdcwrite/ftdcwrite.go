// Package ftdcwrite writes MongoDB FTDC files for tests: an encoder
// written from the server's src/mongo/db/ftdc: compressor.cpp
// (addSample, getCompressedSamples), util.cpp
// (extractMetricsFromDocument, createBSONMetricChunkDocument,
// createBSONMetadataDocument) and metadata_compressor.cpp (addSample).
// Its extraction is its own, over the bson.D the tests build, so the
// decoder (internal/ftdc) is checked against it, not against itself.
package ftdcwrite

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"math"
	"strconv"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// Metric is one extracted number and the class of its type (numeric
// types match each other in the schema check).
type Metric struct {
	Path  string
	Class string
	Value uint64
}

// Extract returns a sample's metrics depth first, as the server
// extracts them; prefix and out start empty.
func Extract(d bson.D, prefix string, out []Metric) []Metric {
	for _, e := range d {
		p := e.Key
		if prefix != "" {
			p = prefix + "." + e.Key
		}
		switch v := e.Value.(type) {
		case int32:
			out = append(out, Metric{p, "number", uint64(int64(v))})
		case int64:
			out = append(out, Metric{p, "number", uint64(v)})
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
			out = append(out, Metric{p, "number", uint64(n)})
		case bool:
			var n uint64
			if v {
				n = 1
			}
			out = append(out, Metric{p, "bool", n})
		case bson.DateTime:
			out = append(out, Metric{p, "date", uint64(int64(v))})
		case bson.Timestamp:
			out = append(out, Metric{p + ".t", "timestamp", uint64(v.T)}, Metric{p + ".i", "timestamp", uint64(v.I)})
		case bson.D:
			out = Extract(v, p, out)
		case bson.A:
			sub := make(bson.D, len(v))
			for i, x := range v {
				sub[i] = bson.E{Key: strconv.Itoa(i), Value: x}
			}
			out = Extract(sub, p, out)
		}
	}
	return out
}

func sameSchema(a, b []Metric) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].Path != b[i].Path || a[i].Class != b[i].Class {
			return false
		}
	}
	return true
}

// Compressor is compressor.cpp's FTDCCompressor.
type Compressor struct {
	MaxSamples int
	ref        bson.Raw
	refMetrics []Metric
	prev       []Metric
	deltas     [][]uint64 // per sample after the reference, per metric
}

// Add adds a sample; it returns a chunk's data when the chunk is full or
// the schema changed (then the sample starts the next chunk).
func (c *Compressor) Add(doc bson.D) []byte {
	raw, err := bson.Marshal(doc)
	if err != nil {
		panic(err)
	}
	metrics := Extract(doc, "", nil)
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
		row[i] = metrics[i].Value - c.prev[i].Value // uint64: wraps as the server's does
	}
	c.deltas = append(c.deltas, row)
	c.prev = metrics
	if len(c.deltas) == c.MaxSamples {
		out := c.compressed()
		c.ref = nil
		return out
	}
	return nil
}

// Open reports whether a chunk is in progress.
func (c *Compressor) Open() bool { return c.ref != nil }

func (c *Compressor) reset(raw bson.Raw, metrics []Metric) {
	c.ref, c.refMetrics, c.prev, c.deltas = raw, metrics, metrics, nil
}

// compressed is getCompressedSamples.
func (c *Compressor) compressed() []byte {
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

// Flush returns the chunk in progress, if any (the file manager's close).
func (c *Compressor) Flush() []byte {
	if c.ref == nil {
		return nil
	}
	out := c.compressed()
	c.ref = nil
	return out
}

// ChunkDoc is a metric chunk document (type 1) of data, stamped at.
func ChunkDoc(data []byte, at time.Time) []byte {
	b, _ := bson.Marshal(bson.D{{Key: "_id", Value: bson.NewDateTimeFromTime(at)}, {Key: "type", Value: int32(1)},
		{Key: "data", Value: bson.Binary{Subtype: 0, Data: data}}})
	return b
}

// MetadataDoc is a metadata document (type 0).
func MetadataDoc(doc bson.D, at time.Time) []byte {
	b, _ := bson.Marshal(bson.D{{Key: "_id", Value: bson.NewDateTimeFromTime(at)}, {Key: "type", Value: int32(0)}, {Key: "doc", Value: doc}})
	return b
}

// MetadataCompressor is metadata_compressor.cpp's
// FTDCMetadataCompressor: two levels of fields compared.
type MetadataCompressor struct {
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

// Add returns the document to write (nil: nothing changed) and its index.
func (m *MetadataCompressor) Add(sample bson.D) (bson.D, int) {
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

// PeriodicDoc is a periodic metadata document (type 2) with its index.
func PeriodicDoc(doc bson.D, index int, at time.Time) []byte {
	b, _ := bson.Marshal(bson.D{{Key: "_id", Value: bson.NewDateTimeFromTime(at)}, {Key: "type", Value: int32(2)},
		{Key: "index", Value: int32(index)}, {Key: "doc", Value: doc}})
	return b
}

// File is an FTDC file's bytes: a metadata document (none when metadata
// is nil, as in an interim file), then the samples
// in chunks of at most maxSamples samples after each chunk's reference
// (the server's default is 300 samples a chunk), each chunk stamped with
// its first sample's start field (a bson.DateTime).
func File(metadata bson.D, samples []bson.D, maxSamples int) []byte {
	var b bytes.Buffer
	at := func(d bson.D) time.Time {
		for _, e := range d {
			if t, ok := e.Value.(bson.DateTime); ok && e.Key == "start" {
				return t.Time()
			}
		}
		return time.Time{}
	}
	if metadata != nil {
		var t time.Time
		if len(samples) > 0 {
			t = at(samples[0])
		}
		b.Write(MetadataDoc(metadata, t))
	}
	c := &Compressor{MaxSamples: maxSamples}
	first := 0
	for i, s := range samples {
		data := c.Add(s)
		if data == nil {
			continue
		}
		b.Write(ChunkDoc(data, at(samples[first])))
		first = i
		if !c.Open() { // the sample closed the chunk
			first = i + 1
		}
	}
	if data := c.Flush(); data != nil {
		b.Write(ChunkDoc(data, at(samples[first])))
	}
	return b.Bytes()
}
