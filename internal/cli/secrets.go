package cli

import (
	"io"
	"strings"

	"github.com/mongobench/mongobench/internal/secret"
)

// keepSecrets remembers every connection string the command line and the
// environment give, and returns writers that remove their secrets from
// everything printed: the last line of defence behind redact and the
// runner's wrapped errors. Connection strings read later (scenario and
// targets files) are remembered where they are checked (runner.CheckURI,
// runner.Connect).
func keepSecrets(args []string, stdout, stderr io.Writer) (io.Writer, io.Writer) {
	for _, arg := range args {
		if _, v, ok := strings.Cut(arg, "="); ok && strings.HasPrefix(arg, "--") {
			arg = v
		}
		secret.Remember(arg)
	}
	secret.Remember(env("MONGOBENCH_URI"), env("MONGOBENCH_RESULTS_URI"))
	return secret.NewWriter(stdout), secret.NewWriter(stderr)
}
