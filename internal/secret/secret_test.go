package secret

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/uri"
)

// marker is a password no output may ever contain, in whole or in the
// pieces the driver's messages quote.
const marker = "S3cr3tPa55"

// leaks are the forms of the marker that must not show: the whole, and
// each half around the character a test puts in the middle.
var leaks = []string{marker, "S3cr3t", "Pa55"}

// hostile are connection strings carrying the marker in every form
// issue 14 found leaking, with what URI shows for each.
var hostile = []struct{ in, want string }{
	{"mongodb://u:S3cr3t?Pa55@h:27017/", "mongodb://u@h:27017/"},
	{"mongodb://u:S3cr3t?Pa55@h:27017/db?replicaSet=rs0", "mongodb://u@h:27017/db?replicaSet=rs0"},
	{"mongodb://u:S3cr3t/Pa55@h/", "mongodb://u@h/"},
	{"mongodb://u:S3cr3t%zzPa55@h/", "mongodb://u@h/"},
	{"mongodb://u:S3cr3t@Pa55@h/", "mongodb://u@(hosts not shown: not a valid seed list) (unparseable connection string)"},
	{"mongodb://u:S3cr3tPa55@h:notaport/", "mongodb://u@(hosts not shown: not a valid seed list) (unparseable connection string)"},
	{"mongodb://u:S3cr3tPa55/h", "mongodb://(hosts not shown: not a valid seed list) (unparseable connection string)"},
	{"mongodb://h/?proxyHost=p&proxyPassword=S3cr3tPa55", "mongodb://h/?proxyHost=REDACTED&proxyPassword=REDACTED"},
	{"mongodb://h/?tls=true&tlsCertificateKeyFilePassword=S3cr3tPa55", "mongodb://h/?tls=true&tlsCertificateKeyFilePassword=REDACTED"},
	{"mongodb://h/?tls=true&tlsCertificateKeyFilePassword=S3cr3t%zzPa55", "mongodb://h/?tls=true&tlsCertificateKeyFilePassword=REDACTED"},
	{"mongodb://h/?sslClientCertificateKeyPassword=S3cr3tPa55", "mongodb://h/?sslClientCertificateKeyPassword=REDACTED"},
	{"mongodb://h/?authMechanism=MONGODB-AWS&authMechanismProperties=AWS_SESSION_TOKEN:S3cr3tPa55", "mongodb://h/?authMechanism=MONGODB-AWS&authMechanismProperties=REDACTED"},
	{"mongodb://h/?pasword=S3cr3tPa55", "mongodb://h/?pasword=REDACTED"},
	{"mongodb+srv://u:S3cr3tPa55@cluster0.example.net/app", "mongodb+srv://u@cluster0.example.net/app"},
	{"mongodb://u:S3cr3tPa55@[::1]:27017,h2/?w=majority", "mongodb://u@[::1]:27017,h2/?w=majority"},
	{"mongodbx://u:S3cr3tPa55@h/", "mongodbx://u@h/"},
	{"u:S3cr3tPa55@h", "(unparseable connection string)"},
	{"mongodb://u:S3cr3tPa55@h/?appName=a@b", "mongodb://u@h/?appName=a@b"},
}

func TestURIHidesEverySecret(t *testing.T) {
	for _, tt := range hostile {
		got := URI(tt.in)
		if got != tt.want {
			t.Errorf("URI(%q):\n got %q\nwant %q", tt.in, got, tt.want)
		}
		for _, l := range leaks {
			if strings.Contains(got, l) {
				t.Errorf("URI(%q) = %q holds %q", tt.in, got, l)
			}
		}
	}
}

// The pure fallback agrees with the driver-based form wherever the driver
// can read the string, so a pure package shows what the tool shows.
func TestURIAgreesWithPureFallback(t *testing.T) {
	for _, tt := range hostile {
		if _, ok := parse(tt.in); !ok {
			continue
		}
		if got, pure := URI(tt.in), uri.Redact(tt.in); got != pure {
			t.Errorf("%q: secret.URI %q, uri.Redact %q", tt.in, got, pure)
		}
	}
}

