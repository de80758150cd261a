package workloadfile

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/ycsb"
)

const shapes = `collections:
  people:
    seed: 1000
    document:
      _id: !seq {start: 100, prefix: "p-"}
      n: !int {min: 10, max: 20}
      n32: !int32 {min: -5, max: 5, dist: normal}
      z: !int {min: 1, max: 1000, dist: zipfian}
      h: !int {min: 0, max: 99, dist: hotspot, hot: 10%, hotShare: 90%}
      s: !int {min: 7, dist: sequential}
      f: !float {min: 0.5, max: 1.5}
      str: !string {length: {min: 3, max: 6}, chars: hex}
      pick: !choice {from: [a, b], weights: [1, 0]}
      email: !fake email
      at: !date {min: 2024-01-01, max: 2024-01-02}
      made: !now
      oid: !objectid
      u: !uuid
      bin: !binary 17
      arr: !array {length: 3, of: !int {min: 1, max: 1}}
      obj: !object {length: 2, of: x}
      sub: {lit: 1, gen: !bool {true: 100%}}
      opt: !maybe {value: 1, null: 50%, absent: 50%}
      lit: [1, "two", 3.5, true, null, 2024-05-01]
operations:
  get:
    op: find
    collection: people
    values:
      who: !key {collection: people, dist: zipfian}
    filter: {_id: !ref who, again: !ref who}
    limit: 5
`

type person struct {
	ID    string        `bson:"_id"`
	N     int64         `bson:"n"`
	N32   int32         `bson:"n32"`
	Z     int64         `bson:"z"`
	H     int64         `bson:"h"`
	S     int64         `bson:"s"`
	F     float64       `bson:"f"`
	Str   string        `bson:"str"`
	Pick  string        `bson:"pick"`
	Email string        `bson:"email"`
	At    time.Time     `bson:"at"`
	Made  time.Time     `bson:"made"`
	OID   bson.ObjectID `bson:"oid"`
	U     bson.Binary   `bson:"u"`
	Bin   bson.Binary   `bson:"bin"`
	Arr   []int64       `bson:"arr"`
	Obj   bson.M        `bson:"obj"`
	Sub   bson.D        `bson:"sub"`
	Opt   bson.RawValue `bson:"opt"`
	Lit   bson.A        `bson:"lit"`
}

// TestGenerate checks each generator's values with the driver's decoder:
// the BSON is valid and every value within its bounds.
func TestGenerate(t *testing.T) {
	f, err := Parse("shapes.yaml", []byte(shapes))
	if err != nil {
		t.Fatal(err)
	}
	c := f.Collection("people")
	g := f.NewGen(1, 0)
	var hot, absent, nulls int
	for i := range int64(1000) {
		raw := g.Seed(nil, c, 1, i)
		if err := bson.Raw(raw).Validate(); err != nil {
			t.Fatalf("document %d: %v", i, err)
		}
		var p person
		if err := bson.Unmarshal(raw, &p); err != nil {
			t.Fatalf("document %d: %v: %s", i, err, Render(raw))
		}
		switch {
		case p.ID != "p-"+itoa(100+i):
			t.Fatalf("_id %q for document %d", p.ID, i)
		case p.N < 10 || p.N > 20, p.N32 < -5 || p.N32 > 5, p.Z < 1 || p.Z > 1000, p.H < 0 || p.H > 99:
			t.Fatalf("integer out of range: %+v", p)
		case p.S != 7+i:
			t.Fatalf("sequential %d for document %d", p.S, i)
		case p.F < 0.5 || p.F > 1.5:
			t.Fatalf("float %v", p.F)
		case len(p.Str) < 3 || len(p.Str) > 6 || strings.Trim(p.Str, "0123456789abcdef") != "":
			t.Fatalf("string %q", p.Str)
		case p.Pick != "a":
			t.Fatalf("choice %q, weight 0 for b", p.Pick)
		case !strings.Contains(p.Email, "@"):
			t.Fatalf("email %q", p.Email)
		case p.At.Before(time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)) || p.At.After(time.Date(2024, 1, 2, 0, 0, 0, 0, time.UTC)):
			t.Fatalf("date %v", p.At)
		case time.Since(p.Made) > time.Minute:
			t.Fatalf("now %v", p.Made)
		case p.U.Subtype != 4 || len(p.U.Data) != 16 || p.U.Data[6]>>4 != 4, len(p.Bin.Data) != 17:
			t.Fatalf("uuid %v, binary %d bytes", p.U, len(p.Bin.Data))
		case len(p.Arr) != 3 || p.Arr[0] != 1, len(p.Obj) != 2 || p.Obj["f1"] != "x":
			t.Fatalf("array %v, object %v", p.Arr, p.Obj)
		case len(p.Sub) != 2 || p.Sub[1].Value != true:
			t.Fatalf("sub-document %v", p.Sub)
		case len(p.Lit) != 6:
			t.Fatalf("literal array %v", p.Lit)
		}
		if p.H < 10 {
			hot++
		}
		switch p.Opt.Type {
		case 0:
			absent++
		case bson.TypeNull:
			nulls++
		default:
			t.Fatalf("!maybe with no share left for the value gave %v", p.Opt)
		}
		if again := g.Seed(nil, c, 1, i); !bytes.Equal(again[:4], raw[:4]) {
			t.Fatalf("document %d differs when made again", i)
		}
	}
	if math.Abs(float64(hot)/1000-0.9) > 0.05 {
		t.Errorf("hotspot: %d of 1000 in the hot tenth, want about 900", hot)
	}
	if math.Abs(float64(absent)-500) > 80 || absent+nulls != 1000 {
		t.Errorf("maybe: %d absent, %d null of 1000, want about half each", absent, nulls)
	}
}

