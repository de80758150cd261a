package cli

import (
	"errors"
	"fmt"
	"io/fs"
	"strconv"

	"github.com/spf13/pflag"

	"github.com/mongobench/mongobench/internal/bounded"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/workload/builtin"
	"github.com/mongobench/mongobench/internal/ycsbprops"
)

// ycsbFlags are YCSB's -P property files, on the commands that run YCSB
// workloads (run, load, sweep, calibrate). With -P, the command's -p
// assignments are YCSB properties too, read after the files, as YCSB
// reads them (docs/ycsb.md).
type ycsbFlags struct {
	files []string
	// options are added to the target's URI (mongodb.writeConcern,
	// mongodb.readPreference, mongodb.maxconnections).
	options []ycsbprops.Option
}

// add declares -P on fl.
func (y *ycsbFlags) add(fl *pflag.FlagSet) {
	fl.StringArrayVarP(&y.files, "property-file", "P", nil,
		"YCSB property file, as YCSB's -P; repeatable: later files override earlier ones, and -p (then YCSB properties too) overrides any file (docs/ycsb.md)")
}

// settings reads the -P files and then the -p assignments as YCSB's
// client does and maps them for cmd; workload is the --workload flag's
// value ("" when not given).
func (y *ycsbFlags) settings(cmd ycsbprops.Command, params []string, workload string, reg spec.Registry) (ycsbprops.Settings, error) {
	var props []ycsbprops.Property
	for _, name := range y.files {
		data, err := bounded.ReadFile(name, bounded.PropertyFile)
		if err != nil {
			var pe *fs.PathError
			if !errors.As(err, &pe) { // the bound or the file's kind, named with the file
				return ycsbprops.Settings{}, usage(fmt.Errorf("-P %w", err))
			}
			return ycsbprops.Settings{}, usage(fmt.Errorf("-P %s: cannot read the property file: %w", name, pe.Err))
		}
		ps, err := ycsbprops.Parse(name, data)
		if err != nil {
			return ycsbprops.Settings{}, usage(err)
		}
		props = append(props, ps...)
	}
	for _, a := range params {
		p, err := ycsbprops.Assignment(a)
		if err != nil {
			return ycsbprops.Settings{}, usage(err)
		}
		props = append(props, p)
	}
	s, err := ycsbprops.Resolve(cmd, props, workload, reg)
	if err != nil {
		return s, usage(err)
	}
	y.options = s.Options
	return s, nil
}

// scenario builds run's scenario from the property files, then the
// flags (which override the files' settings), then the workload
// parameters the properties set.
func (y *ycsbFlags) scenario(fs *pflag.FlagSet, args, params []string) (*spec.Scenario, error) {
	if len(args) == 1 {
		return nil, usage(errors.New("-P: YCSB property files take the place of a scenario file; give one or the other"))
	}
	reg := builtin.Registry()
	s, err := y.settings(ycsbprops.Run, params, changed(fs, "workload"), reg)
	if err != nil {
		return nil, err
	}
	sc := &spec.Scenario{}
	var errs []error
	for _, f := range settingFlags(s) {
		errs = append(errs, sc.SetFlag(f.name, f.value))
	}
	errs = append(errs, applyFlags(sc, fs))
	for _, p := range s.Params {
		errs = append(errs, sc.SetParam(reg, p))
	}
	if err := errors.Join(errs...); err != nil {
		return nil, usage(err)
	}
	if err := sc.Validate(reg); err != nil {
		return nil, usage(err)
	}
	return sc, nil
}

// study sets a study's base scenario and shared flags from the property
// files and -p: each setting unless its own flag was given.
func (y *ycsbFlags) study(cmd ycsbprops.Command, fs *pflag.FlagSet, base *spec.Scenario, f *studyFlags) error {
	if len(y.files) == 0 {
		return nil
	}
	s, err := y.settings(cmd, f.params, base.Workload, builtin.Registry())
	if err != nil {
		return err
	}
	var errs []error
	for _, sf := range settingFlags(s) {
		switch {
		case sf.name == "workload",
			(sf.name == "threads" || sf.name == "duration") && !fs.Changed(sf.name):
			errs = append(errs, base.SetFlag(sf.name, sf.value))
		}
	}
	f.params = s.Params
	y.shared(s, fs, f)
	return usageIf(errors.Join(errs...))
}

// load sets the load command's workload and flags from the property
// files and -p.
func (y *ycsbFlags) load(fs *pflag.FlagSet, f *loadFlags) error {
	if len(y.files) == 0 {
		return nil
	}
	s, err := y.settings(ycsbprops.Load, f.params, f.workload, builtin.YCSBLoads())
	if err != nil {
		return err
	}
	f.workload, f.params = s.Workload, s.Params
	y.shared(s, fs, &f.studyFlags)
	return nil
}

// shared sets the target, its URI options and the label of a study from
// the properties, unless their flags were given.
func (y *ycsbFlags) shared(s ycsbprops.Settings, fs *pflag.FlagSet, f *studyFlags) {
	if s.URI != "" && !fs.Changed("uri") {
		f.uri = s.URI
	}
	if s.Label != "" && !fs.Changed("label") {
		f.label = s.Label
	}
	f.uriOptions = s.Options
}

// settingFlags lists the scenario settings the properties set, as flags.
func settingFlags(s ycsbprops.Settings) []struct{ name, value string } {
	var out []struct{ name, value string }
	add := func(ok bool, name, value string) {
		if ok {
			out = append(out, struct{ name, value string }{name, value})
		}
	}
	add(true, "workload", s.Workload)
	add(s.Threads > 0, "threads", strconv.Itoa(s.Threads))
	add(s.Rate > 0, "rate", s.Rate.String())
	add(s.Ops > 0, "ops", strconv.FormatInt(s.Ops, 10))
	add(s.Duration > 0, "duration", s.Duration.String())
	add(s.URI != "", "uri", s.URI)
	add(s.Label != "", "label", s.Label)
	return out
}

// changed returns a string flag's value when it was given, else "".
func changed(fs *pflag.FlagSet, name string) string {
	if f := fs.Lookup(name); f != nil && f.Changed {
		return f.Value.String()
	}
	return ""
}

func usageIf(err error) error {
	if err != nil {
		return usage(err)
	}
	return nil
}
