package infer

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"unicode/utf8"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// A Sample is the documents read from a file: at most the number asked
// for, drawn uniformly from all of them, and how many the file holds.
type Sample struct {
	Docs  [][]byte
	Count int64
}

// ReadDocuments reads sample documents from a file's text, r, named
// name in errors: one JSON or Extended JSON document, a JSON array of
// them, or one a line (JSON Lines). It reads r once, a document at a
// time, and keeps at most keep documents, a uniform sample of all of
// them (a reservoir with a fixed seed: the same file gives the same
// sample), so its memory is that of the sample whatever the file holds;
// a document not drawn is checked as a JSON document and not read
// further.
// A problem names the file, the line (found by reading r again from its
// start) and what is valid. It stops when ctx is done.
func ReadDocuments(ctx context.Context, name string, r io.ReadSeeker, keep int) (Sample, error) {
	var s Sample
	keep = max(keep, 1)
	rng := rand.New(rand.NewPCG(1, 2))
	// slot is where the next document goes in the sample (Algorithm R),
	// -1 when it is not drawn.
	slot := func() int {
		s.Count++
		if len(s.Docs) < keep {
			s.Docs = append(s.Docs, nil)
			return len(s.Docs) - 1
		}
		if j := rng.Int64N(s.Count); j < int64(keep) {
			return int(j)
		}
		return -1
	}
	br := bufio.NewReaderSize(r, 64<<10)
	first, skipped, err := firstByte(br)
	switch {
	case errors.Is(err, io.EOF):
		return s, fmt.Errorf("%s: empty: want a JSON document, a JSON array of documents, or one document a line", name)
	case err != nil:
		return s, fmt.Errorf("%s: %w", name, err)
	}
	dec := json.NewDecoder(br)
	array := first == '['
	if array {
		if _, err := dec.Token(); err != nil {
			return s, fmt.Errorf("%s: not a JSON array of documents: %v", name, err)
		}
	}
	for item := 0; ; item++ {
		if err := ctx.Err(); err != nil {
			return s, err
		}
		if array && !dec.More() {
			if _, err := dec.Token(); err != nil {
				return s, fmt.Errorf("%s:%d: not a JSON array of documents: %v", name, lineAt(r, skipped+dec.InputOffset()), err)
			}
			array = false // what follows the array must be nothing
			continue
		}
		start := skipped + dec.InputOffset()
		var raw json.RawMessage
		err := dec.Decode(&raw)
		if errors.Is(err, io.EOF) {
			if s.Count == 0 {
				return s, fmt.Errorf("%s: holds no documents: want a JSON document, a JSON array of documents, or one document a line", name)
			}
			return s, nil
		}
		where := func() string { return fmt.Sprintf("%s:%d", name, lineAt(r, start)) }
		if err != nil {
			return s, fmt.Errorf("%s: not JSON: %v: want one document a line, a document, or an array of documents", where(), err)
		}
		if !utf8.Valid(raw) {
			return s, fmt.Errorf("%s: not UTF-8: want JSON text in UTF-8", where())
		}
		if t := bytes.TrimLeft(raw, " \t\r\n"); len(t) == 0 || t[0] != '{' {
			if first == '[' {
				return s, fmt.Errorf("%s: item %d of the array is not a document: want documents", where(), item)
			}
			return s, fmt.Errorf("%s: not a document: want one document a line, a document, or an array of documents", where())
		}
		i := slot()
		if i < 0 {
			continue // not drawn: checked as a JSON document, not read as Extended JSON
		}
		var doc bson.Raw
		if err := bson.UnmarshalExtJSON(raw, false, &doc); err != nil {
			return s, fmt.Errorf("%s: not an Extended JSON document: %v", where(), err)
		}
		s.Docs[i] = doc
	}
}

// firstByte is the first byte of br that is not white space, left
// unread, after skipped bytes of white space.
func firstByte(br *bufio.Reader) (b byte, skipped int64, err error) {
	for ; ; skipped++ {
		if b, err = br.ReadByte(); err != nil {
			return 0, skipped, err
		}
		if b != ' ' && b != '\t' && b != '\r' && b != '\n' {
			return b, skipped, br.UnreadByte()
		}
	}
}

// lineAt is the line of the first byte that is not white space at or
// after offset off of r, read again from its start; 0 when r cannot be
// read again.
func lineAt(r io.ReadSeeker, off int64) int {
	if _, err := r.Seek(0, io.SeekStart); err != nil {
		return 0
	}
	br := bufio.NewReaderSize(r, 64<<10)
	line := 1
	for pos := int64(0); ; pos++ {
		b, err := br.ReadByte()
		if err != nil {
			return line
		}
		if b == '\n' {
			line++
		} else if pos >= off && b != ' ' && b != '\t' && b != '\r' {
			return line
		}
	}
}
