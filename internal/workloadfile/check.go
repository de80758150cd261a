package workloadfile

import (
	"fmt"
	"io"

	"github.com/mongobench/mongobench/internal/spec"
)

// CheckFile reads and checks the workload file at path, and writes what
// it would do (Check) with seed 1 and three samples of each thing. Its
// error is bad input (a *spec.Error, whose message is the file's
// problems, each located).
func CheckFile(w io.Writer, path string) error {
	f, err := ReadFile(path)
	if err != nil {
		return &spec.Error{Problem: err.Error(), Err: err}
	}
	return Check(w, f, 1, 3)
}

// Check writes what a checked file would do, without a server: each
// collection with its seed, its indexes and its first n seed documents,
// then each operation with its share of the mix and n of its commands,
// generated values filled in (seeded by seed, so two checks agree).
func Check(w io.Writer, f *File, seed int64, n int) error {
	fmt.Fprintf(w, "%s: %d collections, %d operations (sha256 %s)\n", f.Name, len(f.Collections), len(f.Ops), f.Hash[:12])
	if f.Description != "" {
		fmt.Fprintf(w, "  %s\n", f.Description)
	}
	g := f.NewGen(seed, 0)
	var buf []byte
	for _, c := range f.Collections {
		fmt.Fprintf(w, "\ncollection %s: seeds %d documents, %d indexes\n", c.Name, c.Seed, len(c.Indexes))
		for _, ix := range c.Indexes {
			fmt.Fprintf(w, "  index %s\n", Render(ix))
		}
		for i := range min(int64(n), c.Seed) {
			buf = g.Seed(buf[:0], c, seed, i)
			fmt.Fprintf(w, "  seed document %d (%d bytes): %s\n", i, len(buf), Render(buf))
		}
	}
	fmt.Fprintf(w, "\noperations (share of operations started: %s)\n", f.MixText())
	for _, o := range f.Ops {
		fmt.Fprintf(w, "  %s: %s on %s\n", o.Name, o.Kind, o.Coll.Name)
		for range n {
			g.Begin(o)
			at, d := startDoc(buf[:0])
			d = o.AppendCommand(d, g)
			if o.WriteConcern != nil {
				d = append(header(d, typeDocument, "writeConcern"), o.WriteConcern.Doc()...)
			}
			if rc := o.ReadConcernDoc(); rc != nil {
				d = append(header(d, typeDocument, "readConcern"), rc...)
			}
			buf = endDoc(d, at)
			if _, err := fmt.Fprintf(w, "    %s\n", Render(buf)); err != nil {
				return err
			}
		}
	}
	return nil
}
