package ftdc

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"flag"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/testsupport/ftdcwrite"
)

var update = flag.Bool("update", false, "rewrite testdata/small")

var t0 = time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)

func date(i int) bson.DateTime {
	return bson.NewDateTimeFromTime(t0.Add(time.Duration(i) * time.Second))
}

// sample is the i-th generated sample. Its columns exercise what the
// format has to get right: a constant column between changing ones, a
// zero run crossing from one metric's column into the next
// (opcounters.query then the first dup) and one ending the chunk
// (tail.a, tail.b), a counter wrapping past the int64 range, negative
// deltas, doubles truncated, bools, a timestamp, an array, duplicate
// keys, strings (no metric), and from sample 25 on an added field (a
// schema change, which closes the chunk).
func sample(i int) bson.D {
	ss := bson.D{
		{Key: "start", Value: date(i)},
		{Key: "host", Value: "db1:27017"},
		{Key: "pid", Value: int64(4242)},
		{Key: "uptime", Value: float64(i) + 0.75},
		{Key: "connections", Value: bson.D{{Key: "current", Value: int32(10 + i%3)}}},
		{Key: "opcounters", Value: bson.D{{Key: "insert", Value: int64(i * i)}, {Key: "query", Value: int64(0)}}},
		{Key: "dup", Value: int32(1)},
		{Key: "dup", Value: int32(i)},
		{Key: "wrap", Value: int64(math.MaxInt64 - 3 + int64(i))},
		{Key: "flag", Value: i%5 == 0},
		{Key: "ts", Value: bson.Timestamp{T: uint32(1000 + i), I: uint32(i % 2)}},
		{Key: "arr", Value: bson.A{int32(i), "x", bson.D{{Key: "n", Value: int64(-3 * i)}}}},
		{Key: "end", Value: date(i)},
	}
	if i >= 25 {
		ss = append(ss[:len(ss)-1], bson.E{Key: "extra", Value: int32(2 * i)}, ss[len(ss)-1])
	}
	return bson.D{
		{Key: "start", Value: date(i)},
		{Key: "serverStatus", Value: ss},
		{Key: "tail", Value: bson.D{{Key: "a", Value: int64(7)}, {Key: "b", Value: int64(7)}}},
		{Key: "end", Value: date(i)},
	}
}

// asStored is a sample as the server's decompressor rebuilds it: every
// number an int64 (doubles truncated), other values unchanged.
func asStored(d bson.D) bson.D {
	out := make(bson.D, len(d))
	for i, e := range d {
		v := e.Value
		switch x := v.(type) {
		case int32:
			v = int64(x)
		case float64:
			v = int64(x)
		case bson.D:
			v = asStored(x)
		case bson.A:
			a := make(bson.A, len(x))
			for j, y := range x {
				switch z := y.(type) {
				case int32:
					a[j] = int64(z)
				case bson.D:
					a[j] = asStored(z)
				default:
					a[j] = y
				}
			}
			v = a
		}
		out[i] = bson.E{Key: e.Key, Value: v}
	}
	return out
}

func metadata(i int, param int32) bson.D {
	return bson.D{
		{Key: "start", Value: date(i)},
		{Key: "getParameter", Value: bson.D{{Key: "start", Value: date(i)}, {Key: "featureFlag", Value: param},
			{Key: "mode", Value: "standard"}, {Key: "end", Value: date(i)}}},
		{Key: "end", Value: date(i)},
	}
}

