package hist

import (
	"bytes"
	"compress/zlib"
	"encoding/base64"
	"encoding/binary"
	"math"
	"sync"
)

// The HdrHistogram V2 compressed encoding, written here rather than by
// the library's Encode, which makes a new zlib writer (about 1 MB of
// compressor state, allocated and cleared) for every histogram: at 10
// intervals a second of two operation types that was a fifth of the
// client's CPU. The bytes are the library's, bit for bit (the same
// payload, compressed at the same level by a writer reused from a pool):
// every HdrHistogram implementation reads them.
const (
	v2Cookie           int32 = 0x1c849303 | 0x10
	v2CompressedCookie int32 = 0x1c849304 | 0x10
)

// encoder is one encoding's reusable state.
type encoder struct {
	varints    []byte
	compressed bytes.Buffer
	z          *zlib.Writer
}

var encoders = sync.Pool{New: func() any {
	e := &encoder{}
	e.z, _ = zlib.NewWriterLevel(&e.compressed, zlib.BestCompression) // a valid level: never fails
	return e
}}

// encode is h in the V2 compressed encoding, base64 text.
func encode(h *H) (string, error) {
	e := encoders.Get().(*encoder)
	defer encoders.Put(e)
	s := h.Export()
	counts := s.Counts
	n := len(counts)
	for n > 1 && counts[n-1] == 0 {
		n-- // the library writes counts up to the maximum's
	}
	counts = counts[:max(n, 1)]
	varints := e.varints[:0]
	for i := 0; i < len(counts); {
		c := counts[i]
		i++
		if c == 0 {
			zeros := int64(1)
			for i < len(counts) && counts[i] == 0 {
				zeros++
				i++
			}
			if zeros > 1 {
				c = -zeros
			}
		}
		varints = zigzag(varints, c)
	}
	ratio := s.IntegerToDoubleConversionRatio
	if ratio == 0 {
		ratio = 1
	}
	e.varints = varints
	var head [40]byte
	binary.BigEndian.PutUint32(head[0:], uint32(v2Cookie))
	binary.BigEndian.PutUint32(head[4:], uint32(len(varints)))
	binary.BigEndian.PutUint32(head[8:], 0) // normalizing index offset
	binary.BigEndian.PutUint32(head[12:], uint32(s.SignificantFigures))
	binary.BigEndian.PutUint64(head[16:], uint64(s.LowestTrackableValue))
	binary.BigEndian.PutUint64(head[24:], uint64(s.HighestTrackableValue))
	binary.BigEndian.PutUint64(head[32:], math.Float64bits(ratio))
	e.compressed.Reset()
	e.z.Reset(&e.compressed)
	for _, b := range [][]byte{head[:], varints} {
		if _, err := e.z.Write(b); err != nil {
			return "", err
		}
	}
	if err := e.z.Close(); err != nil {
		return "", err
	}
	out := make([]byte, 8+e.compressed.Len())
	binary.BigEndian.PutUint32(out[0:], uint32(v2CompressedCookie))
	binary.BigEndian.PutUint32(out[4:], uint32(e.compressed.Len()))
	copy(out[8:], e.compressed.Bytes())
	return base64.StdEncoding.EncodeToString(out), nil
}

// zigzag appends v as a ZigZag LEB128 varint of at most 9 bytes, the
// last one whole, as HdrHistogram writes it.
func zigzag(b []byte, v int64) []byte {
	u := uint64((v << 1) ^ (v >> 63))
	for i := 0; i < 8; i++ {
		if u>>7 == 0 {
			return append(b, byte(u))
		}
		b = append(b, byte(u&0x7f|0x80))
		u >>= 7
	}
	return append(b, byte(u))
}
