package infer

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.yaml.in/yaml/v3"
)

// bsonNode writes a BSON value as YAML that workloadfile reads back as
// the same value: numbers, text, booleans, nulls, dates, documents and
// arrays as plain YAML (an int64 as !int N), any other type as !ejson.
// A document's top-level _id is left out when dropID.
func bsonNode(v bson.RawValue, dropID bool) *yaml.Node {
	switch v.Type {
	case bson.TypeNull:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!null", Value: "null"}
	case bson.TypeBoolean:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!bool", Value: strconv.FormatBool(v.Boolean())}
	case bson.TypeInt32:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!int", Value: strconv.FormatInt(int64(v.Int32()), 10)}
	case bson.TypeInt64:
		return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!int", Value: strconv.FormatInt(v.Int64(), 10)}
	case bson.TypeDouble:
		f := v.Double()
		if !math.IsNaN(f) && !math.IsInf(f, 0) {
			s := strconv.FormatFloat(f, 'g', -1, 64)
			if !strings.ContainsAny(s, ".eE") {
				s += ".0"
			}
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!float", Value: s}
		}
	case bson.TypeString:
		if s := v.StringValue(); utf8.ValidString(s) {
			return str(s)
		}
	case bson.TypeDateTime:
		if t := time.UnixMilli(v.DateTime()).UTC(); t.Year() >= 1 && t.Year() <= 9999 {
			return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!timestamp", Value: t.Format("2006-01-02T15:04:05.000Z")}
		}
	case bson.TypeEmbeddedDocument:
		m := &yaml.Node{Kind: yaml.MappingNode}
		elems, _ := v.Document().Elements()
		for _, e := range elems {
			if dropID && e.Key() == "_id" {
				continue
			}
			m.Content = append(m.Content, str(e.Key()), bsonNode(e.Value(), false))
		}
		return m
	case bson.TypeArray:
		s := &yaml.Node{Kind: yaml.SequenceNode}
		vals, _ := v.Array().Values()
		for _, it := range vals {
			s.Content = append(s.Content, bsonNode(it, false))
		}
		if len(vals) == 0 {
			s.Style = yaml.FlowStyle
		}
		return s
	}
	return &yaml.Node{Kind: yaml.ScalarNode, Tag: "!ejson", Value: extJSON(v)}
}

// extJSON is a value as canonical Extended JSON.
func extJSON(v bson.RawValue) string {
	doc := bson.D{{Key: "v", Value: v}}
	b, err := bson.MarshalExtJSON(doc, true, false)
	if err != nil {
		return "null"
	}
	s := strings.TrimSpace(string(b))
	s = strings.TrimPrefix(s, `{"v":`)
	return strings.TrimSpace(strings.TrimSuffix(s, "}"))
}

// typeName is a BSON type's name as $type names it.
func typeName(t bson.Type) string {
	switch t {
	case bson.TypeDouble:
		return "double"
	case bson.TypeString:
		return "string"
	case bson.TypeEmbeddedDocument:
		return "object"
	case bson.TypeArray:
		return "array"
	case bson.TypeBinary:
		return "binData"
	case bson.TypeObjectID:
		return "objectId"
	case bson.TypeBoolean:
		return "bool"
	case bson.TypeDateTime:
		return "date"
	case bson.TypeNull:
		return "null"
	case bson.TypeRegex:
		return "regex"
	case bson.TypeInt32:
		return "int"
	case bson.TypeTimestamp:
		return "timestamp"
	case bson.TypeInt64:
		return "long"
	case bson.TypeDecimal128:
		return "decimal"
	}
	return t.String()
}

// SizePercentiles are the documents' p50 and p95 BSON sizes, in bytes
// (nearest rank).
func SizePercentiles(docs [][]byte) (p50, p95 int) { return sizes(raws(docs)) }

func sizes(docs []bson.Raw) (p50, p95 int) {
	if len(docs) == 0 {
		return 0, 0
	}
	sizes := make([]int, len(docs))
	for i, d := range docs {
		sizes[i] = len(d)
	}
	slices.Sort(sizes)
	rank := func(p float64) int { return sizes[max(0, int(math.Ceil(p*float64(len(sizes))))-1)] }
	return rank(0.50), rank(0.95)
}
