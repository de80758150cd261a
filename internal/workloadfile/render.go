package workloadfile

import (
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"math"
	"strconv"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// maxShown bounds how much of a string or binary Render shows.
const maxShown = 60

// Render writes a BSON document as relaxed Extended JSON, long strings
// and binaries cut short (it shows what a file sends; it is not a
// round-trip format).
func Render(doc []byte) string {
	var b strings.Builder
	renderDoc(&b, doc, false)
	return b.String()
}

func renderDoc(b *strings.Builder, doc []byte, array bool) {
	open, close := "{", "}"
	if array {
		open, close = "[", "]"
	}
	b.WriteString(open)
	if len(doc) < 5 {
		b.WriteString(close)
		return
	}
	body := doc[4 : len(doc)-1]
	first := true
	for len(body) > 0 {
		t := body[0]
		end := bytes.IndexByte(body[1:], 0) // not string(body[1:]): that copies the rest, per element
		if end < 0 {
			break
		}
		key := string(body[1 : 1+end])
		body = body[2+end:]
		if !first {
			b.WriteString(", ")
		}
		first = false
		if !array {
			b.WriteString(strconv.Quote(key) + ": ")
		}
		n := renderValue(b, t, body)
		if n < 0 || n > len(body) {
			b.WriteString("…")
			break
		}
		body = body[n:]
	}
	b.WriteString(close)
}

// renderValue writes one value and returns its length in bytes (-1 for
// a type it does not know).
func renderValue(b *strings.Builder, t byte, v []byte) int {
	u32 := func() int { return int(binary.LittleEndian.Uint32(v)) }
	switch t {
	case typeDouble:
		f := math.Float64frombits(binary.LittleEndian.Uint64(v))
		b.WriteString(strconv.FormatFloat(f, 'g', -1, 64))
		return 8
	case typeString:
		n := u32()
		s := string(v[4 : 4+min(n-1, maxShown+4)])
		if n-1 > maxShown {
			s = strings.ToValidUTF8(s[:maxShown], "") + "…"
		}
		b.WriteString(strconv.Quote(s))
		return 4 + n
	case typeDocument, typeArray:
		n := u32()
		renderDoc(b, v[:n], t == typeArray)
		return n
	case typeBinary:
		n := u32()
		data := v[5 : 5+n]
		if v[4] == 4 && n == 16 {
			h := hex.EncodeToString(data)
			b.WriteString(`{"$uuid": "` + h[:8] + "-" + h[8:12] + "-" + h[12:16] + "-" + h[16:20] + "-" + h[20:] + `"}`)
			return 5 + n
		}
		shown := base64.StdEncoding.EncodeToString(data[:min(n, 24)])
		if n > 24 {
			shown += "… (" + strconv.Itoa(n) + " bytes)"
		}
		b.WriteString(`{"$binary": {"base64": "` + shown + `", "subType": "` + hex.EncodeToString(v[4:5]) + `"}}`)
		return 5 + n
	case typeObjectID:
		b.WriteString(`{"$oid": "` + hex.EncodeToString(v[:12]) + `"}`)
		return 12
	case typeBool:
		b.WriteString(strconv.FormatBool(v[0] == 1))
		return 1
	case typeDateTime:
		ms := int64(binary.LittleEndian.Uint64(v))
		b.WriteString(`{"$date": "` + time.UnixMilli(ms).UTC().Format("2006-01-02T15:04:05.000Z") + `"}`)
		return 8
	case typeNull:
		b.WriteString("null")
		return 0
	case typeInt32:
		b.WriteString(strconv.Itoa(int(int32(binary.LittleEndian.Uint32(v)))))
		return 4
	case typeInt64:
		b.WriteString(strconv.FormatInt(int64(binary.LittleEndian.Uint64(v)), 10))
		return 8
	}
	n := valueLen(t, v)
	if n >= 0 {
		b.WriteString(bson.RawValue{Type: bson.Type(t), Value: v[:n]}.String())
	}
	return n
}
