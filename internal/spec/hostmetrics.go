package spec

import (
	"errors"
	"net/url"
	"strings"
)

const wantHostMetrics = "the URL of a Prometheus node exporter, such as http://db1:9100/metrics or db1:9100"

// RedactHostMetrics hides the password of a URL that carries one, for
// messages.
func RedactHostMetrics(s string) string {
	p, err := url.Parse(s)
	if err != nil || p.User == nil {
		return s
	}
	p.User = url.User(p.User.Username())
	return p.String()
}

// CheckHostMetrics checks a node exporter's URL: http or https, a host,
// and no credentials (a password in a URL would be stored and printed).
func CheckHostMetrics(s string) error {
	u := s
	if !strings.Contains(u, "://") {
		u = "http://" + u
	}
	p, err := url.Parse(u)
	switch {
	case err != nil:
		return errors.New("is not a URL: want " + wantHostMetrics)
	case p.Scheme != "http" && p.Scheme != "https":
		return errors.New("is not http or https: want " + wantHostMetrics)
	case p.Host == "":
		return errors.New("has no host: want " + wantHostMetrics)
	case p.User != nil:
		return errors.New("carries credentials, which mongobench would store: want " + wantHostMetrics + " (a node exporter behind authentication is not supported)")
	}
	return nil
}
