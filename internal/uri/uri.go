// Package uri handles MongoDB connection strings the way the tool shows and
// stores them: never with a password or a secret option.
package uri

import (
	"net/netip"
	"slices"
	"strings"
)

// Redacted stands in for a secret value.
const Redacted = "REDACTED"

// secretOptions are query options whose values are credentials (in lower
// case). proxyPassword is one although the Go driver ignores it.
var secretOptions = []string{
	"authmechanismproperties", "tlscertificatekeyfilepassword", "sslclientcertificatekeypassword",
	"sslpemkeypassword", "proxypassword",
}

// knownOptions are the options the Go driver reads (in lower case), whose
// values Redact shows unless they are secret.
var knownOptions = []string{
	"appname", "authmechanism", "authmechanismproperties", "authsource", "compressors", "connect",
	"directconnection", "connecttimeoutms", "heartbeatintervalms", "heartbeatfrequencyms", "journal",
	"loadbalanced", "localthresholdms", "maxidletimems", "maxpoolsize", "minpoolsize", "maxconnecting",
	"readconcernlevel", "readpreference", "readpreferencetags", "maxstaleness", "maxstalenessseconds",
	"replicaset", "retrywrites", "retryreads", "maxadaptiveretries", "enableoverloadretargeting",
	"servermonitoringmode", "serverselectiontimeoutms", "sockettimeoutms", "srvmaxhosts", "srvservicename",
	"ssl", "tls", "sslclientcertificatekeyfile", "tlscertificatekeyfile", "sslclientcertificatekeypassword",
	"tlscertificatekeyfilepassword", "tlscertificatefile", "tlsprivatekeyfile", "sslinsecure", "tlsinsecure",
	"sslcertificateauthorityfile", "tlscafile", "timeoutms", "tlsdisablecertificaterevocationcheck",
	"tlsdisableocspendpointcheck", "w", "zlibcompressionlevel", "zstdcompressionlevel",
}

// SecretOption reports whether the option named key (in lower case)
// holds a credential.
func SecretOption(key string) bool { return slices.Contains(secretOptions, key) }

// KnownOption reports whether the Go driver reads the option named key
// (in lower case).
func KnownOption(key string) bool { return slices.Contains(knownOptions, key) }

// Redact returns the connection string s as it may be shown: the scheme,
// the user name, the hosts, the database, and the options with the values
// of secret and unknown ones replaced. It splits s as the Go driver does
// (the user information ends at the first '@', so a '?' or '/' in a
// password stays in it). Whatever it cannot read is left out rather than
// echoed: a string without a scheme is reduced to a placeholder (unless it
// is nothing but a host list, such as "localhost"), and
// hosts that are not a valid seed list are not shown. The secret package
// does the same from the driver's own parse; this is its fallback for
// strings the driver cannot read, and the form pure packages use.
func Redact(s string) string {
	const unparseable = "(unparseable connection string)"
	scheme, rest, ok := strings.Cut(s, "://")
	if !ok && validSeedList(s) {
		return s // a host list without a scheme holds no credentials
	}
	if !ok || !validScheme(scheme) {
		return unparseable
	}
	scheme += "://"
	user := ""
	if at := strings.Index(rest, "@"); at >= 0 {
		name, _, _ := strings.Cut(rest[:at], ":")
		if strings.ContainsAny(name, "/?#") {
			return scheme + unparseable
		}
		user, rest = name+"@", rest[at+1:]
	}
	end := strings.IndexAny(rest, "/?")
	if end < 0 {
		end = len(rest)
	}
	hosts, tail := rest[:end], rest[end:]
	if !validSeedList(hosts) {
		return scheme + user + "(hosts not shown: not a valid seed list) " + unparseable
	}
	path, query, hasQuery := strings.Cut(tail, "?")
	if hasQuery {
		path += "?" + redactQuery(query)
	}
	return scheme + user + hosts + path
}

func validScheme(s string) bool {
	return s != "" && !strings.ContainsFunc(s, func(r rune) bool { return !alnum(r) && !strings.ContainsRune("+-.", r) })
}

// validSeedList reports whether s is a comma-separated list of host,
// host:port, [v6] or [v6]:port entries with numeric ports: anything else
// may be a mistyped password, and is not shown.
func validSeedList(s string) bool {
	n := 0
	for _, hp := range strings.Split(s, ",") {
		if hp == "" {
			continue
		}
		n++
		host, port := hp, ""
		if inner, ok := strings.CutPrefix(hp, "["); ok {
			h, after, ok := strings.Cut(inner, "]")
			if !ok || h == "" || strings.ContainsFunc(h, func(r rune) bool { return !isHex(r) && r != ':' && r != '.' && r != '%' }) {
				return false
			}
			host = "x"
			if after != "" {
				p, ok := strings.CutPrefix(after, ":")
				if !ok {
					return false
				}
				port = p
			}
		} else if h, p, ok := strings.Cut(hp, ":"); ok {
			host, port = h, p
		}
		if host == "" || strings.ContainsFunc(host, func(r rune) bool { return !alnum(r) && !strings.ContainsRune(".-_%", r) }) {
			return false
		}
		if port != "" && (len(port) > 5 || strings.ContainsFunc(port, func(r rune) bool { return r < '0' || r > '9' })) {
			return false
		}
		if strings.Contains(hp, ":") && port == "" {
			return false
		}
	}
	return n > 0
}

func alnum(r rune) bool { return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' }

func isHex(r rune) bool {
	return r >= '0' && r <= '9' || r >= 'a' && r <= 'f' || r >= 'A' && r <= 'F'
}

// redactQuery hides the value of every option that is secret or that the
// driver does not read (a misspelled secret is still a secret).
func redactQuery(q string) string {
	opts := strings.FieldsFunc(q, func(r rune) bool { return r == '&' || r == ';' })
	for i, o := range opts {
		k, _, ok := strings.Cut(o, "=")
		if !ok {
			opts[i] = Redacted
			continue
		}
		if key := strings.ToLower(k); SecretOption(key) || !KnownOption(key) {
			opts[i] = k + "=" + Redacted
		}
	}
	return strings.Join(opts, "&")
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