// writeDir encodes 40 samples into two archive files and an interim
// file, with metadata and periodic metadata, and returns the samples of
// each chunk in the order written.
func writeDir(t *testing.T, dir string) [][]bson.D {
	t.Helper()
	c := &ftdcwrite.Compressor{MaxSamples: 10}
	var chunks [][]bson.D
	var pending []bson.D
	var files [3]bytes.Buffer
	file := 0
	emit := func(data []byte, at time.Time) {
		files[file].Write(ftdcwrite.ChunkDoc(data, at))
	}
	mc := &ftdcwrite.MetadataCompressor{}
	files[0].Write(ftdcwrite.MetadataDoc(bson.D{{Key: "buildInfo", Value: bson.D{{Key: "version", Value: "8.0.4"}}}}, t0))
	if d, ix := mc.Add(metadata(0, 0)); d != nil {
		files[0].Write(ftdcwrite.PeriodicDoc(d, ix, t0))
	}
	for i := range 40 {
		s := sample(i)
		data := c.Add(s)
		full := data != nil && !c.Open() // the sample closed the chunk
		if full {
			pending = append(pending, s)
		}
		if data != nil {
			emit(data, pending[0][0].Value.(bson.DateTime).Time())
			chunks = append(chunks, pending)
			pending = nil
		}
		if !full {
			pending = append(pending, s)
		}
		if i == 22 {
			if d, ix := mc.Add(metadata(22, 1)); d != nil {
				files[0].Write(ftdcwrite.PeriodicDoc(d, ix, date(22).Time()))
			}
		}
		if i == 30 { // the server restarts its file: the next chunk goes to the second archive
			file = 1
			files[1].Write(ftdcwrite.MetadataDoc(bson.D{{Key: "buildInfo", Value: bson.D{{Key: "version", Value: "8.0.4"}}}}, date(30).Time()))
		}
		if i == 36 {
			file = 2
		}
	}
	emit(c.Flush(), pending[0][0].Value.(bson.DateTime).Time())
	chunks = append(chunks, pending)
	files[2].Write(make([]byte, 8)) // the interim file's sentinel
	names := []string{"metrics.2026-03-01T12-00-00Z-00000", "metrics.2026-03-01T12-00-30Z-00000", "metrics.interim"}
	for i, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), files[i].Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return chunks
}

func TestDecoderReadsBackWhatTheServersCompressorWrote(t *testing.T) {
	dir := t.TempDir()
	want := writeDir(t, dir)
	if got := []int{len(want[0]), len(want[1]), len(want[2]), len(want[3]), len(want[4])}; !reflect.DeepEqual(got, []int{11, 11, 3, 11, 4}) {
		t.Fatalf("the encoder made chunks of %v samples; the test expects 11, 11, 3 (schema change), 11, 4", got)
	}
	files, err := Files(dir)
	if err != nil {
		t.Fatal(err)
	}
	if filepath.Base(files[2]) != "metrics.interim" || len(files) != 3 {
		t.Fatalf("files %v: want two archives by name, then metrics.interim", files)
	}
	var kinds []Kind
	var chunks []*Chunk
	var meta []Document
	for _, f := range files {
		docs, err := ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range docs {
			kinds = append(kinds, d.Kind)
			switch d.Kind {
			case KindMetricChunk:
				c, err := d.Chunk()
				if err != nil {
					t.Fatal(err)
				}
				chunks = append(chunks, c)
			case KindPeriodicMetadata:
				meta = append(meta, d)
			}
		}
	}
	wantKinds := []Kind{0, 2, 1, 1, 2, 1, 0, 1, 1}
	if !reflect.DeepEqual(kinds, wantKinds) {
		t.Fatalf("document kinds %v, want %v", kinds, wantKinds)
	}
	if len(chunks) != len(want) {
		t.Fatalf("%d chunks, want %d", len(chunks), len(want))
	}
	for ci, c := range chunks {
		if c.Samples != len(want[ci]) {
			t.Fatalf("chunk %d: %d samples, want %d", ci, c.Samples, len(want[ci]))
		}
		for s, doc := range want[ci] {
			ex := ftdcwrite.Extract(doc, "", nil)
			if len(ex) != len(c.Metrics) {
				t.Fatalf("chunk %d: %d metrics, want %d", ci, len(c.Metrics), len(ex))
			}
			for m, e := range ex {
				if c.Metrics[m].Path != e.Path {
					t.Fatalf("chunk %d metric %d: path %q, want %q", ci, m, c.Metrics[m].Path, e.Path)
				}
				if got := c.Value(m, s); got != int64(e.Value) {
					t.Fatalf("chunk %d sample %d %s: %d, want %d", ci, s, e.Path, got, int64(e.Value))
				}
			}
			got, err := c.Sample(s)
			if err != nil {
				t.Fatal(err)
			}
			wantRaw, _ := bson.Marshal(asStored(doc))
			if !bytes.Equal(got, wantRaw) {
				t.Fatalf("chunk %d sample %d rebuilt as\n%s\nwant\n%s", ci, s, got, bson.Raw(wantRaw))
			}
		}
	}
	// Duplicate keys stay two metrics, in order.
	c := chunks[1]
	dups := c.FindAll("serverStatus.dup")
	if len(dups) != 2 || c.Value(dups[0], 5) != 1 || c.Value(dups[1], 5) != 16 {
		t.Fatalf("serverStatus.dup at %v: want two metrics, 1 and the sample's index", dups)
	}
	// The counter wrapped past the int64 range inside the first chunk.
	w := chunks[0].Find("serverStatus.wrap")
	if chunks[0].Value(w, 3) != math.MaxInt64 || chunks[0].Value(w, 4) != math.MinInt64 {
		t.Fatalf("wrap: %d then %d, want MaxInt64 then MinInt64", chunks[0].Value(w, 3), chunks[0].Value(w, 4))
	}
	if got := chunks[4].Times(); len(got) != 4 || !got[0].Equal(date(36).Time()) {
		t.Fatalf("times of the interim chunk: %v", got)
	}
	// The periodic metadata delta rebuilds the second sample.
	if len(meta) != 2 || meta[0].Index != 0 || meta[1].Index != 1 {
		t.Fatalf("periodic metadata: %d documents (indexes %v)", len(meta), meta)
	}
	if _, err := meta[1].Doc.LookupErr("getParameter", "mode"); err == nil {
		t.Fatal("the delta carries an unchanged field")
	}
	merged, err := MergeMetadata(meta[0].Doc, meta[1].Doc)
	if err != nil {
		t.Fatal(err)
	}
	wantMeta, _ := bson.Marshal(metadata(22, 1))
	if !bytes.Equal(merged, wantMeta) {
		t.Fatalf("merged metadata\n%s\nwant\n%s", merged, bson.Raw(wantMeta))
	}
}

