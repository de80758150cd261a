package cli_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/cli"
)

// The Atlas flags are checked before anything connects, and a secret of
// the credentials is never printed.
func TestAtlasFlagsAndCredentials(t *testing.T) {
	for _, v := range []string{"MONGODB_ATLAS_CLIENT_ID", "MONGODB_ATLAS_CLIENT_SECRET", "MONGODB_ATLAS_PUBLIC_API_KEY", "MONGODB_ATLAS_PRIVATE_API_KEY"} {
		t.Setenv(v, "")
	}
	partial := filepath.Join(t.TempDir(), "atlas.json")
	if err := os.WriteFile(partial, []byte(`{"publicKey": "", "privateKey": "hunter2-private"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"--atlas-cluster", "Cluster0"}, "need --atlas-project"},
		{[]string{"--atlas-project", "5e2211c17a3e5a48f5497de3"}, "--atlas-cluster"},
		{[]string{"--atlas-project", "5e2211c17a3e5a48f5497de3", "--atlas-cluster", "Cluster0"}, "MONGODB_ATLAS_CLIENT_ID"},
		{[]string{"--atlas-project", "5e2211c17a3e5a48f5497de3", "--atlas-cluster", "Cluster0", "--atlas-credentials", partial}, "both its public and its private key"},
	}
	for _, tt := range tests {
		o := mb(t, append([]string{"run", "--ops", "10"}, tt.args...)...)
		wantCode(t, o, cli.ExitUsage)
		if !strings.Contains(o.stderr, tt.want) {
			t.Errorf("%v: got %q, want it to say %q", tt.args, o.stderr, tt.want)
		}
		wantNoSecret(t, "stderr", o.stderr, "hunter2-private")
	}
}
