// Package uri handles MongoDB connection strings the way the tool shows and
// stores them: never with a password or a secret option.
package uri

import (
	"net/netip"
	"strings"
)

// secretOptions are query options whose values are credentials.
var secretOptions = []string{"authmechanismproperties", "tlscertificatekeyfilepassword", "sslpemkeypassword"}

// Redact returns s without its password and without the values of secret
// options. It parses the connection string itself, since a seed list such
// as "h1:27017,h2" is not a URL net/url accepts. A string without a scheme
// is reduced to a placeholder, so a malformed URI holding a password is
// never echoed.
func Redact(s string) string {
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok || scheme == "" {
		return "(unparseable connection string)"
	}
	end := strings.IndexAny(rest, "/?")
	if end < 0 {
		end = len(rest)
	}
	authority, tail := rest[:end], rest[end:]
	if at := strings.LastIndex(authority, "@"); at >= 0 {
		user, _, _ := strings.Cut(authority[:at], ":")
		authority = user + "@" + authority[at+1:]
	}
	path, query, hasQuery := strings.Cut(tail, "?")
	if hasQuery {
		path += "?" + redactQuery(query)
	}
	return scheme + "://" + authority + path
}

func redactQuery(q string) string {
	opts := strings.Split(q, "&")
	for i, o := range opts {
		if k, _, ok := strings.Cut(o, "="); ok && isSecret(k) {
			opts[i] = k + "=REDACTED"
		}
	}
	return strings.Join(opts, "&")
}

func isSecret(key string) bool {
	k := strings.ToLower(key)
	for _, s := range secretOptions {
		if k == s {
			return true
		}
	}
	return false
}

// MonitoringMode is the URI's serverMonitoringMode option, or "auto" (the
// driver's default) when it has none.
func MonitoringMode(s string) string {
	_, query, _ := strings.Cut(s, "?")
	for _, o := range strings.Split(query, "&") {
		if k, v, ok := strings.Cut(o, "="); ok && strings.EqualFold(k, "serverMonitoringMode") {
			return v
		}
	}
	return "auto"
}

// Loopback reports whether every host of s is on this machine.
func Loopback(s string) bool {
	rest, ok := strings.CutPrefix(s, "mongodb://")
	if !ok {
		return false
	}
	if end := strings.IndexAny(rest, "/?"); end >= 0 {
		rest = rest[:end]
	}
	if at := strings.LastIndex(rest, "@"); at >= 0 {
		rest = rest[at+1:]
	}
	if rest == "" {
		return false
	}
	for _, hp := range strings.Split(rest, ",") {
		if !loopbackHost(hostOf(hp)) {
			return false
		}
	}
	return true
}

// hostOf returns the host of a seed-list entry: "host", "host:port",
// "[v6]" or "[v6]:port". A bare IPv6 address, with more than one colon,
// is a host without a port.
func hostOf(hp string) string {
	if inner, ok := strings.CutPrefix(hp, "["); ok {
		if host, _, ok := strings.Cut(inner, "]"); ok {
			return host
		}
		return inner
	}
	if strings.Count(hp, ":") == 1 {
		host, _, _ := strings.Cut(hp, ":")
		return host
	}
	return hp
}

// loopbackHost reports whether host is localhost or a loopback address
// (without a zone).
func loopbackHost(host string) bool {
	if host == "localhost" {
		return true
	}
	a, err := netip.ParseAddr(host)
	return err == nil && a.Zone() == "" && a.IsLoopback()
}
