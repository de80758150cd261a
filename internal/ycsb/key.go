package ycsb

import "strconv"

// FNV-1a parameters, as in YCSB's Utils.
const (
	fnvOffsetBasis64 = -3750763034362895579 // 0xCBF29CE484222325 as a signed int64
	fnvPrime64       = 1099511628211
)

// FNVHash64 is YCSB's Utils.fnvhash64: 64-bit FNV-1a over the eight bytes
// of v, low byte first, returned as an absolute value. Like Java's
// Math.abs, it leaves math.MinInt64 negative.
func FNVHash64(v int64) int64 {
	h := int64(fnvOffsetBasis64)
	for range 8 {
		h ^= v & 0xff
		h *= fnvPrime64
		v >>= 8
	}
	if h < 0 {
		h = -h
	}
	return h
}

// KeyName is YCSB's CoreWorkload.buildKeyName: "user" followed by the key
// number, hashed with FNVHash64 unless ordered, left-padded with zeros to
// zeroPadding digits.
func KeyName(keynum int64, zeroPadding int, ordered bool) string {
	return string(AppendKeyName(make([]byte, 0, 24), keynum, zeroPadding, ordered))
}

// AppendKeyName appends KeyName's key to dst.
func AppendKeyName(dst []byte, keynum int64, zeroPadding int, ordered bool) []byte {
	if !ordered {
		keynum = FNVHash64(keynum)
	}
	var buf [20]byte
	digits := strconv.AppendInt(buf[:0], keynum, 10)
	dst = append(dst, "user"...)
	for range zeroPadding - len(digits) {
		dst = append(dst, '0')
	}
	return append(dst, digits...)
}
