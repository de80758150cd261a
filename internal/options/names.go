package options

import (
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mongobench/mongobench/internal/secret"
	"github.com/mongobench/mongobench/internal/spec"
)

// One name per concept: a flag means the same under every command, and
// its environment variable, MONGOBENCH_<FLAG>, sets its default wherever
// the flag exists. A flag's deprecated name stays accepted as a hidden
// alias that prints a one-line deprecation note.

// EnvPrefix starts every variable mongobench reads.
const EnvPrefix = "MONGOBENCH_"

// EnvOnly are the variables that are read where they are needed rather
// than as a flag's default: MONGOBENCH_URI (the target when no --uri, and
// no scenario file's uri, names one), MONGOBENCH_RESULTS_URI (the results
// store when no --results or --results-file names one), the server's
// directories and binary, the test suite's server and node exporter, and
// the Atlas API's address (MONGOBENCH_ATLAS_BASE_URL, default
// https://cloud.mongodb.com).
var EnvOnly = []string{
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
			return slices.ContainsFunc(group, func(n string) bool { return Explicit(fs, n) })
		}
	}
	return Explicit(fs, name)
}

// EnvName is a flag's environment variable: --max-lag is MONGOBENCH_MAX_LAG.
func EnvName(flag string) string {
	return EnvPrefix + strings.ToUpper(strings.ReplaceAll(flag, "-", "_"))
}

// Alias declares old as a hidden alias of the flag canonical, setting the
// same value, with a deprecation note on use.
func Alias(fl *pflag.FlagSet, old, canonical string) {
	fl.Var(fl.Lookup(canonical).Value, old, "deprecated name of --"+canonical)
	Deprecate(fl, old, canonical)
}

// Deprecate hides the declared flag old, a deprecated spelling of
// canonical that may read its text differently (--cost-per-hour's bare
// dollars), and has it print a one-line note when used.
func Deprecate(fl *pflag.FlagSet, old, canonical string) {
	_ = fl.MarkDeprecated(old, "use --"+canonical+" instead")
	_ = fl.SetAnnotation(old, aliasOf, []string{canonical})
}

// FlagError says what is wrong with a flag's value as the rest of the
// tool does, "--threads: "x" is not valid: want …", rather than the flag
// parser's "invalid argument "x" for "--threads" flag: …"; other errors
// are returned as they are.
func FlagError(err error) error {
	var ive *pflag.InvalidValueError
	if !errors.As(err, &ive) || ive.Unwrap() == nil {
		return err
	}
	return ValueError(ive.GetFlag(), ive.GetValue(), ive.Unwrap())
}

// WrapArgErrors wraps the errors of c's argument check, and of every
// subcommand's, with wrap (the cli's usage error).
func WrapArgErrors(c *cobra.Command, wrap func(error) error) {
	if check := c.Args; check != nil {
		c.Args = func(c *cobra.Command, args []string) error {
			if err := check(c, args); err != nil {
				return wrap(err)
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		WrapArgErrors(sub, wrap)
	}
}

// QuietDeprecations sends every command's flag notes (the deprecation of
// a deprecated name) to w, never into the output a script reads.
func QuietDeprecations(c *cobra.Command, w io.Writer) {
	c.Flags().SetOutput(w)
	for _, s := range c.Commands() {
		QuietDeprecations(s, w)
	}
}

// Explicit reports whether the flag was given on the command line, under
// its name or a deprecated alias.
func Explicit(fs *pflag.FlagSet, name string) bool {
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

// FromEnv sets every flag of fs that the command line left out and whose
// MONGOBENCH_<FLAG> variable is set (and not empty) from that variable. A
// value the flag refuses is an error naming the variable.
func FromEnv(fs *pflag.FlagSet, env Env) error {
	var errs []error
	fs.VisitAll(func(f *pflag.Flag) {
		name := EnvName(f.Name)
		if f.Deprecated != "" || f.Name == "help" || f.Name == "version" || slices.Contains(EnvOnly, name) {
			return
		}
		v := env(name)
		if v == "" || givenOrAlternative(fs, f.Name) {
			return
		}
		if err := f.Value.Set(v); err != nil {
			errs = append(errs, fmt.Errorf("%s=%s: %w", name, secret.URI(v), ValueError(f, v, err)))
		}
	})
	return errors.Join(errs...)
}

// variables maps every flag's variable, over every command, to its
// flag; deprecated maps the variables of deprecated names to their flag's.
func variables(root *cobra.Command) (vars, deprecated map[string]string) {
	vars, deprecated = map[string]string{}, map[string]string{}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		c.Flags().VisitAll(func(f *pflag.Flag) {
			switch {
			case f.Name == "help":
			case f.Deprecated != "":
				deprecated[EnvName(f.Name)] = f.Annotations[aliasOf][0]
			default:
				vars[EnvName(f.Name)] = f.Name
			}
		})
		for _, s := range c.Commands() {
			walk(s)
		}
	}
	walk(root)
	root.PersistentFlags().VisitAll(func(f *pflag.Flag) { vars[EnvName(f.Name)] = f.Name })
	return vars, deprecated
}

// UnknownEnv says, one line each, which set MONGOBENCH_ variables of
// environ (name=value) no command of root reads, with the nearest flag's
// variable.
func UnknownEnv(root *cobra.Command, environ []string) []string {
	vars, deprecated := variables(root)
	known := slices.Sorted(maps.Keys(vars))
	var out []string
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(name, EnvPrefix) || vars[name] != "" || slices.Contains(EnvOnly, name) {
			continue
		}
		if to, ok := deprecated[name]; ok {
			out = append(out, fmt.Sprintf("warning: %s is not read: --%s is a deprecated name of --%s; set %s", name, strings.ToLower(strings.ReplaceAll(strings.TrimPrefix(name, EnvPrefix), "_", "-")), to, EnvName(to)))
			continue
		}
		near := spec.Nearest(name, append(slices.Clone(known), EnvOnly...))
		hint := ""
		if f, ok := vars[near]; ok {
			hint = " (--" + f + ")"
		}
		out = append(out, fmt.Sprintf("warning: %s is not read: no command has the flag it would set; the closest variable is %s%s", name, near, hint))
	}
	return out
}

// ValueError is the error of a flag's value refused by the flag: one line
// naming the flag, the value and, where the flag says, what is valid.
func ValueError(f *pflag.Flag, value string, cause error) error {
	name := "--" + f.Name
	var ne *strconv.NumError
	switch {
	case errors.As(cause, &ne):
		return fmt.Errorf("%s: %q is not valid: want a number (%s)", name, value, f.Value.Type())
	case strings.Contains(cause.Error(), value):
		return fmt.Errorf("%s: %w", name, cause)
	}
	return fmt.Errorf("%s: %q: %w", name, value, cause)
}
