package record

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestUpstream(t *testing.T) {
	ca := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(ca, []byte("not a certificate"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		uri       string
		force     bool
		host      string
		tls       bool
		insecure  bool
		wantError string
	}{
		{uri: "mongodb://db1.example:27018,db2.example:27019/?replicaSet=rs0", host: "db1.example:27018"},
		{uri: "mongodb://u:Secr3tPw@db1.example", host: "db1.example:27017"},
		{uri: "mongodb://db1.example:27017/?tls=true", host: "db1.example:27017", tls: true},
		{uri: "mongodb://db1.example:27017/?tls=true&tlsInsecure=true", host: "db1.example:27017", tls: true, insecure: true},
		{uri: "mongodb://db1.example:27017", force: true, host: "db1.example:27017", tls: true},
		{uri: "mongodb://db1.example:27017/?tls=true&tlsCAFile=" + ca, wantError: "holds no PEM certificate"},
		{uri: "mongodb+srv://u:Secr3tPw@cluster0.example.net", wantError: "names no single host"},
		{uri: "mongodb://u:Secr3tPw@db1.example/?nope=%zz", wantError: ""},
	} {
		host, cfg, err := Upstream(c.uri, c.force, false)
		if err != nil {
			if strings.Contains(err.Error(), "Secr3tPw") {
				t.Errorf("%s: the error echoes the password: %v", c.uri, err)
			}
			if c.wantError == "" && c.host != "" || c.wantError != "" && !strings.Contains(err.Error(), c.wantError) {
				t.Errorf("%s: error %v, want %q", c.uri, err, c.wantError)
			}
			continue
		}
		if c.wantError != "" {
			t.Errorf("%s: no error, want %q", c.uri, c.wantError)
			continue
		}
		if c.host == "" {
			continue
		}
		if host != c.host || (cfg != nil) != c.tls || cfg != nil && cfg.InsecureSkipVerify != c.insecure {
			t.Errorf("%s: host %s tls %v, want %s tls %v insecure %v", c.uri, host, cfg != nil, c.host, c.tls, c.insecure)
		}
	}
}
