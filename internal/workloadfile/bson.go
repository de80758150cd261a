package workloadfile

import (
	"encoding/binary"
	"math"
)

// BSON element types the generators write.
const (
	typeDouble   byte = 0x01
	typeString   byte = 0x02
	typeDocument byte = 0x03
	typeArray    byte = 0x04
	typeBinary   byte = 0x05
	typeObjectID byte = 0x07
	typeBool     byte = 0x08
	typeDateTime byte = 0x09
	typeNull     byte = 0x0A
	typeInt32    byte = 0x10
	typeInt64    byte = 0x12
)

// The appenders below write BSON as the specification lays it out
// (bsonspec.org): little-endian lengths and numbers, keys as C strings.
// The tests check their output against the driver's decoder.

func startDoc(dst []byte) (int, []byte) {
	return len(dst), append(dst, 0, 0, 0, 0)
}

func endDoc(dst []byte, at int) []byte {
	dst = append(dst, 0)
	binary.LittleEndian.PutUint32(dst[at:], uint32(len(dst)-at))
	return dst
}

func header(dst []byte, t byte, key string) []byte {
	dst = append(dst, t)
	dst = append(dst, key...)
	return append(dst, 0)
}

func appendInt32(dst []byte, v int32) []byte {
	return binary.LittleEndian.AppendUint32(dst, uint32(v))
}

func appendInt64(dst []byte, v int64) []byte {
	return binary.LittleEndian.AppendUint64(dst, uint64(v))
}

func appendDouble(dst []byte, v float64) []byte {
	return binary.LittleEndian.AppendUint64(dst, math.Float64bits(v))
}

func appendString(dst []byte, s string) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(s)+1))
	dst = append(dst, s...)
	return append(dst, 0)
}

// appendStringBytes appends a string value of n bytes that fill writes.
func appendStringFill(dst []byte, n int, fill func(b []byte)) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, uint32(n+1))
	at := len(dst)
	dst = append(dst, make([]byte, n+1)...)
	fill(dst[at : at+n])
	return dst
}

func appendBinary(dst []byte, subtype byte, b []byte) []byte {
	dst = binary.LittleEndian.AppendUint32(dst, uint32(len(b)))
	dst = append(dst, subtype)
	return append(dst, b...)
}

func appendBool(dst []byte, v bool) []byte {
	if v {
		return append(dst, 1)
	}
	return append(dst, 0)
}

// AppendInt64Element appends the element key: v (an int64).
func AppendInt64Element(dst []byte, key string, v int64) []byte {
	return appendInt64(header(dst, typeInt64, key), v)
}

// arrayKeys are the keys of the first array elements, "0", "1", ….
var arrayKeys = func() []string {
	k := make([]string, 1024)
	for i := range k {
		k[i] = itoa(int64(i))
	}
	return k
}()

func arrayKey(i int) string {
	if i < len(arrayKeys) {
		return arrayKeys[i]
	}
	return itoa(int64(i))
}

func itoa(v int64) string {
	var b [20]byte
	return string(appendItoa(b[:0], v))
}

func appendItoa(dst []byte, v int64) []byte {
	if v < 0 {
		dst = append(dst, '-')
		if v == math.MinInt64 {
			return append(dst, "9223372036854775808"...)
		}
		v = -v
	}
	var b [20]byte
	i := len(b)
	for {
		i--
		b[i] = byte('0' + v%10)
		v /= 10
		if v == 0 {
			break
		}
	}
	return append(dst, b[i:]...)
}
