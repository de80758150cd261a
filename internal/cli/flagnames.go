package cli

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mongobench/mongobench/internal/catalog"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/study"
)

// One name per concept: a flag means the same under every command, and
// its environment variable, MONGOBENCH_<FLAG>, sets its default wherever
// the flag exists. A flag's deprecated name stays accepted as a hidden alias
// that prints a one-line deprecation note.

// envPrefix starts every variable mongobench reads.
const envPrefix = "MONGOBENCH_"

// envOnly are the variables that are read where they are needed rather
// than as a flag's default: MONGOBENCH_URI (the target when no --uri, and
// no scenario file's uri, names one), MONGOBENCH_RESULTS_URI (the results
// store when no --results or --results-file names one), the server's
// directories and binary, the test suite's server and node exporter, and
// the Atlas API's address (MONGOBENCH_ATLAS_BASE_URL, default
// https://cloud.mongodb.com).
var envOnly = []string{
	"MONGOBENCH_URI", "MONGOBENCH_RESULTS_URI", "MONGOBENCH_SERVER_DIR", "MONGOBENCH_SERVER_BIN",
	"MONGOBENCH_CACHE", "MONGOBENCH_HOME", "MONGOBENCH_TEST_URI", "MONGOBENCH_TEST_PORT",
	"MONGOBENCH_NODE_EXPORTER_BIN", "MONGOBENCH_ATLAS_BASE_URL",
}

// aliasOf is the annotation a deprecated alias carries: its flag's name.
const aliasOf = "mongobench-alias-of"

// alternatives are flags of which a command reads one: a variable does
// not set one of them when the command line gives another.
var alternatives = [][]string{{"results", "results-file"}}

// givenOrAlternative reports whether the command line gives the flag or
// one it is an alternative to.
func givenOrAlternative(fs *pflag.FlagSet, name string) bool {
	for _, group := range alternatives {
		if slices.Contains(group, name) {
			return slices.ContainsFunc(group, func(n string) bool { return explicit(fs, n) })
		}
	}
	return explicit(fs, name)
}

// envName is a flag's environment variable: --max-lag is MONGOBENCH_MAX_LAG.
func envName(flag string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// deprecatedAlias declares old as a hidden alias of the flag canonical,
// setting the same value, with a deprecation note on use.
func deprecatedAlias(fl *pflag.FlagSet, old, canonical string) {
	fl.Var(fl.Lookup(canonical).Value, old, "deprecated name of --"+canonical)
	deprecate(fl, old, canonical)
}

// deprecate hides the declared flag old, a deprecated spelling of
// canonical that may read its text differently (--cost-per-hour's bare
// dollars), and has it print a one-line note when used.
func deprecate(fl *pflag.FlagSet, old, canonical string) {
	_ = fl.MarkDeprecated(old, "use --"+canonical+" instead")
	_ = fl.SetAnnotation(old, aliasOf, []string{canonical})
}

// explicit reports whether the flag was given on the command line, under
// its name or a deprecated alias.
func explicit(fs *pflag.FlagSet, name string) bool {
	if fs.Changed(name) {
		return true
	}
	given := false
	fs.VisitAll(func(f *pflag.Flag) {
		if f.Changed && slices.Contains(f.Annotations[aliasOf], name) {
			given = true
		}
	})
	return given
}

// flagsFromEnv sets every flag of cmd that the command line left out and
// whose MONGOBENCH_<FLAG> variable is set (and not empty) from that
// variable. A value the flag refuses is a usage error naming the variable.
func flagsFromEnv(cmd *cobra.Command) error {
	fs := cmd.Flags()
	var errs []error
	fs.VisitAll(func(f *pflag.Flag) {
		name := envName(f.Name)
		if f.Deprecated != "" || f.Name == "help" || f.Name == "version" || slices.Contains(envOnly, name) {
			return
		}
		v := env(name)
		if v == "" || givenOrAlternative(fs, f.Name) {
			return
		}
		if err := f.Value.Set(v); err != nil {
			errs = append(errs, fmt.Errorf("%s=%s: %w", name, redact(v), valueError(f, v, err)))
		}
	})
	if err := errors.Join(errs...); err != nil {
		return usage(err)
	}
	return nil
}

// flagVariables maps every flag's variable, over every command, to its
// flag; deprecated maps the variables of deprecated names to their flag's.
func flagVariables(root *cobra.Command) (vars, deprecated map[string]string) {
	vars, deprecated = map[string]string{}, map[string]string{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			switch {
			case f.Name == "help":
			case f.Deprecated != "":
				deprecated[envName(f.Name)] = f.Annotations[aliasOf][0]
			default:
				vars[envName(f.Name)] = f.Name
			}
		})
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	root.PersistentFlags().VisitAll(func(f *pflag.Flag) { vars[envName(f.Name)] = f.Name })
	return vars, deprecated
}

