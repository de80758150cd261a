package ftdc

import (
	"encoding/binary"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/bounded"
)

// Kind is an FTDC document's type field.
type Kind int

// The document types the server writes.
const (
	KindMetadata         Kind = 0
	KindMetricChunk      Kind = 1
	KindPeriodicMetadata Kind = 2
)

func (k Kind) String() string {
	switch k {
	case KindMetadata:
		return "metadata"
	case KindMetricChunk:
		return "metric chunk"
	case KindPeriodicMetadata:
		return "periodic metadata"
	}
	return fmt.Sprintf("type %d", int(k))
}

// Document is one document of an FTDC file.
type Document struct {
	Kind Kind
	// ID is the document's _id: when it was written (for a metric chunk,
	// its first sample's time).
	ID time.Time
	// Doc is a metadata document, or a periodic metadata document as
	// stored (complete when Index is 0, else a delta).
	Doc bson.Raw
	// Index counts a periodic metadata document's deltas since the last
	// complete one.
	Index int
	// Data is a metric chunk's compressed data; Chunk decodes it.
	Data []byte
	// File and Offset say where the document is, for errors.
	File   string
	Offset int64
}

// Chunk decodes a metric chunk document.
func (d Document) Chunk() (*Chunk, error) {
	if d.Kind != KindMetricChunk {
		return nil, fmt.Errorf("%s: document at byte %d is %s, not a metric chunk", d.File, d.Offset, d.Kind)
	}
	c, err := DecodeChunk(d.Data)
	if err != nil {
		return nil, fmt.Errorf("%s: document at byte %d: %w", d.File, d.Offset, err)
	}
	return c, nil
}

// Parse splits the bytes of an FTDC file into its documents; name is
// used in errors. A zero length (the interim file's sentinel) ends the
// file.
func Parse(data []byte, name string) ([]Document, error) {
	var out []Document
	for off := 0; off < len(data); {
		if len(data)-off < 4 {
			return out, fmt.Errorf("%s: byte %d: %d trailing bytes, not a document", name, off, len(data)-off)
		}
		n := int(int32(binary.LittleEndian.Uint32(data[off:])))
		if n == 0 {
			break
		}
		if n < 5 || n > len(data)-off {
			return out, fmt.Errorf("%s: byte %d: document length %d, %d bytes left", name, off, n, len(data)-off)
		}
		d, err := parseDocument(bson.Raw(data[off:off+n]), name, int64(off))
		if err != nil {
			return out, err
		}
		out = append(out, d)
		off += n
	}
	return out, nil
}

func parseDocument(raw bson.Raw, name string, off int64) (Document, error) {
	where := func(field string, format string, args ...any) error {
		return fmt.Errorf("%s: document at byte %d: field %s: %s", name, off, field, fmt.Sprintf(format, args...))
	}
	if err := raw.Validate(); err != nil {
		return Document{}, fmt.Errorf("%s: document at byte %d: %w", name, off, err)
	}
	d := Document{File: name, Offset: off}
	id, err := raw.LookupErr("_id")
	if err != nil || id.Type != bson.TypeDateTime {
		return d, where("_id", "missing or not a date (%v)", id.Type)
	}
	d.ID = time.UnixMilli(id.DateTime()).UTC()
	t, err := raw.LookupErr("type")
	kind, ok := t.AsInt64OK()
	if err != nil || !ok {
		return d, where("type", "missing or not an integer (%v)", t.Type)
	}
	d.Kind = Kind(kind)
	switch d.Kind {
	case KindMetadata, KindPeriodicMetadata:
		doc, err := raw.LookupErr("doc")
		if err != nil || doc.Type != bson.TypeEmbeddedDocument {
			return d, where("doc", "missing or not a document (%v)", doc.Type)
		}
		d.Doc = bson.Raw(doc.Value)
		if d.Kind == KindPeriodicMetadata {
			if ix, err := raw.LookupErr("index"); err == nil {
				n, ok := ix.AsInt64OK()
				if !ok {
					return d, where("index", "not an integer (%v)", ix.Type)
				}
				d.Index = int(n)
			}
		}
	case KindMetricChunk:
		data, err := raw.LookupErr("data")
		if err != nil || data.Type != bson.TypeBinary {
			return d, where("data", "missing or not binary data (%v)", data.Type)
		}
		_, d.Data = data.Binary()
	default:
		return d, where("type", "%d; valid: 0 (metadata), 1 (metric chunk), 2 (periodic metadata)", kind)
	}
	return d, nil
}