// The walkthrough of the server's FTDC README, by hand: four samples
// {a: 1..4, x: 2, s: "t"} are a reference {a: 1, x: 2, s: "t"}, 2
// metrics, 3 deltas, then a's deltas 1 1 1 and x's three zeros as the
// pair 0, 2 (the run's length minus one).
func TestHandCheckedChunk(t *testing.T) {
	ref, _ := bson.Marshal(bson.D{{Key: "a", Value: int32(1)}, {Key: "x", Value: int32(2)}, {Key: "s", Value: "t"}})
	var raw []byte
	raw = append(raw, ref...)
	raw = append(raw, 2, 0, 0, 0, 3, 0, 0, 0)
	raw = append(raw, 0x01, 0x01, 0x01, 0x00, 0x02)

	c := &ftdcwrite.Compressor{MaxSamples: 300}
	for a := int32(1); a <= 4; a++ {
		c.Add(bson.D{{Key: "a", Value: a}, {Key: "x", Value: int32(2)}, {Key: "s", Value: "t"}})
	}
	encoded := c.Flush()
	zr, err := zlib.NewReader(bytes.NewReader(encoded[4:]))
	if err != nil {
		t.Fatal(err)
	}
	var plain bytes.Buffer
	if _, err := plain.ReadFrom(zr); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(plain.Bytes(), raw) || binary.LittleEndian.Uint32(encoded) != uint32(len(raw)) {
		t.Fatalf("the test encoder wrote %x, the hand-built chunk is %x", plain.Bytes(), raw)
	}
	ch, err := DecodeChunk(encoded)
	if err != nil {
		t.Fatal(err)
	}
	if got := [][]int64{ch.Column(0), ch.Column(1)}; !reflect.DeepEqual(got, [][]int64{{1, 2, 3, 4}, {2, 2, 2, 2}}) {
		t.Fatalf("columns %v", got)
	}
}

