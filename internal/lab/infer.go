package lab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/mongobench/mongobench/internal/bounded"
	"github.com/mongobench/mongobench/internal/infer"
	"github.com/mongobench/mongobench/internal/runner"
	"github.com/mongobench/mongobench/internal/secret"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/workload"
)

// InferOptions say what `workload infer` samples and writes.
type InferOptions struct {
	// URI, DB and Collection name the collection sampled (URI "": the
	// embedded server); From names a file of sample documents read
	// instead, without a server.
	URI, DB, Collection string
	From                string
	Sample              int   // documents sampled
	Clone               bool  // copy the sample with fresh keys rather than model it
	Seed                int64 // documents the file seeds (0: as many as the source holds)
	Name                string
	// Out is the workload file written ("": standard output); an
	// existing file is never replaced.
	Out string
}

// Infer samples a collection (read only) or reads a file of sample
// documents, and writes a workload file whose seeded documents match
// them (infer.Infer), or copy them with fresh keys (infer.Clone).
func Infer(ctx context.Context, srv Servers, o InferOptions, stdout io.Writer, say func(string, ...any)) error {
	if err := o.check(); err != nil {
		return err
	}
	if o.Out != "" {
		if _, err := os.Lstat(o.Out); !errors.Is(err, fs.ErrNotExist) { // a symbolic link too, even to nothing
			return &spec.Error{Field: "--out", Value: o.Out, Problem: "the file exists: infer never replaces a file", Want: "a new file's name", Err: err}
		}
	}
	docs, count, source, err := o.read(ctx, srv, say)
	if err != nil {
		return err
	}
	if len(docs) == 0 {
		return fmt.Errorf("%s holds no documents: there is nothing to infer a shape from", source)
	}
	seed := o.Seed
	if seed == 0 {
		seed = max(count, int64(len(docs)))
	}
	opts := infer.Options{Collection: o.Collection, Name: o.Name, Seed: seed, Source: source}
	var text []byte
	note := "" // said once the file is written
	if o.Clone {
		var kept int
		text, kept, err = infer.Clone(docs, opts)
		if err == nil && kept < len(docs) {
			note = fmt.Sprintf("kept the first %d of %d documents: a workload file is at most 1MB\n", kept, len(docs))
		}
	} else {
		var dropped int
		text, dropped, err = infer.Infer(ctx, docs, opts)
		if err == nil && dropped > 0 {
			note = fmt.Sprintf("left out the %d fields least often present: a workload file is at most 1MB (the file's first comment says how many each sub-document keeps)\n", dropped)
		}
	}
	if err != nil {
		return err
	}
	if err := write(o.Out, stdout, text); err != nil {
		return err
	}
	p50, p95 := infer.SizePercentiles(docs)
	of := fmt.Sprintf("%d documents", len(docs))
	if count > int64(len(docs)) && o.From != "" {
		of = fmt.Sprintf("%d of %d documents (drawn uniformly; --sample for more)", len(docs), count)
	}
	say("%s", note)
	say("%s of %s (BSON size p50 %d bytes, p95 %d): %s seeds %d\n", of, source, p50, p95, orStdout(o.Out), seed)
	return nil
}

// write writes the file's text to out, a new file, or to stdout when out
// is "": whole, or an error naming it.
func write(out string, stdout io.Writer, text []byte) error {
	if out == "" {
		if _, err := stdout.Write(text); err != nil {
			return fmt.Errorf("write the workload file to standard output: %w", err)
		}
		return nil
	}
	f, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return &spec.Error{Field: "--out", Value: out, Problem: err.Error(), Want: "a new file in a directory that exists", Err: err}
	}
	_, err = f.Write(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		_ = os.Remove(out) // a file written in part is no workload file
		return &spec.Error{Field: "--out", Value: out, Problem: err.Error(), Err: err}
	}
	return nil
}

func orStdout(out string) string {
	if out == "" {
		return "the file written"
	}
	return out
}

func (o *InferOptions) check() error {
	switch {
	case o.From != "" && o.DB != "":
		return &spec.Error{Field: "--file", Value: o.From, Problem: "--file reads a file of documents: it goes without --db", Want: "--file FILE, or --db and --collection"}
	case o.From == "" && (o.DB == "" || o.Collection == ""):
		return &spec.Error{Field: "--db", Problem: "name the collection to sample", Want: "--db DB --collection NAME, or --file FILE (documents as JSON)"}
	case o.Sample < 1 || o.Sample > 100_000:
		return &spec.Error{Field: "--sample", Value: fmt.Sprint(o.Sample), Want: "from 1 to 100000 documents"}
	case o.Seed < 0 || o.Seed > infer.MaxSeed:
		return &spec.Error{Field: "--documents", Value: fmt.Sprint(o.Seed), Want: fmt.Sprintf("a number of documents from 0 to %d (0: as many as the source)", int64(infer.MaxSeed))}
	}
	if o.Collection == "" {
		o.Collection = strings.TrimSuffix(filepath.Base(o.From), filepath.Ext(o.From))
	}
	return nil
}

// read reads the sample: the file's documents, or the collection's,
// with the source's document count.
func (o *InferOptions) read(ctx context.Context, srv Servers, say func(string, ...any)) (docs [][]byte, count int64, source string, err error) {
	if o.From != "" {
		f, err := bounded.OpenAtMost(o.From, bounded.SampleFile)
		if err != nil {
			return nil, 0, "", &spec.Error{Field: "--file", Value: o.From, Problem: err.Error(), Err: err}
		}
		defer func() { _ = f.Close() }() // read only
		s, err := infer.ReadDocuments(ctx, o.From, io.NewSectionReader(f, 0, bounded.SampleFile.Max), o.Sample)
		if err != nil {
			if ctx.Err() != nil {
				return nil, 0, "", err
			}
			return nil, 0, "", &spec.Error{Field: "--file", Value: o.From, Problem: err.Error(), Err: err}
		}
		return s.Docs, s.Count, filepath.Base(o.From), nil
	}
	uri := o.URI
	if uri == "" {
		h, err := Embedded(ctx, srv, false, say)
		if err != nil {
			return nil, 0, "", err
		}
		if h == nil {
			return nil, 0, "", &spec.Error{Field: "--uri", Problem: "no --uri, and the embedded server is not running", Want: "--uri mongodb://…, or start the embedded server"}
		}
		uri = h.URI
	}
	c, err := runner.Connect(ctx, uri, 2)
	if err != nil {
		return nil, 0, "", fmt.Errorf("connect to %s: %w", secret.URI(uri), err)
	}
	defer func() { _ = c.Disconnect(context.WithoutCancel(ctx)) }()
	docs, count, err = workload.Sample(ctx, c, o.DB, o.Collection, o.Sample)
	return docs, count, o.DB + "." + o.Collection, err
}
