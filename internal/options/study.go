package options

import (
	"context"
	"errors"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/mongobench/mongobench/internal/lab"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/workload"
	"github.com/mongobench/mongobench/internal/ycsbprops"
)

// Study is the flags of the commands that run a study on one target: the
// target and its data database, the runs' label and -p parameters, YCSB's
// -P files where the study runs YCSB workloads, and the option set every
// measuring command shares.
type Study struct {
	URI, Database, Label string
	Params               []string
	// Files are YCSB's -P property files; URIOptions, what they add to
	// the target's URI.
	Files      []string
	URIOptions []ycsbprops.Option
	Measure
}

// Add declares the flags on fl; params is -p's help ("" declares none).
func (f *Study) Add(fl *pflag.FlagSet, params string, h Help) {
	fl.StringVar(&f.URI, "uri", "", "target MongoDB URI (default: $MONGOBENCH_URI, else the embedded server)")
	fl.StringVar(&f.Database, "database", "", "data database (default mongobench_data)")
	fl.StringVar(&f.Label, "label", "", "label stored with every run, e.g. the instance type")
	if params != "" {
		fl.StringArrayVarP(&f.Params, "param", "p", nil, params)
	}
	f.Measure.Add(fl, h)
}

// AddPropertyFiles declares -P on fl.
func AddPropertyFiles(fl *pflag.FlagSet, files *[]string) {
	fl.StringArrayVarP(files, "property-file", "P", nil,
		"YCSB property file, as YCSB's -P; repeatable: later files override earlier ones, and -p (then YCSB properties too) overrides any file (docs/ycsb.md)")
}

// Options checks the flags and makes the lab's Options: the option set's,
// with the target (--uri, else $MONGOBENCH_URI) and its URI options.
func (f *Study) Options(ctx context.Context, env Env) (lab.Options, error) {
	lo, err := f.Measure.Options(ctx, env)
	if err != nil {
		return lo, err
	}
	if err := CheckURI(f.URI); err != nil {
		return lo, fmt.Errorf("--uri: %w", err)
	}
	lo.URI, lo.URIOptions = f.URI, f.URIOptions
	if lo.URI == "" {
		lo.URI = env("MONGOBENCH_URI")
	}
	return lo, nil
}

// YCSB sets a study's base scenario and flags from the property files
// and -p, read for cmd: the workload, the threads and duration unless
// their flags were given, the parameters, the target's URI and options,
// and the label unless --uri and --label were given. Without -P it does
// nothing.
func (f *Study) YCSB(cmd ycsbprops.Command, fs *pflag.FlagSet, base *spec.Scenario, reg *workload.Registry) error {
	if len(f.Files) == 0 {
		return nil
	}
	s, err := ycsbprops.Read(cmd, f.Files, f.Params, base.Workload, reg)
	if err != nil {
		return err
	}
	var errs []error
	for _, st := range s.Scenario() {
		switch {
		case st.Flag == "workload",
			(st.Flag == "threads" || st.Flag == "duration") && !fs.Changed(st.Flag):
			errs = append(errs, base.SetFlag(st.Flag, st.Value))
		}
	}
	f.Params = s.Params
	f.shared(s, fs)
	return errors.Join(errs...)
}

// YCSBLoad sets the load command's workload and flags from the property
// files and -p; loads is the registry of the load workloads.
func (f *Study) YCSBLoad(fs *pflag.FlagSet, workload *string, loads *workload.Registry) error {
	if len(f.Files) == 0 {
		return nil
	}
	s, err := ycsbprops.Read(ycsbprops.Load, f.Files, f.Params, *workload, loads)
	if err != nil {
		return err
	}
	*workload, f.Params = s.Workload, s.Params
	f.shared(s, fs)
	return nil
}

// shared sets the target, its URI options and the label from the
// properties, unless their flags were given.
func (f *Study) shared(s ycsbprops.Settings, fs *pflag.FlagSet) {
	if s.URI != "" && !fs.Changed("uri") {
		f.URI = s.URI
	}
	if s.Label != "" && !fs.Changed("label") {
		f.Label = s.Label
	}
	f.URIOptions = s.Options
}