// ReadFile reads one FTDC file's documents.
func ReadFile(name string) ([]Document, error) {
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return Parse(data, name)
}

// Files lists an FTDC directory's files in the order they were written:
// the archives (metrics.<UTC time>-<n>) by name, then metrics.interim,
// whose samples are the newest. A path to a single file lists that file
// when it is a regular file (a device such as /dev/zero, a FIFO is
// refused here, before anything is read).
func Files(dir string) ([]string, error) {
	st, err := os.Stat(dir)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		f, err := bounded.Open(dir)
		if err != nil {
			return nil, err
		}
		_ = f.Close() // opened to be checked only
		return []string{dir}, nil
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var archives []string
	interim := ""
	for _, e := range entries {
		n := e.Name()
		switch {
		case e.IsDir() || !strings.HasPrefix(n, "metrics."):
		case n == "metrics.interim":
			interim = filepath.Join(dir, n)
		case strings.HasPrefix(n, "metrics.interim"): // metrics.interim.temp: a write in progress
		default:
			archives = append(archives, filepath.Join(dir, n))
		}
	}
	slices.Sort(archives)
	if interim != "" {
		archives = append(archives, interim)
	}
	if len(archives) == 0 {
		return nil, fmt.Errorf("%s: no metrics.* files (an FTDC directory is a server's diagnostic.data)", dir)
	}
	return archives, nil
}

// MergeMetadata applies a periodic metadata delta to the complete
// document it follows, as the server's README reconstructs one: at the
// top level and in each collector's document, a field of the delta
// replaces the field of the same name (or is added); fields the delta
// lacks keep their value.
func MergeMetadata(base, delta bson.Raw) (bson.Raw, error) { return mergeLevel(base, delta, 1) }

// mergeLevel merges delta into base, field by field, and into base's
// sub-documents depth levels further down.
func mergeLevel(base, delta bson.Raw, depth int) (bson.Raw, error) {
	b, err := toD(base)
	if err != nil {
		return nil, err
	}
	ds, err := delta.Elements()
	if err != nil {
		return nil, err
	}
	for _, e := range ds {
		v := e.Value()
		i := slices.IndexFunc(b, func(x bson.E) bool { return x.Key == e.Key() })
		if sub, ok := subDoc(b, i); ok && depth > 0 && v.Type == bson.TypeEmbeddedDocument {
			merged, err := mergeLevel(sub, bson.Raw(v.Value), depth-1)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", e.Key(), err)
			}
			b[i].Value = merged
			continue
		}
		if i >= 0 {
			b[i].Value = v
		} else {
			b = append(b, bson.E{Key: e.Key(), Value: v})
		}
	}
	return bson.Marshal(b)
}

// subDoc is field i of b when it is a sub-document.
func subDoc(b bson.D, i int) (bson.Raw, bool) {
	if i < 0 {
		return nil, false
	}
	sub, ok := b[i].Value.(bson.Raw)
	return sub, ok
}

// toD is a document's fields in order, sub-documents kept raw.
func toD(doc bson.Raw) (bson.D, error) {
	elems, err := doc.Elements()
	if err != nil {
		return nil, err
	}
	out := make(bson.D, len(elems))
	for i, e := range elems {
		v := e.Value()
		if v.Type == bson.TypeEmbeddedDocument {
			out[i] = bson.E{Key: e.Key(), Value: bson.Raw(v.Value)}
		} else {
			out[i] = bson.E{Key: e.Key(), Value: v}
		}
	}
	return out, nil
}
