package options

import (
	"github.com/spf13/pflag"

	"github.com/mongobench/mongobench/internal/lab"
)

// Infer is workload infer's flags: the collection sampled or the file of
// documents read, and the workload file written.
type Infer struct{ lab.InferOptions }

// Add declares the flags on fl.
func (f *Infer) Add(fl *pflag.FlagSet) {
	fl.StringVar(&f.URI, "uri", "", "the MongoDB URI of the collection (default: $MONGOBENCH_URI, else the embedded server)")
	fl.StringVar(&f.DB, "db", "", "the database of the collection sampled")
	fl.StringVar(&f.Collection, "collection", "", "the collection sampled, and the one the file seeds")
	fl.StringVar(&f.From, "file", "", "a file of sample documents (a JSON or Extended JSON document, an array of them, or one a line), read instead of a collection")
	fl.IntVar(&f.Sample, "sample", 1000, "documents sampled ($sample: read only), or drawn uniformly from a --file's")
	fl.BoolVar(&f.Clone, "clone", false, "seed copies of the sampled documents, each with a fresh _id, rather than documents generated from their model")
	fl.Int64Var(&f.Seed, "documents", 0, "documents the file seeds (default: as many as the source holds)")
	fl.StringVar(&f.Name, "name", "", "the workload's name (default: the collection's)")
	fl.StringVarP(&f.Out, "out", "o", "", "the workload file to write, never one that exists (default: standard output)")
}
