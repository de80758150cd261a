package infer

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/workloadfile"
)

// sample makes n documents of three shapes: users (a nested address,
// an optional phone, a list of tags), orders (a list of item
// sub-documents, an amount that is an int or a double) and events (a
// payload of varying length, a value of mixed types or null, an
// optional field).
func sample(n int, seed uint64) [][]byte {
	r := rand.New(rand.NewPCG(seed, 1))
	base := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	word := func(lo, hi int) string {
		b := make([]byte, lo+r.IntN(hi-lo+1))
		for i := range b {
			b[i] = byte('a' + r.IntN(26))
		}
		return string(b)
	}
	var docs [][]byte
	for i := range n {
		var d bson.D
		switch i % 3 {
		case 0:
			d = bson.D{{Key: "_id", Value: bson.NewObjectID()}, {Key: "kind", Value: "user"},
				{Key: "name", Value: word(5, 20)}, {Key: "email", Value: word(4, 10) + "@example.com"},
				{Key: "address", Value: bson.D{{Key: "street", Value: word(8, 30)}, {Key: "city", Value: word(4, 12)}, {Key: "zip", Value: fmt.Sprintf("%05d", r.IntN(99999))}}},
				{Key: "tags", Value: bson.A{}}}
			var tags bson.A
			for range r.IntN(6) {
				tags = append(tags, word(3, 8))
			}
			d[5].Value = tags
			if r.Float64() < 0.6 {
				d = append(d, bson.E{Key: "phone", Value: fmt.Sprintf("+1%010d", r.Int64N(1e10))})
			}
		case 1:
			var items bson.A
			for range 1 + r.IntN(8) {
				items = append(items, bson.D{{Key: "sku", Value: word(8, 8)}, {Key: "qty", Value: int32(1 + r.IntN(5))}, {Key: "price", Value: float64(r.IntN(10000)) / 100}})
			}
			var amount any = int64(r.IntN(100000))
			if r.Float64() < 0.3 {
				amount = r.Float64() * 1000
			}
			d = bson.D{{Key: "_id", Value: bson.NewObjectID()}, {Key: "kind", Value: "order"}, {Key: "placed", Value: bson.NewDateTimeFromTime(base.Add(time.Duration(r.IntN(1e6)) * time.Second))},
				{Key: "items", Value: items}, {Key: "amount", Value: amount}, {Key: "paid", Value: r.Float64() < 0.7}}
		default:
			var value any
			switch x := r.Float64(); {
			case x < 0.5:
				value = int32(r.IntN(1000))
			case x < 0.8:
				value = word(2, 10)
			}
			d = bson.D{{Key: "_id", Value: bson.NewObjectID()}, {Key: "kind", Value: "event"}, {Key: "at", Value: base.Add(time.Duration(r.IntN(1e6)) * time.Second).Format(time.RFC3339)},
				{Key: "payload", Value: word(50, 1500)}, {Key: "value", Value: value}}
			if r.Float64() < 0.25 {
				d = append(d, bson.E{Key: "trace", Value: bson.D{{Key: "id", Value: word(16, 16)}, {Key: "span", Value: int64(r.IntN(1 << 30))}}})
			}
		}
		b, err := bson.Marshal(d)
		if err != nil {
			panic(err)
		}
		docs = append(docs, b)
	}
	return docs
}

// seed generates n seed documents of the file's first collection.
func seed(t *testing.T, text []byte, n int) [][]byte {
	t.Helper()
	f, err := workloadfile.Parse("inferred.yaml", text)
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	g := f.NewGen(7, 0)
	var docs [][]byte
	for i := range int64(n) {
		docs = append(docs, g.Seed(nil, f.Collections[0], 7, i))
	}
	return docs
}

// TestInferMatchesTheSample infers a file from 1,500 documents of three
// shapes and generates 3,000: their p50 and p95 sizes are within 10% of
// the source's (3,000 documents of the same making), their paths the
// same, each path's presence and type shares within 0.05.
func TestInferMatchesTheSample(t *testing.T) {
	src := sample(3000, 1)
	text, _, err := Infer(context.Background(), src[:1500], Options{Collection: "things", Seed: 3000, Source: "test.things"})
	if err != nil {
		t.Fatal(err)
	}
	got := ProfileOf(seed(t, text, 3000))
	want := ProfileOf(src)
	if d := want.Differences(got, 0.05, 0.10); len(d) > 0 {
		t.Errorf("the seeded documents depart from the source:\n  %s\n%s", strings.Join(d, "\n  "), text)
	}
	for _, s := range []string{"!fake email", "!choice", "!maybe", "format: rfc3339", "!array", "shape 3"} {
		if !strings.Contains(string(text), s) {
			t.Errorf("the file has no %q:\n%s", s, text)
		}
	}
}

