package store

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/bounded"
	"github.com/mongobench/mongobench/internal/result"
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

// indexVersion is the cached index's format.
const indexVersion = 2

// cachedIndex is a fileIndex as its cache file holds it.
type cachedIndex struct {
	Version int           `bson:"v"` // indexVersion; any other is read again
	Path    string        `bson:"path"`
	Size    int64         `bson:"size"`
	Lines   int           `bson:"lines"`
	Tail    string        `bson:"tail"`
	Entries []cachedEntry `bson:"entries"`
}

type cachedEntry struct {
	Offset  int64         `bson:"o"`
	Length  int64         `bson:"l"`
	Line    int           `bson:"n"`
	Summary cachedSummary `bson:"s"`
}

// cachedSummary is a run's summary (Summary) with only its fields, so a
// cached index of 10,000 runs decodes in a few tens of milliseconds.
type cachedSummary struct {
	RunID         string       `bson:"id"`
	TestName      string       `bson:"t,omitempty"`
	Label         string       `bson:"l,omitempty"`
	Tags          []string     `bson:"g,omitempty"`
	Repetition    int          `bson:"r,omitempty"`
	Start         time.Time    `bson:"s"`
	End           time.Time    `bson:"e"`
	Duration      float64      `bson:"d"`
	Partial       bool         `bson:"p,omitempty"`
	PartialReason string       `bson:"pr,omitempty"`
	Live          *result.Live `bson:"lv,omitempty"`
	Workload      any          `bson:"w,omitempty"`
	GroupID       string       `bson:"gi,omitempty"`
	ClientIndex   *int         `bson:"ci,omitempty"`
	Mode          string       `bson:"m,omitempty"`
	TargetRate    *float64     `bson:"tr,omitempty"`
	Achieved      float64      `bson:"ar"`
	Success       float64      `bson:"sr"`
	Failed        float64      `bson:"fr"`
	Ops           []cachedOp   `bson:"ops,omitempty"`
}

type cachedOp struct {
	Name  string   `bson:"n"`
	Count int64    `bson:"c"`
	P99   *float64 `bson:"p,omitempty"`
}

func cacheSummary(d *result.Doc) cachedSummary {
	c := cachedSummary{RunID: d.RunID, TestName: d.TestName, Label: d.Label, Tags: d.Tags, Repetition: d.Repetition,
		Start: d.Start, End: d.End, Duration: d.Duration, Partial: d.Partial, PartialReason: d.PartialReason, Live: d.Live,
		Workload: d.TestConfig["workload"], Mode: d.Schedule.Mode, TargetRate: d.Schedule.TargetRate,
		Achieved: d.Schedule.AchievedRate, Success: d.Schedule.SuccessRate, Failed: d.Schedule.FailedRate}
	if g := d.Group; g != nil {
		c.GroupID, c.ClientIndex = g.ID, g.ClientIndex
	}
	for _, op := range d.Ops {
		c.Ops = append(c.Ops, cachedOp{Name: op.Name, Count: op.Count, P99: op.Latency.P99})
	}
	return c
}

// doc is the summary as Summary makes it.
func (c cachedSummary) doc() result.Doc {
	d := result.Doc{RunID: c.RunID, TestName: c.TestName, Label: c.Label, Tags: c.Tags, Repetition: c.Repetition,
		Start: c.Start, End: c.End, Duration: c.Duration, Partial: c.Partial, PartialReason: c.PartialReason, Live: c.Live,
		Schedule: result.Schedule{Mode: c.Mode, TargetRate: c.TargetRate, AchievedRate: c.Achieved, SuccessRate: c.Success, FailedRate: c.Failed}}
	if c.Workload != nil {
		d.TestConfig = map[string]any{"workload": c.Workload}
	}
	if c.GroupID != "" || c.ClientIndex != nil {
		d.Group = &result.Group{ID: c.GroupID, ClientIndex: c.ClientIndex}
	}
	for _, op := range c.Ops {
		d.Ops = append(d.Ops, result.OpStats{Name: op.Name, Count: op.Count, Latency: result.Dist{P99: op.P99}})
	}
	return d
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
	return filepath.Join(dir, "mongobench", fmt.Sprintf("file-index-v%d", indexVersion), hex.EncodeToString(sum[:12])+".bson")
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
	if bson.Unmarshal(b, &c) != nil || c.Version != indexVersion || c.Size > size || c.Size <= 0 {
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
	now := time.Now()
	_ = os.Chtimes(cache, now, now) // in use: not pruned (pruneIndexes)
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
	c := cachedIndex{Version: indexVersion, Path: abs, Size: idx.size, Lines: idx.lines, Tail: tail, Entries: make([]cachedEntry, len(idx.entries))}
	for i, e := range idx.entries {
		c.Entries[i] = cachedEntry{Offset: e.offset, Length: e.length, Line: e.line, Summary: cacheSummary(&e.summary)}
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
	pruneIndexes(filepath.Dir(cache), time.Now().Add(-indexKeep))
}

// indexKeep is how long a cached index nobody writes or reads is kept: the
// index of a results file long gone (a test's, a deleted one) does not
// stay in the cache directory for ever.
const indexKeep = 30 * 24 * time.Hour

// pruneIndexes removes the cached indexes in dir last written or read
// before cutoff, and any temporary file a writer left there.
func pruneIndexes(dir string, cutoff time.Time) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		ours := filepath.Ext(e.Name()) == ".bson" || strings.HasPrefix(e.Name(), ".index-")
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() && ours && info.ModTime().Before(cutoff) {
			_ = os.Remove(filepath.Join(dir, e.Name()))
		}
	}
}
