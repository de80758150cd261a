package cli

import (
	"github.com/mongobench/mongobench/internal/secret"
)

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
