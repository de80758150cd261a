package workloadfile

import (
	"math"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// seeded parses text and returns n seed documents of its first
// collection.
func seeded(t *testing.T, text string, n int) []bson.Raw {
	t.Helper()
	f, err := Parse("t.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	g := f.NewGen(3, 0)
	var docs []bson.Raw
	for i := range int64(n) {
		d := bson.Raw(g.Seed(nil, f.Collections[0], 3, i))
		if err := d.Validate(); err != nil {
			t.Fatalf("document %d: %v", i, err)
		}
		docs = append(docs, d)
	}
	return docs
}

const ops = "operations:\n  read: {op: findOne, collection: c, filter: {_id: !key c}}\n"

// TestPadHitsTheTarget: a !pad fills each document to its size, whatever
// its other fields take, before or after it.
func TestPadHitsTheTarget(t *testing.T) {
	docs := seeded(t, `collections:
  c:
    seed: 10
    document:
      _id: !seq
      name: !string {length: {min: 5, max: 300}}
      pad: !pad 2KB
      tags: !array {length: {min: 0, max: 20}, of: !string 8}
`+ops, 500)
	for i, d := range docs {
		if len(d) != 2048 {
			t.Fatalf("document %d: %d bytes, want 2048", i, len(d))
		}
		if s, ok := d.Lookup("pad").StringValueOK(); !ok || len(s) < 1000 {
			t.Fatalf("document %d: pad %q", i, s)
		}
	}
}

// TestExprDerivesValues: an !expr computes a field from the fields before
// it, and an operation's value from the values before it.
func TestExprDerivesValues(t *testing.T) {
	text := `collections:
  c:
    seed: 10
    document:
      _id: !seq
      qty: !int {min: 1, max: 5}
      price: !float {min: 1, max: 100}
      note: !maybe {value: !string 4, absent: 50%}
      total: !expr "qty * price"
      label: !expr 'note == nil ? "none" : upper(note)'
operations:
  pay:
    op: updateOne
    collection: c
    values:
      id: !key c
      cents: !int {min: 100, max: 900}
      amount: !expr "cents / 100.0"
    filter: {_id: !ref id}
    update: {$set: {amount: !ref amount, cents: !ref cents}}
`
	for i, d := range seeded(t, text, 200) {
		qty, price := d.Lookup("qty").Int64(), d.Lookup("price").Double()
		if total := d.Lookup("total").Double(); math.Abs(total-float64(qty)*price) > 1e-9 {
			t.Fatalf("document %d: total %v, want %d × %v", i, total, qty, price)
		}
		note, has := d.Lookup("note").StringValueOK()
		label := d.Lookup("label").StringValue()
		if has && label != strings.ToUpper(note) || !has && label != "none" {
			t.Fatalf("document %d: label %q for note %q", i, label, note)
		}
	}
	f, err := Parse("t.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	g := f.NewGen(1, 0)
	for range 50 {
		g.Begin(f.Ops[0])
		u := bson.Raw(f.Ops[0].Update.Append(nil, g)).Lookup("$set")
		cents, amount := u.Document().Lookup("cents").Int64(), u.Document().Lookup("amount").Double()
		if math.Abs(amount-float64(cents)/100) > 1e-9 {
			t.Fatalf("amount %v for %d cents", amount, cents)
		}
	}
}

// TestShapesSeedTheirShares: a !choice of documents seeds each shape its
// share, all with the collection's _id, which !key names.
func TestShapesSeedTheirShares(t *testing.T) {
	docs := seeded(t, `collections:
  c:
    seed: 4000
    document: !choice
      from:
        - {_id: !seq 100, kind: a, x: !int {min: 1, max: 9}}
        - {_id: !seq 100, kind: b, list: !array {length: 3, of: !bool }}
      weights: [3, 1]
`+ops, 4000)
	b := 0
	for i, d := range docs {
		if id := d.Lookup("_id").Int64(); id != int64(100+i) {
			t.Fatalf("document %d: _id %d, want %d", i, id, 100+i)
		}
		if d.Lookup("kind").StringValue() == "b" {
			b++
			if _, err := d.LookupErr("list"); err != nil {
				t.Fatalf("document %d: shape b without its list", i)
			}
		}
	}
	if b < 850 || b > 1150 {
		t.Errorf("%d of 4000 documents of shape b, want about 1000", b)
	}
}

// TestPlainValuesAndQuantiles: !ejson values are sent as written; a
// quantiles distribution stays in its range and follows its quantiles;
// a date as text is written in its layout.
func TestPlainValuesAndQuantiles(t *testing.T) {
	docs := seeded(t, `collections:
  c:
    seed: 10
    document:
      _id: !seq
      dec: !ejson '{"$numberDecimal": "12.50"}'
      oid: !ejson '{"$oid": "65a1b2c3d4e5f60718293a4b"}'
      n: !int {quantiles: [10, 11, 12, 13, 1000]}
      s: !string {length: {quantiles: [1, 2, 3]}}
      day: !date {min: 2024-01-01, max: 2024-12-31, format: date}
`+ops, 2000)
	big := 0
	for i, d := range docs {
		if d.Lookup("dec").Type != bson.TypeDecimal128 || d.Lookup("dec").Decimal128().String() != "12.50" || d.Lookup("oid").ObjectID().Hex() != "65a1b2c3d4e5f60718293a4b" {
			t.Fatalf("document %d: %v %v", i, d.Lookup("dec"), d.Lookup("oid"))
		}
		n := d.Lookup("n").Int64()
		if n < 10 || n > 1000 {
			t.Fatalf("document %d: n %d outside [10, 1000]", i, n)
		}
		if n > 13 {
			big++
		}
		if l := len(d.Lookup("s").StringValue()); l < 1 || l > 3 {
			t.Fatalf("document %d: a string of %d", i, l)
		}
		if day := d.Lookup("day").StringValue(); len(day) != 10 || !strings.HasPrefix(day, "2024-") {
			t.Fatalf("document %d: day %q", i, day)
		}
	}
	if big < 400 || big > 600 {
		t.Errorf("%d of 2000 draws above the fourth quantile's start, want about a quarter", big)
	}
}

// TestDerivedErrors: each problem of a !pad, !expr, !ejson, quantiles,
// date format or shapes is found when the file is read, located
// file:line:column.
func TestDerivedErrors(t *testing.T) {
	for _, c := range []struct{ name, doc, want string }{
		{"pad in a sub-document", "      sub: {a: 1, p: !pad 1KB}", "t.yaml:6:22: collections.c.document.sub.p: !pad fills a whole document"},
		{"two pads", "      p: !pad 1KB\n      q: !pad 1KB", "t.yaml:7:10: collections.c.document.q: a second !pad"},
		{"pad in a list", "      l: [!pad 1KB]", "t.yaml:6:11: !pad fills the document that holds it"},
		{"pad size", "      p: !pad 2XB", `t.yaml:6:10: collections.c.document.p: !pad: got "2XB": want a document size`},
		{"pad below the fields", "      s: !string 3000\n      p: !pad 1KB", "t.yaml:7:10: collections.c.document.p: !pad: the document's other fields take 3034 bytes on average"},
		{"expr unknown name", "      a: !int 1\n      b: !expr \"a + c\"", `t.yaml:7:10: collections.c.document.b: !expr: unknown name "c": want one of _id, a`},
		{"expr later field", "      b: !expr \"a + 1\"\n      a: !int 1", `t.yaml:6:10: collections.c.document.b: !expr: unknown name "a": want one of _id`},
		{"expr syntax", "      b: !expr \"1 +\"", `t.yaml:6:10: collections.c.document.b: !expr: unexpected token EOF`},
		{"expr type", "      a: !string 3\n      b: !expr \"a * 2\"", `t.yaml:7:10: collections.c.document.b: !expr: invalid operation`},
		{"ejson", "      e: !ejson '{\"$oid\": 5}'", `t.yaml:6:10: collections.c.document.e: !ejson: not Extended JSON`},
		{"quantiles order", "      n: !int {quantiles: [5, 3]}", `t.yaml:6:31: collections.c.document.n: !int.quantiles[1]: 3 is below the quantile before it`},
		{"quantiles with max", "      n: !int {quantiles: [1, 3], max: 5}", `t.yaml:6:40: collections.c.document.n: !int.max: does not go with quantiles`},
		{"date format", "      d: !date {min: 2024-01-01, format: nope}", `t.yaml:6:42: collections.c.document.d: !date.format: got "nope"`},
	} {
		text := "collections:\n  c:\n    seed: 10\n    document:\n      _id: !seq\n" + c.doc + "\n" + ops
		_, err := Parse("t.yaml", []byte(text))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: got %v\nwant %s", c.name, err, c.want)
		}
	}
	_, err := Parse("t.yaml", []byte("collections:\n  c:\n    seed: 10\n    document: !choice\n      - {_id: !seq , a: 1}\n      - {_id: !objectid , b: 1}\n"+ops))
	if err == nil || !strings.Contains(err.Error(), "t.yaml:6:15: collections.c.document: !choice[1]._id: the shapes share the first shape's _id") {
		t.Errorf("shapes with different _ids: %v", err)
	}
}

// BenchmarkDerivedDocument generates a 1 KB document of ten generated
// fields, one of them an !expr of two others, filled by a !pad.
func BenchmarkDerivedDocument(b *testing.B) {
	f, err := Parse("b.yaml", []byte(`collections:
  c:
    seed: 10
    document:
      _id: !seq
      a: !int {min: 0, max: 1000}
      b: !float {min: 0, max: 1}
      c: !string 12
      d: !date {min: 2024-01-01}
      e: !bool
      f: !int32 {min: 0, max: 9}
      g: !choice [x, y, z]
      h: !expr "a * b"
      pad: !pad 1KB
`+ops))
	if err != nil {
		b.Fatal(err)
	}
	g := f.NewGen(1, 0)
	buf := make([]byte, 0, 2048)
	b.ReportAllocs()
	for b.Loop() {
		buf = g.Doc(buf[:0], f.Collections[0])
	}
}
