package ftdc

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"io"
	"os"
	"slices"
	"testing"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// realFile is a real mongod's FTDC file (MongoDB 4.0.4, standalone,
// Windows), kept unchanged with its licence (testdata's README.md).
const realFile = "testdata/mongod-4.0.4-windows/metrics.2019-02-14T19-39-23Z-00000"

// independent reads the file with none of the package's code: the
// documents by their lengths, each chunk's counts after its reference
// document, and the first metric's column (the top-level start date,
// whose deltas open the payload) summed by hand. It returns each chunk's
// samples and its first and last start, and the metadata's version.
func independent(t *testing.T, data []byte) (samples []int, first, last []time.Time, version string) {
	t.Helper()
	for off := 0; off < len(data); {
		n := int(binary.LittleEndian.Uint32(data[off:]))
		doc := bson.Raw(data[off : off+n])
		off += n
		if doc.Lookup("type").Int32() == 0 {
			version = doc.Lookup("doc", "buildInfo", "version").StringValue()
			continue
		}
		_, bin := doc.Lookup("data").Binary()
		zr, err := zlib.NewReader(bytes.NewReader(bin[4:]))
		if err != nil {
			t.Fatal(err)
		}
		raw, err := io.ReadAll(zr)
		if err != nil {
			t.Fatal(err)
		}
		refLen := int(binary.LittleEndian.Uint32(raw))
		ref := bson.Raw(raw[:refLen])
		deltas := int(binary.LittleEndian.Uint32(raw[refLen+4:]))
		start := ref.Lookup("start").Time().UTC()
		at := start.UnixMilli()
		p := raw[refLen+8:]
		for i := 0; i < deltas; i++ {
			d, k := binary.Uvarint(p)
			p = p[k:]
			if d == 0 { // a run of zeros: this one and z more
				z, k := binary.Uvarint(p)
				p = p[k:]
				i += int(z)
			}
			at += int64(d)
		}
		samples = append(samples, deltas+1)
		first, last = append(first, start), append(last, time.UnixMilli(at).UTC())
	}
	return samples, first, last, version
}

// The real file reads as an independent reading of it says: 600
// samples in two chunks of 300, from 19:39:23.001 to 19:49:22 UTC,
// version 4.0.4, a standalone's flat layout, 946 metrics a sample.
func TestRealServerFile(t *testing.T) {
	data, err := os.ReadFile(realFile)
	if err != nil {
		t.Fatal(err)
	}
	wantSamples, wantFirst, wantLast, wantVersion := independent(t, data)
	from := time.Date(2019, 2, 14, 19, 39, 23, 1e6, time.UTC)
	to := time.Date(2019, 2, 14, 19, 49, 22, 0, time.UTC)
	if !slices.Equal(wantSamples, []int{300, 300}) || !wantFirst[0].Equal(from) || !wantLast[1].Equal(to) || wantVersion != "4.0.4" {
		t.Fatalf("the independent reading: %v samples, %v to %v, version %q", wantSamples, wantFirst, wantLast, wantVersion)
	}
	var samples []int
	var times []time.Time
	info, err := Scan{Files: []string{realFile}}.Run(func(c *Chunk, _ Document) error {
		samples = append(samples, c.Samples)
		times = append(times, c.Times()...)
		if len(c.Metrics) != 946 {
			t.Errorf("chunk of %d metrics, want 946", len(c.Metrics))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(samples, wantSamples) || len(times) != 600 || !times[0].Equal(from) || !times[299].Equal(wantLast[0]) ||
		!times[300].Equal(wantFirst[1]) || !times[599].Equal(to) {
		t.Errorf("decoded %v samples, %d times from %v to %v: want %v from %v to %v", samples, len(times), times[0], times[len(times)-1], wantSamples, from, to)
	}
	if !slices.Equal(info.Versions, []string{"4.0.4"}) || info.VersionsFromSamples || !slices.Equal(info.Roles, []string{RoleStandalone}) ||
		!slices.Equal(info.Layouts, []string{"flat"}) || info.Chunks != 2 || len(info.Torn) != 0 {
		t.Errorf("scan %+v: want version 4.0.4 from the metadata, a standalone's flat layout, 2 chunks", info)
	}
}
