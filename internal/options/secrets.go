package options

import (
	"net/url"
	"strings"

	"github.com/mongobench/mongobench/internal/secret"
	"github.com/mongobench/mongobench/internal/spec"
)

// RememberSecrets remembers every connection string the command line
// (args) and the environment (environ, name=value: its MONGOBENCH_
// variables) give, and the passwords of --host-metrics lists, so that the
// writers of package secret remove them from everything printed: the
// last line of defence behind redaction where they are shown. Connection
// strings read later (scenario and targets files) are remembered where
// they are checked (runner.CheckURI, runner.Connect).
func RememberSecrets(args, environ []string) {
	for _, arg := range args {
		if _, v, ok := strings.Cut(arg, "="); ok && strings.HasPrefix(arg, "--") {
			arg = v
		}
		if !rememberHostMetrics(arg) {
			secret.Remember(arg)
		}
	}
	for _, kv := range environ {
		if name, v, _ := strings.Cut(kv, "="); strings.HasPrefix(name, EnvPrefix) {
			if !rememberHostMetrics(v) {
				secret.Remember(v) // MONGOBENCH_URI, MONGOBENCH_RESULTS_URI, a flag's variable
			}
		}
	}
}

// rememberHostMetrics remembers the password of each node exporter URL of
// a --host-metrics list (URL or MEMBER=URL, comma-separated), which is
// not a connection string, and reports whether arg is such a list.
func rememberHostMetrics(arg string) bool {
	items := spec.ParseHostMetrics(arg)
	if len(items) == 0 {
		return false
	}
	for _, it := range items {
		u, err := url.Parse(it.URL)
		if err != nil || u.Scheme != "http" && u.Scheme != "https" {
			return false
		}
	}
	for _, it := range items {
		u, _ := url.Parse(it.URL)
		if p, ok := u.User.Password(); ok {
			secret.RememberToken(p)
		}
	}
	return true
}