// Every message the driver makes of these strings, once through
// ParseError, holds no piece of the marker, and still unwraps to the
// driver's error.
func TestParseErrorHidesDriverQuotes(t *testing.T) {
	for _, tt := range hostile {
		err := options.Client().ApplyURI(tt.in).Validate()
		if err == nil {
			continue
		}
		got := ParseError(fmt.Errorf("check: %w", err), tt.in)
		for _, l := range leaks {
			if strings.Contains(got.Error(), l) {
				t.Errorf("ParseError for %q = %q holds %q (driver said %q)", tt.in, got, l, err)
			}
		}
		if !errors.Is(got, err) {
			t.Errorf("ParseError for %q does not unwrap to the driver's error", tt.in)
		}
	}
}

func TestHideQuotedKeepsOptionNames(t *testing.T) {
	s := "mongodb://h/?maxPoolSize=lots"
	got := hideQuoted(`invalid value for "maxPoolSize": "lots"`, s)
	if want := `invalid value for "maxPoolSize": "REDACTED"`; got != want {
		t.Errorf("got %q want %q", got, want)
	}
	if got := hideQuoted(`unterminated "S3cr3t`, s); strings.Contains(got, "S3cr3t") {
		t.Errorf("unterminated quote: got %q", got)
	}
}

func TestTextReplacesSecretsInFreeText(t *testing.T) {
	tests := []struct{ uri, text string }{
		{"mongodb://u:S3cr3t?Pa55@h/", "connecting to mongodb://u:S3cr3t?Pa55@h/ failed"},
		{"mongodb://u:S3cr3t%3FPa55@h/", "auth as u with S3cr3t?Pa55 failed"},
		{"mongodb://h/?proxyPassword=S3cr3tPa55", `option "proxyPassword" = S3cr3tPa55`},
		{"mongodb://h/?authMechanismProperties=AWS_SESSION_TOKEN:S3cr3tPa55", "token S3cr3tPa55 expired"},
		{"mongodb://u:S3cr3tPa55/h", `invalid host "u:S3cr3tPa55"`},
	}
	for _, tt := range tests {
		got := Text(tt.text, tt.uri)
		if strings.Contains(got, marker) || strings.Contains(got, "S3cr3t?Pa55") {
			t.Errorf("Text(%q, %q) = %q holds the secret", tt.text, tt.uri, got)
		}
	}
	if got := Text("nothing to hide", "mongodb://u:pw@h/"); got != "nothing to hide" {
		t.Errorf("Text changed text without secrets: %q", got)
	}
}

func TestWriterRemovesRememberedSecrets(t *testing.T) {
	Remember("mongodb://writer:Wr1terS3cret@h/")
	var b bytes.Buffer
	w := NewWriter(&b)
	msg := "cannot reach mongodb://writer:Wr1terS3cret@h/ (password Wr1terS3cret)\n"
	n, err := fmt.Fprint(w, msg)
	if err != nil || n != len(msg) {
		t.Fatalf("Write: %d, %v; want %d, nil", n, err, len(msg))
	}
	if strings.Contains(b.String(), "Wr1terS3cret") || !strings.Contains(b.String(), "mongodb://writer@h/") {
		t.Errorf("written: %q, want the URI shown without its password", b.String())
	}
}

func TestUnknownOptionsAndUnacknowledged(t *testing.T) {
	if got := UnknownOptions("mongodb://h/?proxyHost=p&maxPoolSize=5&wtimeoutMS=5&proxyHost=q"); strings.Join(got, ",") != "proxyHost,wtimeoutMS" {
		t.Errorf("UnknownOptions: got %q want proxyHost, wtimeoutMS", got)
	}
	for s, want := range map[string]bool{
		"mongodb://h/?w=0":        true,
		"mongodb://h/?w=1":        false,
		"mongodb://h/?w=majority": false,
		"mongodb://h/":            false,
	} {
		if got := Unacknowledged(s); got != want {
			t.Errorf("Unacknowledged(%q) = %v want %v", s, got, want)
		}
	}
}

// A connection string's warnings: each option the driver ignores and
// w=0, the password never shown.
func TestWarnings(t *testing.T) {
	if w := Warnings("mongodb://db1/?w=majority"); len(w) != 0 {
		t.Errorf("a plain URI: %q", w)
	}
	w := Warnings("mongodb://u:hunter2@db1/?proxyHost=p&w=0")
	if len(w) != 2 || !strings.Contains(w[0], "option proxyHost is not one the MongoDB Go driver reads") || !strings.Contains(w[1], "w=0 asks for unacknowledged writes") {
		t.Errorf("warnings %q", w)
	}
	for _, l := range w {
		if strings.Contains(l, "hunter2") {
			t.Errorf("%q shows the password", l)
		}
	}
}
