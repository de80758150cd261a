package telemetry

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestPlainDoc(t *testing.T) {
	when := time.Date(2024, 11, 22, 10, 0, 0, 0, time.UTC)
	oid, _ := bson.ObjectIDFromHex("7fffffff0000000000000001")
	dec, _ := bson.ParseDecimal128("1.25")
	raw, err := bson.Marshal(bson.D{
		{Key: "i32", Value: int32(3)},
		{Key: "i64", Value: int64(1) << 40},
		{Key: "f", Value: 1.5},
		{Key: "s", Value: "x"},
		{Key: "b", Value: true},
		{Key: "date", Value: bson.NewDateTimeFromTime(when)},
		{Key: "null", Value: nil},
		{Key: "oid", Value: oid},
		{Key: "ts", Value: bson.Timestamp{T: 1732269600, I: 4}},
		{Key: "dec", Value: dec},
		{Key: "bin", Value: bson.Binary{Data: []byte{1, 2}}},
		{Key: "sub", Value: bson.D{{Key: "list", Value: bson.A{int32(1), "two", bson.D{{Key: "k", Value: int32(3)}}}}}},
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := plainDoc(raw)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]any{
		"i32": int64(3), "i64": int64(1) << 40, "f": 1.5, "s": "x", "b": true,
		"date": when, "null": nil, "oid": "7fffffff0000000000000001",
		"ts":  map[string]any{"t": int64(1732269600), "i": int64(4)},
		"dec": "1.25", "bin": []byte{1, 2},
		"sub": map[string]any{"list": []any{int64(1), "two", map[string]any{"k": int64(3)}}},
	}
	for k, w := range want {
		if g := got[k]; !reflect.DeepEqual(g, w) {
			t.Errorf("field %s: got %#v (%T), want %#v (%T)", k, g, g, w, w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("got %d fields, want %d", len(got), len(want))
	}
}

func TestPlainDocRejectsCorruptBSON(t *testing.T) {
	if _, err := plainDoc(bson.Raw{5, 0, 0}); err == nil {
		t.Error("plainDoc(corrupt) = nil error, want an error")
	}
}

// TestFixturesMarshal checks that converted replies store cleanly as
// before_status/after_status in both BSON and JSON.
func TestFixturesMarshal(t *testing.T) {
	for _, name := range []string{"secantus-before.json", "mongod-after.json"} {
		st := loadStatus(t, name)
		if _, err := bson.Marshal(st.Doc); err != nil {
			t.Errorf("%s: bson.Marshal: got error %v, want none", name, err)
		}
		if _, err := json.Marshal(st.Doc); err != nil {
			t.Errorf("%s: json.Marshal: got error %v, want none", name, err)
		}
		if _, ok := st.Doc["localTime"].(time.Time); !ok {
			t.Errorf("%s: localTime is %T, want time.Time", name, st.Doc["localTime"])
		}
	}
}
