package store

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io"
	"os"
	"path/filepath"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/bounded"
)

// A results file's index (fileIndex) is kept between processes in the
// user's cache directory, one file per results file (named by a hash of
// its absolute path): a one-shot `results list --results-file` of years
// of runs reads the index and the lines appended since, not the whole
// file. The cached index is checked against the file (its size, and a
// hash of the bytes before the indexed end, so a file rewritten in
// place is read again); any problem with it (missing, unreadable,
// corrupt, stale) only means the file is read as before.

// indexTail is how many bytes before the indexed end the check hashes.
const indexTail = 4096

// cachedIndex is a fileIndex as its cache file holds it.
type cachedIndex struct {
	Path    string        `bson:"path"`
	Size    int64         `bson:"size"`
	Lines   int           `bson:"lines"`
	Tail    string        `bson:"tail"`
	Entries []cachedEntry `bson:"entries"`
}

type cachedEntry struct {
	Offset  int64  `bson:"o"`
	Length  int64  `bson:"l"`
	Line    int    `bson:"n"`
	Summary stored `bson:"s"`
}

// indexLimit bounds a cached index's file: a summary is under 1 kB.
var indexLimit = bounded.Limit{What: "a results file's cached index", Max: 256 << 20, Why: "one summary of under 1 kB per run, for 100,000 runs with room to spare"}

// indexCachePath is where the index of the results file at path is
// cached ("" when there is no cache directory).
func indexCachePath(path string) string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(dir, "mongobench", "file-index", hex.EncodeToString(sum[:12])+".bson")
}

// tailHash hashes the indexTail bytes of file before size.
func tailHash(file io.ReaderAt, size int64) (string, error) {
	n := min(size, indexTail)
	b := make([]byte, n)
	if _, err := file.ReadAt(b, size-n); err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:]), nil
}

// loadIndex reads the cached index of the results file at path (open as
// file, now size long), or nil when there is none that still holds.
func loadIndex(path string, file io.ReaderAt, size int64) *fileIndex {
	cache := indexCachePath(path)
	if cache == "" {
		return nil
	}
	b, err := bounded.ReadFile(cache, indexLimit)
	if err != nil {
		return nil
	}
	var c cachedIndex
	if bson.Unmarshal(b, &c) != nil || c.Size > size || c.Size <= 0 {
		return nil
	}
	abs, _ := filepath.Abs(path)
	if tail, err := tailHash(file, c.Size); err != nil || tail != c.Tail || c.Path != abs {
		return nil
	}
	idx := &fileIndex{size: c.Size, lines: c.Lines, entries: make([]fileEntry, len(c.Entries))}
	for i, e := range c.Entries {
		if e.Offset < 0 || e.Length <= 0 || e.Offset+e.Length > c.Size {
			return nil
		}
		idx.entries[i] = fileEntry{offset: e.Offset, length: e.Length, line: e.Line, summary: e.Summary.doc()}
	}
	return idx
}

// saveIndex caches idx for the results file at path (open as file),
// written whole or not at all; a cache that cannot be written is left
// out.
func saveIndex(path string, file io.ReaderAt, idx *fileIndex) {
	cache := indexCachePath(path)
	if cache == "" || idx.size == 0 {
		return
	}
	tail, err := tailHash(file, idx.size)
	if err != nil {
		return
	}
	abs, _ := filepath.Abs(path)
	c := cachedIndex{Path: abs, Size: idx.size, Lines: idx.lines, Tail: tail, Entries: make([]cachedEntry, len(idx.entries))}
	for i, e := range idx.entries {
		c.Entries[i] = cachedEntry{Offset: e.offset, Length: e.length, Line: e.line, Summary: history(&e.summary)}
	}
	b, err := bson.Marshal(c)
	if err != nil || int64(len(b)) > indexLimit.Max {
		return
	}
	if err := os.MkdirAll(filepath.Dir(cache), 0o700); err != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(cache), ".index-*")
	if err != nil {
		return
	}
	_, err = tmp.Write(b)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), cache)
	}
	if err != nil {
		_ = os.Remove(tmp.Name()) // the cache is an optimisation: the file is read again next time
	}
}
