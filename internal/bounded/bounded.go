// Package bounded reads files and answers through limits sized to what
// they can legitimately be: a scenario file, a property file, a node
// exporter's page. Beyond its limit a read stops with one clear error
// naming what was read and the bound; a path that is not a regular file
// (a FIFO, a device such as /dev/zero) is refused before it is opened,
// so it can neither block nor grow without end. docs/limits.md lists the
// limits (spec.Limits includes them).
package bounded

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strconv"
)

// A Limit is the most bytes one kind of input can be, and why.
type Limit struct {
	What string // the input, as docs/limits.md names it
	Max  int64  // bytes
	Why  string
}

const (
	kB = 1 << 10
	mB = 1 << 20
)

// The limits of every input the tool reads from a file or over HTTP.
var (
	ScenarioFile = Limit{"scenario, plan and targets files", 4 * mB, "YAML a person writes: the largest of the examples is a few kB"}
	TemplateFile = Limit{"report templates (report --template, tables)", 4 * mB, "Markdown a person writes around its MONGO_TABLE blocks; the shipped one is a few kB"}
	PropertyFile = Limit{"YCSB property files (-P)", 1 * mB, "YCSB's own workload files are a few kB"}
	WorkloadFile = Limit{"workload files (run --workload FILE.yaml)", 1 * mB, "stored whole with every run's result; the shipped examples are a few kB"}
	SampleFile   = Limit{"workload infer --file, the sample documents", 256 * mB, "a sample is modelled in memory: 100,000 documents of 2kB as Extended JSON, with room to spare"}
	Credentials  = Limit{"--atlas-credentials", 64 * kB, "a key pair or a service account's id and secret"}
	CAFile       = Limit{"a TLS CA file (tlsCAFile)", 4 * mB, "a bundle of every public CA is about 250kB"}
	ImportFile   = Limit{"results import and --results-file, the file", 8 << 30, "ten thousand runs at about 200kB each, with room to spare; a list reads one summary per run"}
	RecordsFile  = Limit{"results import and --results-file, the records file (*.records.jsonl)", 64 << 30, "a run's every interval and telemetry reading, about 4kB a second: a week of 100ms intervals is about 25GB; read a line at a time"}
	ImportLine   = Limit{"results import and --results-file, one line", 64 * mB, "one result document, at most 16MB as BSON, written as extended JSON"}
	NodeExporter = Limit{"a node exporter's /metrics answer", 16 * mB,
		"a host's full page is well under 1MB even with hundreds of CPUs and disks"}
	AtlasAnswer  = Limit{"an Atlas Administration API answer", 32 * mB, "a window's measurements of one process at its finest granularity"}
	LiveFeed     = Limit{"a /live feed answer (serve --live)", 32 * mB, "its last 32 runs' intervals without histograms: about 30,000 intervals of a few operation types"}
	FTDCDocument = Limit{"one document of an FTDC file (diagnostic.data/metrics.*)", 16 * mB,
		"the server writes each as BSON, at most 16MB, and a metric chunk holds at most 10MB uncompressed; the files themselves are read a document at a time, whatever their size"}
)

// Limits lists every read limit, for docs/limits.md.
func Limits() []Limit {
	return []Limit{ScenarioFile, TemplateFile, PropertyFile, WorkloadFile, SampleFile, Credentials, CAFile, ImportFile, RecordsFile, ImportLine, NodeExporter, AtlasAnswer, LiveFeed, FTDCDocument}
}

// Size writes n bytes as docs/limits.md does (16MB, 64kB, 1GB).
func Size(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return strconv.FormatInt(n>>30, 10) + "GB"
	case n >= mB && n%mB == 0:
		return strconv.FormatInt(n>>20, 10) + "MB"
	case n >= kB && n%kB == 0:
		return strconv.FormatInt(n>>10, 10) + "kB"
	}
	return strconv.FormatInt(n, 10) + " bytes"
}

// ErrTooLarge marks an input past its limit.
var ErrTooLarge = errors.New("larger than its bound")

func tooLarge(name string, l Limit) error {
	return fmt.Errorf("%s: %w: %s can be at most %s (%s)", name, ErrTooLarge, l.What, Size(l.Max), l.Why)
}

// Open opens path for reading if it is a regular file: a FIFO would block
// the open itself, a device such as /dev/zero would never end.
func Open(path string) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if err := regular(path, st); err != nil {
		return nil, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if st, err = f.Stat(); err != nil || regular(path, st) != nil { // replaced since the first look
		_ = f.Close()
		return nil, errors.Join(err, regular(path, st))
	}
	return f, nil
}

func regular(path string, st fs.FileInfo) error {
	if st == nil || st.Mode().IsRegular() {
		return nil
	}
	kind := "not a regular file"
	switch m := st.Mode(); {
	case m&fs.ModeNamedPipe != 0:
		kind = "a FIFO, not a regular file"
	case m&fs.ModeDevice != 0:
		kind = "a device, not a regular file"
	case m.IsDir():
		kind = "a directory, not a file"
	case m&fs.ModeSocket != 0:
		kind = "a socket, not a regular file"
	}
	return fmt.Errorf("%s: %s; give a file", path, kind)
}

// ReadFile reads the regular file at path, at most l.Max bytes.
func ReadFile(path string, l Limit) ([]byte, error) {
	f, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = f.Close() }() // read only
	return ReadAll(f, path, l)
}

// ReadAll reads r to its end, at most l.Max bytes; name says what r is
// in the error.
func ReadAll(r io.Reader, name string, l Limit) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, l.Max+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > l.Max {
		return nil, tooLarge(name, l)
	}
	return b, nil
}

// Reader reads r and fails with ErrTooLarge, named, once more than l.Max
// bytes have come: for a stream parsed as it is read.
func Reader(r io.Reader, name string, l Limit) io.Reader {
	return &reader{r: r, left: l.Max, name: name, l: l}
}

type reader struct {
	r    io.Reader
	left int64
	name string
	l    Limit
}

func (b *reader) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, tooLarge(b.name, b.l)
	}
	if int64(len(p)) > b.left+1 {
		p = p[:b.left+1]
	}
	n, err := b.r.Read(p)
	b.left -= int64(n)
	if b.left < 0 {
		return n - int(-b.left), tooLarge(b.name, b.l)
	}
	return n, err
}