// TestInferStaysWithinAFile infers from samples whose model would make
// a file larger than workloadfile reads (many distinct shapes; one
// document of many fields): the file checks, keeps the fields most
// often present and says how many it left out.
func TestInferStaysWithinAFile(t *testing.T) {
	const fields = 16_000
	wide := bson.D{}
	for i := range fields {
		wide = append(wide, bson.E{Key: fmt.Sprintf("a_field_name_long_enough_to_fill_a_file_quickly_%08d", i), Value: int32(i)})
	}
	var shapes [][]byte
	for i := range fields {
		shape := bson.D{{Key: fmt.Sprintf("a_field_name_long_enough_to_fill_a_file_quickly_%08d", i), Value: int32(i)}}
		if i%2 == 0 {
			shape = append(shape, bson.E{Key: "common", Value: "x"})
		}
		shapes = append(shapes, must(bson.Marshal(shape)))
	}
	for name, docs := range map[string][][]byte{"wide": {must(bson.Marshal(wide))}, "shapes": shapes} {
		text, dropped, err := Infer(context.Background(), docs, Options{Collection: "things", Seed: 10, Source: name})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if len(text) > 1<<20 || dropped == 0 || dropped >= fields {
			t.Errorf("%s: a file of %d bytes, %d fields left out: want at most 1MB, some fields kept", name, len(text), dropped)
		}
		if name == "shapes" && !strings.Contains(string(text), "common:") {
			t.Errorf("shapes: the field present in half the documents is left out")
		}
		if _, err := workloadfile.Parse(name+".yaml", text); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestInferEdges infers files from values at the edges of what a file
// writes: each file checks.
func TestInferEdges(t *testing.T) {
	for _, c := range []struct {
		name string
		doc  bson.D
		seed int64
	}{
		{"date at the int64 minimum", bson.D{{Key: "d", Value: bson.DateTime(math.MinInt64)}}, 1},
		{"date at the int64 maximum", bson.D{{Key: "d", Value: bson.DateTime(math.MaxInt64)}}, 1},
		{"the most documents", bson.D{{Key: "a", Value: int32(1)}}, MaxSeed},
		{"a long repeated text", bson.D{{Key: "s", Value: strings.Repeat("x", 1_100_000)}}, 1},
		{"a name not UTF-8", bson.D{{Key: "\xff", Value: "\xfe"}}, 1},
	} {
		doc := must(bson.Marshal(c.doc))
		if _, _, err := Infer(context.Background(), [][]byte{doc, doc, doc}, Options{Collection: "things", Seed: c.seed, Source: "edges"}); err != nil {
			t.Errorf("%s: %v", c.name, err)
		}
	}
	if _, _, err := Infer(context.Background(), [][]byte{must(bson.Marshal(bson.D{{Key: "a", Value: int32(1)}}))}, Options{Collection: "things", Seed: MaxSeed + 1, Source: "edges"}); err == nil {
		t.Errorf("a seed of MaxSeed+1 checks: want MaxSeed to be workloadfile's bound")
	}
}

func must(b []byte, err error) []byte {
	if err != nil {
		panic(err)
	}
	return b
}

// TestCloneKeepsTheDocuments clones a sample: the seed documents are the
// sample's, with fresh _ids, the first n repeated in order.
func TestCloneKeepsTheDocuments(t *testing.T) {
	src := sample(30, 2)
	text, kept, err := Clone(src, Options{Collection: "things", Seed: 60, Source: "test.things"})
	if err != nil || kept != 30 {
		t.Fatalf("kept %d: %v", kept, err)
	}
	got := seed(t, text, 60)
	ids := map[string]bool{}
	for i, doc := range got {
		d := bson.Raw(doc)
		id := d.Lookup("_id")
		if id.Type != bson.TypeObjectID || ids[id.String()] {
			t.Fatalf("document %d: _id %v: want a fresh ObjectId", i, id)
		}
		ids[id.String()] = true
		want, _ := bson.Raw(src[i%30]).Elements()
		have, _ := d.Elements()
		if len(want) != len(have) {
			t.Fatalf("document %d: %d fields, want %d", i, len(have), len(want))
		}
		for j := 1; j < len(want); j++ {
			if want[j].Key() != have[j].Key() || !want[j].Value().Equal(have[j].Value()) {
				t.Fatalf("document %d field %s: %v, want %v", i, want[j].Key(), have[j].Value(), want[j].Value())
			}
		}
	}
}

// TestCloneKeepsEveryType clones values YAML has no word for (a
// Decimal128, a binary of subtype 3, a regular expression, an int64, a
// timestamp, a NaN) exactly.
func TestCloneKeepsEveryType(t *testing.T) {
	dec, _ := bson.ParseDecimal128("12.50")
	d, _ := bson.Marshal(bson.D{{Key: "_id", Value: 1}, {Key: "dec", Value: dec}, {Key: "bin", Value: bson.Binary{Subtype: 3, Data: []byte("abc")}},
		{Key: "re", Value: bson.Regex{Pattern: "^a", Options: "i"}}, {Key: "n", Value: int64(5)}, {Key: "ts", Value: bson.Timestamp{T: 5, I: 1}},
		{Key: "nan", Value: nanValue()}, {Key: "s", Value: "true"}, {Key: "f", Value: 2.0}, {Key: "date", Value: bson.DateTime(1700000000123)}})
	text, _, err := Clone([][]byte{d}, Options{Collection: "c", Seed: 1, Source: "x"})
	if err != nil {
		t.Fatal(err)
	}
	got := bson.Raw(seed(t, text, 1)[0])
	want, _ := bson.Raw(d).Elements()
	for _, e := range want[1:] {
		v := got.Lookup(e.Key())
		if e.Key() == "nan" && v.Type == bson.TypeDouble && math.IsNaN(v.Double()) {
			continue
		}
		if v.Type != e.Value().Type || string(v.Value) != string(e.Value().Value) {
			t.Errorf("%s: %v, want %v\n%s", e.Key(), v, e.Value(), text)
		}
	}
	if got.Lookup("_id").Type != bson.TypeInt64 {
		t.Errorf("_id %v: want a fresh number (!seq) for a numeric _id", got.Lookup("_id"))
	}
}

func nanValue() float64 { z := 0.0; return z / z }

func TestReadDocuments(t *testing.T) {
	for _, c := range []struct {
		name, text string
		n          int
		err        string
	}{
		{"one.json", `{"a": 1, "b": {"$oid": "65a1b2c3d4e5f60718293a4b"}}`, 1, ""},
		{"lines.jsonl", "{\"a\": 1}\n{\"a\": 2}\n\n{\"a\": {\"$numberLong\": \"3\"}}\n", 3, ""},
		{"array.json", `[{"a": 1}, {"a": 2}]`, 2, ""},
		{"pretty.json", "\n\n  [\n {\"a\": 1},\n {\"a\": 2}\n]\n", 2, ""},
		{"bad.jsonl", "{\"a\": 1}\n{\"a\": }\n", 0, "bad.jsonl:2: not JSON"},
		{"scalar.json", `[1, 2]`, 0, "scalar.json:1: item 0 of the array is not a document"},
		{"empty.json", "  ", 0, "empty.json: empty"},
		{"none.json", "[]", 0, "none.json: holds no documents"},
		{"badutf.jsonl", "{\"a\": 1}\n\n{\"\xff\": 1}\n", 0, "badutf.jsonl:3: not UTF-8"},
		{"badvalue.jsonl", "{\"a\": 1}\n{\"a\": \"\xfe\"}\n", 0, "badvalue.jsonl:2: not UTF-8"},
		{"ejson.jsonl", "{\"a\": 1}\n  {\"a\": {\"$numberLong\": 3}}\n", 0, "ejson.jsonl:2: not an Extended JSON document"},
	} {
		s, err := ReadDocuments(context.Background(), c.name, strings.NewReader(c.text), 1000)
		switch {
		case c.err == "" && (err != nil || len(s.Docs) != c.n || s.Count != int64(c.n)):
			t.Errorf("%s: %d documents of %d, %v; want %d", c.name, len(s.Docs), s.Count, err, c.n)
		case c.err != "" && (err == nil || !strings.HasPrefix(err.Error(), c.err)):
			t.Errorf("%s: %v, want %q", c.name, err, c.err)
		}
	}
}

// TestReadDocumentsSample reads more documents than it keeps: it keeps a
// uniform sample, the same one each time, and counts them all; the
// memory it holds is the sample's.
func TestReadDocumentsSample(t *testing.T) {
	const n, keep = 20_000, 1000
	var b strings.Builder
	b.WriteString("[")
	for i := range n {
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, `{"i":%d}`, i)
	}
	b.WriteString("]")
	read := func() Sample {
		s, err := ReadDocuments(context.Background(), "many.json", strings.NewReader(b.String()), keep)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s := read()
	if s.Count != n || len(s.Docs) != keep {
		t.Fatalf("%d documents kept of %d: want %d of %d", len(s.Docs), s.Count, keep, n)
	}
	late := 0 // kept from the second half of the file
	for _, d := range s.Docs {
		if bson.Raw(d).Lookup("i").Int32() >= n/2 {
			late++
		}
	}
	if late < keep/3 || late > 2*keep/3 {
		t.Errorf("%d of %d kept from the second half: want about half (a uniform sample)", late, keep)
	}
	if again := read(); !slices.EqualFunc(s.Docs, again.Docs, bytes.Equal) {
		t.Error("a second read kept other documents: want the same sample")
	}
}

// TestReadDocumentsLinear reads many JSON lines with an error on the
// last: a linear read (the line is counted once, for the error) and the
// right line.
func TestReadDocumentsLinear(t *testing.T) {
	const n = 50_000
	text := strings.Repeat("{\"a\": 1}\n", n) + "{\"a\": }\n"
	_, err := ReadDocuments(context.Background(), "many.jsonl", strings.NewReader(text), 10)
	if want := fmt.Sprintf("many.jsonl:%d: not JSON", n+1); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Fatalf("%v: want %q", err, want)
	}
}

func TestReadDocumentsCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := ReadDocuments(ctx, "many.jsonl", strings.NewReader(strings.Repeat("{\"a\": 1}\n", 1000)), 10)
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("%v: want context.Canceled", err)
	}
}
