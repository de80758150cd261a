package uri

import (
	"strings"
	"testing"
)

func TestRedactRemovesSecrets(t *testing.T) {
	tests := []struct{ in, want string }{
		{"mongodb://alice:s3cret@db1:27017,db2/?replicaSet=rs0", "mongodb://alice@db1:27017,db2/?replicaSet=rs0"},
		{"mongodb+srv://bob:pw@cluster0.example.net/app", "mongodb+srv://bob@cluster0.example.net/app"},
		{"mongodb://h/?authMechanism=MONGODB-AWS&authMechanismProperties=AWS_SESSION_TOKEN:tok", "mongodb://h/?authMechanism=MONGODB-AWS&authMechanismProperties=REDACTED"},
		{"mongodb://127.0.0.1:27017/", "mongodb://127.0.0.1:27017/"},
		{"mongodb://u:p%40ss@h:bad port/", "mongodb://u@(hosts not shown: not a valid seed list) (unparseable connection string)"},
		{"mongodb://u:s3cret?x@h:27017/", "mongodb://u@h:27017/"},
		{"mongodb://u:s3cret/x@h/db", "mongodb://u@h/db"},
		{"mongodb://h/?proxyPassword=s3cret&maxPoolSize=5", "mongodb://h/?proxyPassword=REDACTED&maxPoolSize=5"},
		{"mongodb://h/?typoPasword=s3cret", "mongodb://h/?typoPasword=REDACTED"},
		{"mongodb://u:s3cret/h", "mongodb://(hosts not shown: not a valid seed list) (unparseable connection string)"},
		{"u:secret@host", "(unparseable connection string)"},
		{"localhost:27017", "localhost:27017"},
		{"u:secret", "(unparseable connection string)"},
	}
	for _, tt := range tests {
		got := Redact(tt.in)
		if got != tt.want {
			t.Errorf("Redact(%q): got %q want %q", tt.in, got, tt.want)
		}
		for _, secret := range []string{"s3cret", "pw@", "tok", "p%40ss", "secret"} {
			if strings.Contains(got, secret) {
				t.Errorf("Redact(%q) = %q still holds %q", tt.in, got, secret)
			}
		}
	}
}

func TestMonitoringMode(t *testing.T) {
	if got := MonitoringMode("mongodb://h/?serverMonitoringMode=poll"); got != "poll" {
		t.Errorf("got %q want poll", got)
	}
	if got := MonitoringMode("mongodb://h/"); got != "auto" {
		t.Errorf("got %q want auto", got)
	}
}

func TestLoopback(t *testing.T) {
	tests := map[string]bool{
		"mongodb://127.0.0.1:27017/":          true,
		"mongodb://localhost,127.0.0.2:1/":    true,
		"mongodb://[::1]:27017/":              true,
		"mongodb://db.example.net:27017/":     false,
		"mongodb+srv://cluster0.example.net/": false,
		"mongodb://127.0.0.1,10.0.0.5/":       false,
		"mongodb://u:p@localhost/db?x=1":      true,
		"mongodb://[::1]/":                    true,
		"mongodb://[::ffff:127.0.0.1]:5/":     true,
		"mongodb://127.0.0.1:x/":              true,
		"mongodb://[fe80::1%25lo]:5/":         false,
		"mongodb://":                          false,
	}
	for in, want := range tests {
		if got := Loopback(in); got != want {
			t.Errorf("Loopback(%q): got %v want %v", in, got, want)
		}
	}
}
