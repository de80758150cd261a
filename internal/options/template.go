package options

import (
	"github.com/spf13/pflag"

	"github.com/mongobench/mongobench/internal/template"
)

// Template is the rendering flags 'tables' and 'report' share.
type Template struct{ Strict, KeepGoing bool }

// Add declares --strict and --keep-going on fl.
func (f *Template) Add(fl *pflag.FlagSet) {
	fl.BoolVar(&f.Strict, "strict", false, "for template authors: a column no output document has is an error, and the first broken block stops the command with nothing written")
	fl.BoolVar(&f.KeepGoing, "keep-going", false, "with --strict: render a broken block as an error note and go on (without --strict this is the default)")
}

// Options are the template options the flags ask for, for the template
// name: without --strict every block renders that can, a broken one is
// noted in its place.
func (f Template) Options(name string) template.Options {
	return template.Options{Name: name, Strict: f.Strict, KeepGoing: f.KeepGoing || !f.Strict}
}