// testdata/small is a file the test encoder wrote (go test -update
// rewrites it): a metadata document and one chunk of 5 samples one
// second apart from 2026-03-01T12:00:00Z. Its values were checked by
// hand against sample(i).
func TestSmallFile(t *testing.T) {
	name := filepath.Join("testdata", "small", "metrics.2026-03-01T12-00-00Z-00000")
	if *update {
		c := &ftdcwrite.Compressor{MaxSamples: 300}
		var b bytes.Buffer
		b.Write(ftdcwrite.MetadataDoc(bson.D{{Key: "buildInfo", Value: bson.D{{Key: "version", Value: "7.0.12"}}}}, t0))
		for i := range 5 {
			c.Add(sample(i))
		}
		b.Write(ftdcwrite.ChunkDoc(c.Flush(), t0))
		if err := os.MkdirAll(filepath.Dir(name), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(name, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	docs, err := ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if len(docs) != 2 || docs[0].Kind != KindMetadata || docs[1].Kind != KindMetricChunk {
		t.Fatalf("documents %v", docs)
	}
	if v, err := docs[0].Doc.LookupErr("buildInfo", "version"); err != nil || v.StringValue() != "7.0.12" {
		t.Fatalf("buildInfo.version %v %v", v, err)
	}
	c, err := docs[1].Chunk()
	if err != nil {
		t.Fatal(err)
	}
	if c.Samples != 5 || len(c.Metrics) != 19 {
		t.Fatalf("%d samples × %d metrics, want 5 × 19", c.Samples, len(c.Metrics))
	}
	pin := map[string][]int64{
		"start":                            {1772366400000, 1772366401000, 1772366402000, 1772366403000, 1772366404000},
		"serverStatus.uptime":              {0, 1, 2, 3, 4}, // 0.75, 1.75, … truncated
		"serverStatus.connections.current": {10, 11, 12, 10, 11},
		"serverStatus.opcounters.insert":   {0, 1, 4, 9, 16},
		"serverStatus.wrap":                {math.MaxInt64 - 3, math.MaxInt64 - 2, math.MaxInt64 - 1, math.MaxInt64, math.MinInt64},
		"serverStatus.flag":                {1, 0, 0, 0, 0},
		"serverStatus.ts.t":                {1000, 1001, 1002, 1003, 1004},
		"serverStatus.ts.i":                {0, 1, 0, 1, 0},
		"serverStatus.arr.0":               {0, 1, 2, 3, 4},
		"serverStatus.arr.2.n":             {0, -3, -6, -9, -12},
		"tail.b":                           {7, 7, 7, 7, 7},
	}
	for path, want := range pin {
		m := c.Find(path)
		if m < 0 {
			t.Fatalf("%s: no such metric", path)
		}
		if got := c.Column(m); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %v, want %v", path, got, want)
		}
	}
	if c.Metrics[c.Find("serverStatus.uptime")].Type != bson.TypeDouble {
		t.Error("uptime's type is not the reference's double")
	}
}

func TestBadInputNamesWhere(t *testing.T) {
	bad, _ := bson.Marshal(bson.D{{Key: "_id", Value: bson.NewDateTimeFromTime(t0)}, {Key: "type", Value: int32(7)}})
	_, err := Parse(bad, "metrics.x")
	if err == nil || err.Error() != "metrics.x: document at byte 0: field type: 7; valid: 0 (metadata), 1 (metric chunk), 2 (periodic metadata)" {
		t.Fatalf("error %v", err)
	}
	_, err = Parse([]byte{0x40, 0, 0, 0, 1}, "metrics.y")
	if err == nil || err.Error() != "metrics.y: byte 0: document length 64, 5 bytes left" {
		t.Fatalf("error %v", err)
	}
	if _, err := DecodeChunk([]byte{1, 0, 0, 0, 0x78}); err == nil {
		t.Fatal("a truncated zlib stream decoded")
	}
}