// warnUnknownEnv says, one line each, which set MONGOBENCH_ variables no
// command reads, with the nearest flag's variable.
func (a *app) warnUnknownEnv(root *cobra.Command) {
	vars, deprecated := flagVariables(root)
	known := slices.Sorted(maps.Keys(vars))
	for _, kv := range environ() {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, envPrefix) || vars[name] != "" || slices.Contains(envOnly, name) {
			continue
		}
		if to, ok := deprecated[name]; ok {
			a.say("warning: %s is not read: --%s is a deprecated name of --%s; set %s\n", name, strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(name, envPrefix), "_", "-")), to, envName(to))
			continue
		}
		near := spec.Nearest(name, append(slices.Clone(known), envOnly...))
		hint := ""
		if f, ok := vars[near]; ok {
			hint = " (--" + f + ")"
		}
		a.say("warning: %s is not read: no command has the flag it would set; the closest variable is %s%s\n", name, near, hint)
	}
}

// quietDeprecations sends every command's flag notes (the deprecation
// of a deprecated name) to stderr, never into the output a script reads.
func (a *app) quietDeprecations(c *cobra.Command) {
	c.Flags().SetOutput(a.stderr)
	for _, s := range c.Commands() {
		a.quietDeprecations(s)
	}
}

// settingValue is a scenario setting's flag in run: it checks its text
// with spec (the one validation path, spec.Scenario.SetFlag) and keeps the
// text for the scenario built later, after the file it overrides is read.
// Its type is the setting's kind, for help.
type settingValue struct {
	check *spec.SettingFlag // the setting on a scratch scenario: Set and Type
	text  string
	set   bool // given on the command line or by its variable
}

func newSettingValue(name string) *settingValue {
	return &settingValue{check: (&spec.Scenario{}).Flag(name, "")}
}

func (v *settingValue) Set(text string) error {
	if err := v.check.Set(text); err != nil {
		return err
	}
	if v.set && v.check.Repeatable() {
		text = v.text + "," + text // a list flag given again adds to its list
	}
	v.text, v.set = text, true
	return nil
}

func (v *settingValue) String() string { return v.text }
func (v *settingValue) Type() string   { return v.check.Type() }

// checkedText is a flag kept as text for a later step (spec.TargetFlags,
// server.Options) but checked when given by the parser that step uses,
// and named by its kind in help: "price", "scale", "size".
type checkedText struct {
	text  *string
	kind  string
	check func(string) error
}

func (v checkedText) Set(text string) error {
	if err := v.check(text); err != nil {
		return err
	}
	*v.text = text
	return nil
}

func (v checkedText) String() string { return *v.text }
func (v checkedText) Type() string   { return v.kind }

// listText is a flag kept as one comma-separated text, to which each
// repetition of the flag adds (--host-metrics, --host-device).
type listText struct{ text *string }

func (v listText) Set(text string) error {
	if *v.text != "" {
		text = *v.text + "," + text
	}
	*v.text = text
	return nil
}

func (v listText) String() string { return *v.text }
func (v listText) Type() string   { return "strings" }

// priceText is a price such as "0.42 USD/h" or "694 EUR/month".
func priceText(dst *string) checkedText {
	return checkedText{dst, "price", func(s string) error { _, err := spec.ParsePrice(s); return err }}
}

// scaleText is catalog run's --scale: a fraction of the reference sizes,
// or full.
func scaleText(dst *string) checkedText {
	return checkedText{dst, "scale", func(s string) error { _, err := catalog.ParseScale(s); return err }}
}

// sizeText is a size such as 256M or 2GB.
func sizeText(dst *string) checkedText {
	return checkedText{dst, "size", func(s string) error { _, err := spec.ParseSize(s); return err }}
}

// dollarsValue is sweep's --price: a price in US dollars such as "3.20
// USD/h" (study.DollarsPerHour), kept as dollars per hour.
type dollarsValue struct {
	dollars *float64
	text    string
}

func (v *dollarsValue) Set(text string) error {
	d, err := study.DollarsPerHour(text)
	if err != nil {
		return err
	}
	*v.dollars, v.text = d, text
	return nil
}

func (v *dollarsValue) String() string { return v.text }
func (*dollarsValue) Type() string     { return "price" }

var (
	_ pflag.Value = (*dollarsValue)(nil)
	_ pflag.Value = (*settingValue)(nil)
	_ pflag.Value = checkedText{}
)