// TestSeedRepeatable checks a seed document depends on the seed and its
// index alone, whichever generator makes it.
func TestSeedRepeatable(t *testing.T) {
	f, err := Parse("shapes.yaml", []byte(strings.Replace(shapes, "      made: !now\n", "", 1)))
	if err != nil {
		t.Fatal(err)
	}
	c := f.Collection("people")
	a, b := f.NewGen(1, 0), f.NewGen(1, 7)
	for i := range int64(50) {
		x, y := a.Seed(nil, c, 1, i), b.Seed(nil, c, 1, 49-i)
		if z := a.Seed(nil, c, 1, 49-i); !bytes.Equal(y, z) {
			t.Fatalf("document %d differs between generators", 49-i)
		}
		if w := b.Seed(nil, c, 1, i); !bytes.Equal(x, w) {
			t.Fatalf("document %d differs between generators", i)
		}
	}
}

// TestKeysNameSeededDocuments checks !key draws _ids the seed wrote, for
// each kind of keyed _id, and that !ref repeats one value within an
// iteration.
func TestKeysNameSeededDocuments(t *testing.T) {
	for _, id := range []string{"!seq 5", "!objectid", "!uuid", `!seq {prefix: "k"}`} {
		text := strings.Replace(shapes, `!seq {start: 100, prefix: "p-"}`, id, 1)
		f, err := Parse("shapes.yaml", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		f.Reset(time.Now())
		c, op := f.Collection("people"), f.Ops[0]
		g := f.NewGen(3, 1)
		seeded := map[string]bool{}
		for i := range c.Seed {
			var d bson.D
			if err := bson.Unmarshal(g.Seed(nil, c, 3, i), &d); err != nil {
				t.Fatal(err)
			}
			seeded[bsonText(t, d[0].Value)] = true
		}
		for range 200 {
			g.Begin(op)
			var filter bson.D
			if err := bson.Unmarshal(op.Filter.Append(nil, g), &filter); err != nil {
				t.Fatal(err)
			}
			k := bsonText(t, filter[0].Value)
			if !seeded[k] {
				t.Fatalf("%s: !key gave %s, which the seed did not write", id, k)
			}
			if again := bsonText(t, filter[1].Value); again != k {
				t.Fatalf("%s: !ref gave %s then %s in one iteration", id, k, again)
			}
		}
	}
}

func bsonText(t *testing.T, v any) string {
	t.Helper()
	b, err := bson.MarshalExtJSON(bson.D{{Key: "v", Value: v}}, true, false)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestCommands checks each operation's command is valid BSON holding
// what a driver sends.
func TestCommands(t *testing.T) {
	text := base + `  list:
    op: find
    collection: users
    filter: {age: {$gte: !int {min: 18, max: 90}}}
    sort: {age: -1}
    projection: {age: 1}
    skip: 2
    limit: 10
    hint: {age: 1}
  sum:
    op: aggregate
    collection: users
    pipeline: [{$group: {_id: null, n: {$sum: 1}}}]
    allowDiskUse: true
  add:
    op: insertMany
    collection: users
    count: 3
    ordered: false
    writeConcern: {w: majority, j: true}
  bump:
    op: updateMany
    collection: users
    filter: {}
    update: [{$set: {age: {$add: [$age, 1]}}}]
  swap:
    op: replaceOne
    collection: users
    filter: {_id: !key users}
    upsert: true
  drop:
    op: deleteMany
    collection: users
    filter: {age: {$gt: 80}}
    hint: age_1
`
	f, err := Parse("t.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{
		"read": `{"find": "users", "filter": {"_id": `,
		"list": `"sort": {"age": -1}, "projection": {"age": 1}, "hint": {"age": 1}, "skip": 2, "limit": 10}`,
		"sum":  `{"aggregate": "users", "pipeline": [{"$group": {"_id": null, "n": {"$sum": 1}}}], "cursor": {}, "allowDiskUse": true}`,
		"add":  `{"insert": "users", "ordered": false, "documents": [{"_id": 100, "age": `,
		"bump": `"updates": [{"q": {}, "u": [{"$set": {"age": {"$add": ["$age", 1]}}}], "upsert": false, "multi": true}]}`,
		"swap": `"u": {"age": `,
		"drop": `{"delete": "users", "ordered": true, "deletes": [{"q": {"age": {"$gt": 80}}, "limit": 0, "hint": "age_1"}]}`,
	}
	g := f.NewGen(1, 0)
	for _, op := range f.Ops {
		g.Begin(op)
		at, d := startDoc(nil)
		d = endDoc(op.AppendCommand(d, g), at)
		if err := bson.Raw(d).Validate(); err != nil {
			t.Fatalf("%s: %v", op.Name, err)
		}
		if got := Render(d); !strings.Contains(got, want[op.Name]) {
			t.Errorf("%s: %s\nwant it to contain %s", op.Name, got, want[op.Name])
		}
	}
	if got := Render(f.Ops[3].WriteConcern.Doc()); got != `{"w": "majority", "j": true}` {
		t.Errorf("write concern %s", got)
	}
	if mix := f.MixText(); mix != "read 14.29%, list 14.29%, sum 14.29%, add 14.29%, bump 14.29%, swap 14.29%, drop 14.29%" {
		t.Errorf("mix %s", mix)
	}
}

// BenchmarkDocument1KB10Fields measures a 1 KB document with ten
// generated fields (the bar: under 5 µs).
func BenchmarkDocument1KB10Fields(b *testing.B) {
	f, err := Parse("b.yaml", []byte(`collections:
  c:
    seed: 1
    document:
      _id: !seq
      a: !int {min: 0, max: 1000000}
      b: !int {min: 0, max: 1000, dist: zipfian}
      c: !float {min: 0, max: 1}
      d: !string 16
      e: !choice [red, green, blue]
      f: !date {min: 2020-01-01, max: now}
      g: !objectid
      h: !bool
      i: !string 700
      payload: !binary 100
operations:
  r: {op: findOne, collection: c}
`))
	if err != nil {
		b.Fatal(err)
	}
	c := f.Collection("c")
	g := f.NewGen(1, 0)
	buf := g.Doc(nil, c)
	b.Logf("document of %d bytes", len(buf))
	b.ReportAllocs()
	for b.Loop() {
		buf = g.Doc(buf[:0], c)
	}
}

// TestSequenceSharedByWorkers: run-time documents continue the seed's
// sequence, each value once, whichever worker draws it (and the race
// detector sees the workers share only the counter).
func TestSequenceSharedByWorkers(t *testing.T) {
	f, err := Parse("s.yaml", []byte("collections:\n  c:\n    seed: 100\n    document: {_id: !seq 1000, z: !int {min: 0, max: 50, dist: zipfian}}\n"+
		"operations:\n  add: {op: insertOne, collection: c}\n"))
	if err != nil {
		t.Fatal(err)
	}
	f.Reset(time.Now())
	c := f.Collection("c")
	ids := make(chan int64, 400)
	done := make(chan struct{})
	for w := range 4 {
		go func() {
			defer func() { done <- struct{}{} }()
			g := f.NewGen(1, w)
			for range 100 {
				var d struct {
					ID int64 `bson:"_id"`
				}
				if err := bson.Unmarshal(g.Doc(nil, c), &d); err != nil {
					t.Error(err)
					return
				}
				ids <- d.ID
			}
		}()
	}
	for range 4 {
		<-done
	}
	close(ids)
	seen := map[int64]bool{}
	for id := range ids {
		if seen[id] || id < 1100 || id >= 1500 {
			t.Fatalf("_id %d: want each of 1100..1499 once (after the 100 seeded from 1000)", id)
		}
		seen[id] = true
	}
}

// TestZetaOfLargeRanges: past its exact terms, zeta is its integral,
// within a millionth of the exact sum.
func TestZetaOfLargeRanges(t *testing.T) {
	for _, theta := range []float64{0.5, 0.99} {
		for _, n := range []int64{zetaExact + 1, 3_000_000} {
			exact, got := ycsb.Zeta(n, theta), zeta(n, theta)
			if math.Abs(got-exact)/exact > 1e-6 {
				t.Errorf("zeta(%d, %v) = %v, exact %v", n, theta, got, exact)
			}
		}
	}
}
