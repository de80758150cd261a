package ftdc

import (
	"fmt"
	"math"
	"math/big"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// maxDepth is the server's recursion limit (util.cpp's kMaxRecursion).
const maxDepth = 10

// Metric is one number of a sample: its dotted path in the sample
// document and the BSON type the reference document gives it. A
// timestamp is two metrics, path.t (seconds) then path.i (increment).
type Metric struct {
	Path string
	Type bson.Type
}

// extract returns a document's metrics and their values, depth first
// (util.cpp's extractMetricsFromDocument).
func extract(doc bson.Raw) ([]Metric, []uint64, error) {
	var metrics []Metric
	var values []uint64
	err := walk(doc, "", 0, func(path string, v bson.RawValue) {
		switch v.Type {
		case bson.TypeTimestamp:
			t, i := v.Timestamp()
			metrics = append(metrics, Metric{path + ".t", v.Type}, Metric{path + ".i", v.Type})
			values = append(values, uint64(t), uint64(i))
		default:
			metrics = append(metrics, Metric{path, v.Type})
			values = append(values, uint64(number(v)))
		}
	})
	return metrics, values, err
}

// walk calls fn for every metric field of doc, depth first.
func walk(doc bson.Raw, prefix string, depth int, fn func(string, bson.RawValue)) error {
	if depth > maxDepth {
		return fmt.Errorf("%s: nested deeper than %d levels", prefix, maxDepth)
	}
	elems, err := doc.Elements()
	if err != nil {
		return fmt.Errorf("%s: %w", prefix, err)
	}
	for _, e := range elems {
		key := e.Key()
		path := key
		if prefix != "" {
			path = prefix + "." + key
		}
		v := e.Value()
		switch v.Type {
		case bson.TypeDouble, bson.TypeInt32, bson.TypeInt64, bson.TypeDecimal128,
			bson.TypeBoolean, bson.TypeDateTime, bson.TypeTimestamp:
			fn(path, v)
		case bson.TypeEmbeddedDocument, bson.TypeArray:
			if err := walk(bson.Raw(v.Value), path, depth+1, fn); err != nil {
				return err
			}
		}
	}
	return nil
}

// number is a metric's value as the server extracts it: numbers as
// BSONElement::numberLong (a double truncated toward zero, NaN as 0,
// beyond the int64 range clamped to it), a bool as 0 or 1, a date as its
// milliseconds.
func number(v bson.RawValue) int64 {
	switch v.Type {
	case bson.TypeDouble:
		return doubleToLong(v.Double())
	case bson.TypeInt32:
		return int64(v.Int32())
	case bson.TypeInt64:
		return v.Int64()
	case bson.TypeDecimal128:
		return decimalToLong(v.Decimal128())
	case bson.TypeBoolean:
		if v.Boolean() {
			return 1
		}
		return 0
	case bson.TypeDateTime:
		return v.DateTime()
	}
	return 0
}

func doubleToLong(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

// decimalToLong truncates a decimal toward zero, clamped to int64.
func decimalToLong(d bson.Decimal128) int64 {
	bi, exp, err := d.BigInt()
	if err != nil { // NaN or infinity
		return 0
	}
	f := new(big.Float).SetInt(bi)
	if exp != 0 {
		p := new(big.Float).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(abs(exp))), nil))
		if exp > 0 {
			f.Mul(f, p)
		} else {
			f.Quo(f, p)
		}
	}
	i, acc := f.Int64()
	_ = acc // Int64 truncates toward zero and clamps, as the server does
	return i
}

func abs(i int) int {
	if i < 0 {
		return -i
	}
	return i
}

// rebuild is util.cpp's constructDocumentFromMetrics: the reference
// document with each metric replaced from row.
func rebuild(ref bson.Raw, row []uint64) (bson.Raw, error) {
	pos := 0
	d, err := rebuildDoc(ref, row, &pos, 0)
	if err != nil {
		return nil, err
	}
	if pos != len(row) {
		return nil, fmt.Errorf("rebuild: %d metrics used of %d", pos, len(row))
	}
	return bson.Marshal(d)
}

func rebuildDoc(doc bson.Raw, row []uint64, pos *int, depth int) (bson.D, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("nested deeper than %d levels", maxDepth)
	}
	elems, err := doc.Elements()
	if err != nil {
		return nil, err
	}
	out := make(bson.D, 0, len(elems))
	next := func() (uint64, error) {
		if *pos >= len(row) {
			return 0, fmt.Errorf("the reference document has more metrics than the chunk")
		}
		v := row[*pos]
		*pos++
		return v, nil
	}
	for _, e := range elems {
		v := e.Value()
		var val any
		switch v.Type {
		case bson.TypeDouble, bson.TypeInt32, bson.TypeInt64, bson.TypeDecimal128:
			n, err := next()
			if err != nil {
				return nil, err
			}
			val = int64(n)
		case bson.TypeBoolean:
			n, err := next()
			if err != nil {
				return nil, err
			}
			val = n != 0
		case bson.TypeDateTime:
			n, err := next()
			if err != nil {
				return nil, err
			}
			val = bson.DateTime(int64(n))
		case bson.TypeTimestamp:
			t, err := next()
			if err != nil {
				return nil, err
			}
			i, err := next()
			if err != nil {
				return nil, err
			}
			val = bson.Timestamp{T: uint32(t), I: uint32(i)}
		case bson.TypeEmbeddedDocument:
			sub, err := rebuildDoc(bson.Raw(v.Value), row, pos, depth+1)
			if err != nil {
				return nil, err
			}
			val = sub
		case bson.TypeArray:
			sub, err := rebuildDoc(bson.Raw(v.Value), row, pos, depth+1)
			if err != nil {
				return nil, err
			}
			arr := make(bson.A, len(sub))
			for i, x := range sub {
				arr[i] = x.Value
			}
			val = arr
		default:
			val = v
		}
		out = append(out, bson.E{Key: e.Key(), Value: val})
	}
	return out, nil
}
