package workloadfile

import (
	"encoding/binary"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.yaml.in/yaml/v3"
)

// ejson compiles !ejson: a plain value written as Extended JSON, for the
// BSON types YAML cannot write (an ObjectId, a Decimal128, a binary of a
// subtype, a regular expression, a timestamp, …). It is read with the
// driver's bson package, once, when the file is read.
func (p *parser) ejson(n *yaml.Node, path string) node {
	if n.Kind != yaml.ScalarNode || n.Value == "" {
		p.errorf(n, path, "got %s: want one value as Extended JSON text, such as '{\"$oid\": \"65a1b2c3d4e5f60718293a4b\"}'", kindOf(n))
		return nullNode
	}
	t, raw, err := readEJSON(n.Value)
	if err != nil {
		p.errorf(n, path, "%v", err)
		return nullNode
	}
	return &literal{t: t, raw: raw}
}

// readEJSON reads one value written as Extended JSON: its BSON type and
// bytes.
func readEJSON(text string) (byte, []byte, error) {
	var doc bson.Raw
	if err := bson.UnmarshalExtJSON([]byte(`{"v": `+text+`}`), false, &doc); err != nil {
		return 0, nil, fmt.Errorf("not Extended JSON: %w: want one value such as '{\"$numberDecimal\": \"1.5\"}'", err)
	}
	v, err := doc.LookupErr("v")
	if err != nil {
		return 0, nil, fmt.Errorf("not one Extended JSON value: %w", err)
	}
	return byte(v.Type), v.Value, nil
}

// ejsonValue is readEJSON's value, ok false when the text is not one.
func ejsonValue(text string) (byte, []byte, bool) {
	t, raw, err := readEJSON(text)
	return t, raw, err == nil
}

// valueLen is the length in bytes of a BSON value of type t at the start
// of v, -1 when v is too short or t unknown.
func valueLen(t byte, v []byte) int {
	u32 := func(at int) int {
		if len(v) < at+4 {
			return -1 << 30
		}
		return int(binary.LittleEndian.Uint32(v[at:]))
	}
	cstring := func(from int) int {
		for i := from; i < len(v); i++ {
			if v[i] == 0 {
				return i + 1
			}
		}
		return -1 << 30
	}
	n := -1
	switch t {
	case 0x01, 0x09, 0x11, 0x12: // double, date, timestamp, int64
		n = 8
	case 0x02, 0x0D, 0x0E: // string, JavaScript, symbol
		n = 4 + u32(0)
	case 0x03, 0x04, 0x0F: // document, array, code with scope
		n = u32(0)
	case 0x05: // binary
		n = 5 + u32(0)
	case 0x06, 0x0A, 0x7F, 0xFF: // undefined, null, max key, min key
		n = 0
	case 0x07: // ObjectId
		n = 12
	case 0x08: // bool
		n = 1
	case 0x0B: // regular expression: two C strings
		n = cstring(cstring(0))
	case 0x0C: // DBPointer
		n = 4 + u32(0) + 12
	case 0x10: // int32
		n = 4
	case 0x13: // Decimal128
		n = 16
	}
	if n < 0 || n > len(v) {
		return -1
	}
	return n
}
