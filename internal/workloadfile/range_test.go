package workloadfile

import (
	"context"
	"errors"
	"io"
	"math"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// withField is base with one more field in the users' document.
func withField(field string) string {
	return strings.Replace(base, "      age: !int {min: 18, max: 90}", "      age: !int {min: 18, max: 90}\n      "+field, 1)
}

// draws seeds n documents of the users and returns field v of each.
func draws(t *testing.T, text string, n int) []bson.RawValue {
	t.Helper()
	f, err := Parse("t.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	g := f.NewGen(1, 0)
	var out []bson.RawValue
	for i := range int64(n) {
		doc := bson.Raw(g.Seed(nil, f.Collections[0], 1, i))
		if err := doc.Validate(); err != nil {
			t.Fatal(err)
		}
		out = append(out, doc.Lookup("v"))
	}
	return out
}

// TestGeneratorsTakeTheirFullRange: an !int over all of int64 and a
// !float over nearly all the doubles draw values inside their range,
// finite, with every distribution; what cannot be drawn is refused,
// located, one line.
func TestGeneratorsTakeTheirFullRange(t *testing.T) {
	for _, dist := range []string{"", ", dist: normal"} {
		neg, pos := 0, 0
		for _, v := range draws(t, withField("v: !int {min: -9223372036854775808, max: 9223372036854775807"+dist+"}"), 400) {
			if v.Int64() < 0 {
				neg++
			} else {
				pos++
			}
		}
		if neg == 0 || pos == 0 {
			t.Errorf("!int over all of int64%s: %d negative, %d not", dist, neg, pos)
		}
	}
	for _, dist := range []string{"", ", dist: zipfian", ", dist: normal", ", dist: hotspot", ", dist: sequential"} {
		for _, v := range draws(t, withField("v: !float {min: -1.7e308, max: 1.7e308"+dist+"}"), 300) {
			x := v.Double()
			if math.IsNaN(x) || math.IsInf(x, 0) || x < -1.7e308 || x > 1.7e308 {
				t.Fatalf("!float%s drew %v", dist, x)
			}
		}
	}
	for _, v := range draws(t, withField("v: !float {quantiles: [-1.7e308, 0, 1.7e308]}"), 300) {
		if x := v.Double(); math.IsNaN(x) || math.IsInf(x, 0) {
			t.Fatalf("quantiles drew %v", x)
		}
	}
	for _, c := range []struct{ field, want string }{
		{"v: !int {min: -9223372036854775808, max: 9223372036854775807, dist: zipfian}", "t.yaml:8:"},
		{"v: !int {min: -9223372036854775808, max: 9223372036854775807, dist: hotspot}", "want a range of fewer than 2^62 values"},
		{"v: !int {min: -9223372036854775808, max: 9223372036854775807, dist: sequential}", "want a range of fewer than 2^62 values"},
		{"v: !int {min: 9223372036854775806, dist: sequential}", "wrap to negative numbers"},
		{"v: !seq 9223372036854775806", "t.yaml:8:10: collections.users.document.v: !seq: a sequence starting at 9223372036854775806 could pass the largest int64"},
		{"v: !seq {start: 9223372036854775806}", "t.yaml:8:23: collections.users.document.v: !seq.start: a sequence starting"},
		{"v: !float {min: 5, max: 5, dist: normal}", "the normal's standard deviation is 0"},
	} {
		_, err := Parse("t.yaml", []byte(withField(c.field)))
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: want one problem containing %q, got %v", c.field, c.want, err)
		}
	}
}

// TestEmptySampleIsRefused: !sample of no documents is one located
// problem (it panicked).
func TestEmptySampleIsRefused(t *testing.T) {
	text := "collections:\n  c:\n    seed: 5\n    document: !sample {id: !seq , from: []}\n" + ops
	_, err := Parse("t.yaml", []byte(text))
	if err == nil || err.Error() != "t.yaml:4:41: collections.c.document: !sample.from: got an empty list: want a non-empty list of documents" {
		t.Fatalf("got %v", err)
	}
}

// TestHugeWeightsShareFairly: weights of 1e308 (whose sum overflows) are
// shares like any others, in the mix and in a !choice.
func TestHugeWeightsShareFairly(t *testing.T) {
	text := base + "    weight: 1e308\n  r2:\n    op: findOne\n    weight: 1e308\n    collection: users\n    filter: {_id: !key users}\n"
	f, err := Parse("t.yaml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	if m := f.Mix(); m["read"] != 0.5 || m["r2"] != 0.5 {
		t.Fatalf("mix %v", m)
	}
	if got := f.MixText(); got != "read 50%, r2 50%" {
		t.Fatalf("mix text %q", got)
	}
	picker, g := f.Picker(), f.NewGen(1, 0)
	counts := [2]int{}
	for range 1000 {
		counts[picker.Next(g)]++
	}
	if counts[0] < 350 || counts[1] < 350 {
		t.Fatalf("picked %v of 1000", counts)
	}
	ones := 0
	for _, v := range draws(t, withField("v: !choice {from: [0, 1], weights: [1e308, 1e308]}"), 1000) {
		ones += int(v.Int32())
	}
	if ones < 350 || ones > 650 {
		t.Fatalf("!choice of equal huge weights drew 1 %d times of 1000", ones)
	}
}

// TestBoundsInMessages: a count, a document near 16 MB and a !pad say
// the bound that holds.
func TestBoundsInMessages(t *testing.T) {
	count := base + "  many:\n    op: insertMany\n    collection: users\n    count: 1e9\n"
	_, err := Parse("t.yaml", []byte(count))
	if err == nil || !strings.Contains(err.Error(), "t.yaml:16:12: operations.many.count: 1000000000 is not valid: want a count of documents from 1 to 10000") {
		t.Errorf("count: %v", err)
	}
	_, err = Parse("t.yaml", []byte(withField("v: !string 16777200")))
	if err == nil || !strings.Contains(err.Error(), "a document of up to 16777239 bytes: want at most 16777216 bytes") {
		t.Errorf("near 16 MB: %v", err)
	}
	f, err := Parse("t.yaml", []byte(withField("v: !pad 16MB")))
	if err != nil {
		t.Fatalf("!pad 16MB: %v", err)
	}
	if n := len(f.NewGen(1, 0).Seed(nil, f.Collections[0], 1, 0)); n != 16<<20 {
		t.Fatalf("!pad 16MB made %d bytes", n)
	}
}

// TestNamesAndDepthTheServerRefuses: a collection name MongoDB refuses
// and a document nested more than 100 levels are refused at check, not
// at seeding.
func TestNamesAndDepthTheServerRefuses(t *testing.T) {
	for _, name := range []string{"../x", ".x", "a..b"} {
		text := strings.ReplaceAll(base, "users", `"`+name+`"`)
		_, err := Parse("t.yaml", []byte(text))
		if err == nil || !strings.Contains(err.Error(), "t.yaml:3:3: collections: collection \""+name+"\": a name that neither starts with a dot nor holds two dots together") {
			t.Errorf("%s: %v", name, err)
		}
	}
	nest := func(levels int) string {
		return "v: " + strings.Repeat("{a: ", levels) + "1" + strings.Repeat("}", levels)
	}
	if _, err := Parse("t.yaml", []byte(withField(nest(99)))); err != nil { // 100 with the document
		t.Errorf("100 levels: %v", err)
	}
	for _, field := range []string{nest(100), "v: " + strings.Repeat("[", 100) + strings.Repeat("]", 100), "v: !array {length: 1, of: " + strings.Repeat("[", 99) + strings.Repeat("]", 99) + "}"} {
		_, err := Parse("t.yaml", []byte(withField(field)))
		if err == nil || !strings.Contains(err.Error(), "t.yaml:6:7: collections.users.document: a document nested more than 100 levels deep") {
			t.Errorf("101 levels: %v", err)
		}
	}
}

// TestCheckLargeDocuments: the check shows a 200,000-element array and a
// 60,000-field document whole (rendering is linear in the document), and
// stops at once when its context ends.
func TestCheckLargeDocuments(t *testing.T) {
	var arr, fields strings.Builder
	for i := range 200_000 {
		if i > 0 {
			arr.WriteString(", ")
		}
		arr.WriteString(itoa(int64(i % 10)))
	}
	for i := range 60_000 {
		if i > 0 {
			fields.WriteString(", ")
		}
		fields.WriteString("f" + itoa(int64(i)) + ": 1")
	}
	for _, field := range []string{"v: [" + arr.String() + "]", "v: {" + fields.String() + "}"} {
		f, err := Parse("t.yaml", []byte(withField(field)))
		if err != nil {
			t.Fatal(err)
		}
		var out strings.Builder
		if err := Check(context.Background(), &out, f, 1, 1); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(out.String(), `, 9]`) && !strings.Contains(out.String(), `"f59999": 1}`) {
			t.Fatalf("the document is not shown whole")
		}
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		if err := Check(ctx, io.Discard, f, 1, 3); !errors.Is(err, context.Canceled) {
			t.Fatalf("a cancelled check: %v", err)
		}
	}
}
