package cli

import (
	"fmt"
	"io"
	"net/url"
	"strings"

	"github.com/mongobench/mongobench/internal/secret"
	"github.com/mongobench/mongobench/internal/spec"
)

// keepSecrets remembers every connection string the command line and the
// environment (its MONGOBENCH_ variables) give, and returns writers that
// remove their secrets from everything printed: the last line of defence
// behind redact and the runner's wrapped errors. Connection strings read later (scenario and
// targets files) are remembered where they are checked (runner.CheckURI,
// runner.Connect).
func keepSecrets(args []string, stdout, stderr io.Writer) (io.Writer, io.Writer) {
	for _, arg := range args {
		if _, v, ok := strings.Cut(arg, "="); ok && strings.HasPrefix(arg, "--") {
			arg = v
		}
		if !rememberHostMetrics(arg) {
			secret.Remember(arg)
		}
	}
	for _, kv := range environ() {
		if name, v, _ := strings.Cut(kv, "="); strings.HasPrefix(name, envPrefix) {
			if !rememberHostMetrics(v) {
				secret.Remember(v) // MONGOBENCH_URI, MONGOBENCH_RESULTS_URI, a flag's variable
			}
		}
	}
	return secret.NewWriter(stdout), secret.NewWriter(stderr)
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

// warnURI warns, once per connection string, about options the driver
// ignores (a misspelled option, or proxy options the Go driver does not
// honour) and about w=0, which hides every write error.
func (a *app) warnURI(s string) {
	if a.warned[s] {
		return
	}
	if a.warned == nil {
		a.warned = map[string]bool{}
	}
	a.warned[s] = true
	for _, o := range secret.UnknownOptions(s) {
		a.say("warning: %s: option %s is not one the MongoDB Go driver reads; it is ignored\n", secret.URI(s), o)
	}
	if secret.Unacknowledged(s) {
		a.say("warning: %s: w=0 asks for unacknowledged writes: the server reports no write error, so failed writes count as done\n", secret.URI(s))
	}
}

// checkResultsURI refuses a results store that would not acknowledge its
// writes (w=0): a result that failed to store would look stored.
func (a *app) checkResultsURI(s string) error {
	if secret.Unacknowledged(s) {
		return usage(fmt.Errorf("results store %s: w=0 would leave stored results unacknowledged (a lost result would look stored); drop w=0 from the results URI", secret.URI(s)))
	}
	a.warnURI(s)
	return nil
}
