package workloadfile

import (
	"context"
	"fmt"
	"io"

	"github.com/mongobench/mongobench/internal/bounded"
	"github.com/mongobench/mongobench/internal/spec"
)

// CheckFile reads and checks the workload file at path, and writes what
// it would do (Check) with seed 1 and three samples of each thing. Its
// error is bad input (a *spec.Error, whose message is the file's
// problems, each located), or ctx's error when it ends first.
func CheckFile(ctx context.Context, w io.Writer, path string) error {
	data, err := bounded.ReadFile(path, bounded.WorkloadFile)
	if err != nil {
		err = fmt.Errorf("read workload file: %w", err)
		return &spec.Error{Problem: err.Error(), Err: err}
	}
	f, err := ParseContext(ctx, path, data)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return &spec.Error{Problem: err.Error(), Err: err}
	}
	return Check(ctx, w, f, 1, 3)
}

// Check writes what a checked file would do, without a server: each
// collection with its seed, its indexes and its first n seed documents,
// then each operation with its share of the mix and n of its commands,
// generated values filled in (seeded by seed, so two checks agree). It
// stops with ctx's error when ctx ends, and with a *spec.Error when a
// command it draws would write outside the data database.
func Check(ctx context.Context, w io.Writer, f *File, seed int64, n int) error {
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
			if err := ctx.Err(); err != nil {
				return err
			}
			buf = g.Seed(buf[:0], c, seed, i)
			fmt.Fprintf(w, "  seed document %d (%d bytes): %s\n", i, len(buf), Render(buf))
		}
	}
	fmt.Fprintf(w, "\noperations (share of operations started: %s)\n", f.MixText())
	show := func(o *Op, indent string) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		buf = command(buf[:0], o, g)
		if err := g.Refused(); err != nil {
			return &spec.Error{Problem: err.Error(), Err: err}
		}
		_, err := fmt.Fprintf(w, "%s%s\n", indent, Render(buf))
		return err
	}
	for _, o := range f.Ops {
		if o.Kind == "transaction" {
			steps := "steps"
			if len(o.Steps) == 1 {
				steps = "step"
			}
			fmt.Fprintf(w, "  %s: a transaction of %d %s (%s)\n", o.Name, len(o.Steps), steps, o.TxnText())
		} else {
			fmt.Fprintf(w, "  %s: %s on %s\n", o.Name, o.Kind, o.Coll.Name)
		}
		for i := range n {
			g.Begin(o)
			if o.Kind != "transaction" {
				if err := show(o, "    "); err != nil {
					return err
				}
				continue
			}
			fmt.Fprintf(w, "    transaction %d:\n", i+1)
			for _, st := range o.Steps {
				if err := show(st, "      "); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// command is o's command as Check shows it, its concerns and read
// preference included.
func command(dst []byte, o *Op, g *Gen) []byte {
	at, d := startDoc(dst)
	d = o.AppendCommand(d, g)
	if o.WriteConcern != nil {
		d = append(header(d, typeDocument, "writeConcern"), o.WriteConcern.Doc()...)
	}
	if rc := o.ReadConcernDoc(); rc != nil {
		d = append(header(d, typeDocument, "readConcern"), rc...)
	}
	if !o.ReadPreference.Primary() {
		d = append(header(d, typeDocument, "$readPreference"), o.ReadPreference.Doc()...)
	}
	return endDoc(d, at)
}

// TxnText describes a transaction's concerns and bounds, for people.
func (o *Op) TxnText() string {
	rc, wc := "the connection string's", "the connection string's"
	if o.ReadConcern != "" {
		rc = o.ReadConcern
	}
	if o.WriteConcern != nil {
		wc = Render(o.WriteConcern.Doc())
	}
	s := fmt.Sprintf("read concern %s, write concern %s, up to %d retries", rc, wc, o.MaxRetries)
	if o.MaxCommitTime > 0 {
		s += fmt.Sprintf(", commit within %v", o.MaxCommitTime)
	}
	return s
}
