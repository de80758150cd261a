package ftdc

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/bounded"
)

// Reader reads an FTDC file a document at a time, so a file of any size
// is read in bounded memory: each document is at most
// bounded.FTDCDocument. It opens regular files only (a device such as
// /dev/zero, a FIFO or a directory is refused before it is read).
type Reader struct {
	f    *os.File
	r    *bufio.Reader
	name string
	off  int64
	size int64
	buf  []byte
}

// Open opens the FTDC file at path.
func Open(path string) (*Reader, error) {
	f, err := bounded.Open(path)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		_ = f.Close()
		return nil, err
	}
	return &Reader{f: f, r: bufio.NewReaderSize(f, 1<<20), name: path, size: st.Size()}, nil
}

// Close closes the file.
func (r *Reader) Close() error { return r.f.Close() }

// Offset is how many bytes of the file have been read: the offset of the
// next document.
func (r *Reader) Offset() int64 { return r.off }

// Size is the file's size when it was opened.
func (r *Reader) Size() int64 { return r.size }

// Next returns the file's next document, or io.EOF after the last one
// (or at the interim file's zero-length sentinel). An error names the
// file and the byte offset of the document at fault.
func (r *Reader) Next() (Document, error) {
	var head [4]byte
	n, err := io.ReadFull(r.r, head[:])
	switch {
	case n == 0 && errors.Is(err, io.EOF):
		return Document{}, io.EOF
	case err != nil:
		return Document{}, &TornError{File: r.name, Offset: r.off, Have: int64(n)}
	}
	length := int64(int32(binary.LittleEndian.Uint32(head[:])))
	if length == 0 {
		return Document{}, io.EOF
	}
	limit := bounded.FTDCDocument
	if length < 5 || length > limit.Max {
		return Document{}, fmt.Errorf("%s: byte %d: document length %d: a document is 5 bytes to %s (%s); this is not an FTDC file, or it is damaged here",
			r.name, r.off, length, bounded.Size(limit.Max), limit.What)
	}
	if int64(cap(r.buf)) < length {
		r.buf = make([]byte, length)
	}
	buf := r.buf[:length]
	copy(buf, head[:])
	if n, err := io.ReadFull(r.r, buf[4:]); err != nil {
		return Document{}, &TornError{File: r.name, Offset: r.off, Length: length, Have: int64(4 + n)}
	}
	// The buffer is reused: the document keeps copies of what it holds.
	d, err := parseDocument(bson.Raw(buf), r.name, r.off)
	if err != nil {
		return Document{}, err
	}
	d.Doc = cloneBytes(d.Doc)
	d.Data = cloneBytes(d.Data)
	r.off += length
	return d, nil
}

func cloneBytes[T ~[]byte](b T) T {
	if b == nil {
		return nil
	}
	return append(T(nil), b...)
}

// TornError is a file that ends inside its last document: copied while
// the server wrote it, or left by a crash. Every whole document before
// it has been read; the server's own reader stops there too.
type TornError struct {
	File string
	// Offset is the byte at which the torn document starts: where the
	// file ends early.
	Offset int64
	// Length is the length the document declares (0 when the file ends
	// inside the length itself); Have is how many of its bytes are in
	// the file.
	Length, Have int64
}

func (e *TornError) Error() string {
	if e.Length == 0 {
		return fmt.Sprintf("%s: ends early at byte %d: %d trailing bytes, not a whole document (the documents before it are read)", e.File, e.Offset, e.Have)
	}
	return fmt.Sprintf("%s: ends early at byte %d: its last document of %d bytes is cut after %d (the documents before it are read)", e.File, e.Offset, e.Length, e.Have)
}
