package spec

import (
	"errors"
	"strconv"
	"strings"
)

// SettingFlag is a command-line flag that sets one setting of a scenario
// as SetFlag does: the setting counts as given, and Validate checks its
// range and names the flag. It is a flag value of the command-line
// package (String, Set, Type).
type SettingFlag struct {
	sc  *Scenario
	key string
}

// Flag returns the flag value of the setting a flag names, such as
// "duration" or "threads". A non-empty def is set first, as if given: it is
// the flag's default, shown in help. An unknown name or a bad default is a
// mistake of the program, so Flag panics on one.
func (s *Scenario) Flag(name, def string) *SettingFlag {
	key, ok := flagKey(name)
	if !ok {
		panic("spec: no setting has the flag --" + name)
	}
	if def != "" {
		if err := s.SetFlag(name, def); err != nil {
			panic("spec: default of --" + name + ": " + err.Error())
		}
	}
	return &SettingFlag{sc: s, key: key}
}

// Set sets the setting from the flag's text. The error says what is wrong
// with the text, without the flag's name, which the flag parser adds.
func (f *SettingFlag) Set(text string) error {
	err := f.sc.SetFlag(f.key, text)
	var e *Error
	if errors.As(err, &e) {
		return errors.New(strings.TrimPrefix(e.Error(), e.Field+": "))
	}
	return err
}

// String is the setting's value as text; a zero number or duration is
// empty, as it is not given.
func (f *SettingFlag) String() string {
	s := f.sc
	switch f.key {
	case "name":
		return s.Name
	case "workload":
		return s.Workload
	case "database":
		return s.Database
	case "label":
		return s.Label
	case "tags":
		return strings.Join(s.Tags, ",")
	case "rate":
		return nonZero(s.Rate, s.Rate.String)
	case "duration":
		return nonZero(s.Duration, s.Duration.String)
	case "warmup":
		return nonZero(s.Warmup, s.Warmup.String)
	case "interval":
		return nonZero(s.Interval, s.Interval.String)
	case "maxLag":
		return nonZero(s.MaxLag, s.MaxLag.String)
	case "threads":
		return nonZero(s.Threads, func() string { return strconv.Itoa(s.Threads) })
	case "repetition":
		return nonZero(s.Repetition, func() string { return strconv.Itoa(s.Repetition) })
	case "ops":
		return nonZero(s.Ops, func() string { return strconv.FormatInt(s.Ops, 10) })
	case "seed":
		return nonZero(s.Seed, func() string { return strconv.FormatInt(s.Seed, 10) })
	}
	return ""
}

func nonZero[T comparable](v T, text func() string) string {
	var zero T
	if v == zero {
		return ""
	}
	return text()
}

// Type names the setting's kind for command-line help.
func (f *SettingFlag) Type() string {
	switch f.key {
	case "rate":
		return "rate"
	case "duration", "warmup", "interval", "maxLag":
		return "duration"
	case "threads", "repetition", "ops", "seed":
		return "int"
	case "tags":
		return "strings"
	}
	return "string"
}
