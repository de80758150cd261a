package ycsbprops

import (
	"errors"
	"fmt"
	"io/fs"
	"strconv"

	"github.com/mongobench/mongobench/internal/bounded"
	"github.com/mongobench/mongobench/internal/spec"
)

// Read reads the property files (-P, each at most bounded.PropertyFile),
// then the -p assignments, as YCSB's client does, and resolves them for
// cmd (Resolve); workload is the workload flag's value, "" when not given.
func Read(cmd Command, files, params []string, workload string, reg spec.Registry) (Settings, error) {
	var props []Property
	for _, name := range files {
		data, err := bounded.ReadFile(name, bounded.PropertyFile)
		if err != nil {
			var pe *fs.PathError
			if !errors.As(err, &pe) { // the bound or the file's kind, named with the file
				return Settings{}, fmt.Errorf("-P %w", err)
			}
			return Settings{}, fmt.Errorf("-P %s: cannot read the property file: %w", name, pe.Err)
		}
		ps, err := Parse(name, data)
		if err != nil {
			return Settings{}, err
		}
		props = append(props, ps...)
	}
	for _, a := range params {
		p, err := Assignment(a)
		if err != nil {
			return Settings{}, err
		}
		props = append(props, p)
	}
	return Resolve(cmd, props, workload, reg)
}

// Setting is a scenario setting the properties give: its flag's name
// (spec.Scenario.SetFlag) and its text.
type Setting struct{ Flag, Value string }

// Scenario lists the scenario settings the properties give: the workload,
// then the threads, rate, operation count, duration and label they set.
func (s Settings) Scenario() []Setting {
	out := []Setting{{"workload", s.Workload}}
	add := func(ok bool, flag, value string) {
		if ok {
			out = append(out, Setting{flag, value})
		}
	}
	add(s.Threads > 0, "threads", strconv.Itoa(s.Threads))
	add(s.Rate > 0, "rate", s.Rate.String())
	add(s.Ops > 0, "ops", strconv.FormatInt(s.Ops, 10))
	add(s.Duration > 0, "duration", s.Duration.String())
	add(s.Label != "", "label", s.Label)
	return out
}
