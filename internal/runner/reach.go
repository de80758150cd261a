package runner

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"strings"
	"syscall"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/auth"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/description"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/topology"

	"github.com/mongobench/mongobench/internal/secret"
)

// reachError turns the driver's failure to reach a target into one line
// that names each host and port and why it could not be used ("connection
// refused", "timed out after 5s", "TLS handshake failed: …",
// "authentication failed"), instead of the driver's topology dump.
// Whatever is left of a driver message is cleared of the target's
// secrets.
func reachError(err error, target string, opts *options.ClientOptions) error {
	if isAuthFailure(err) {
		who := ""
		if c := opts.Auth; c != nil && c.Username != "" {
			who = " for user " + c.Username
			if c.AuthSource != "" {
				who += " (authSource " + c.AuthSource + ")"
			}
		}
		return fmt.Errorf("authentication failed%s at %s: wrong user name or password, or a user of another database", who, strings.Join(opts.Hosts, ", "))
	}
	tlsOn := opts.TLSConfig != nil
	var sel topology.ServerSelectionError
	if !errors.As(err, &sel) || len(sel.Desc.Servers) == 0 {
		return fmt.Errorf("cannot reach %s: %s", strings.Join(opts.Hosts, ", "), cause(err, target, tlsOn, connectWait(opts)))
	}
	var parts []hostCause
	for _, s := range sel.Desc.Servers {
		why := ""
		switch {
		case s.LastError != nil:
			why = cause(s.LastError, target, tlsOn, connectWait(opts))
		case s.Kind == description.Unknown:
			why = "no answer, timed out after " + selectionWait(opts).String()
		default:
			why = fmt.Sprintf("answered as %s, not a server that can run the benchmark (no primary within %s)", s.Kind, selectionWait(opts).String())
		}
		parts = append(parts, hostCause{string(s.Addr), why})
	}
	return fmt.Errorf("cannot reach %s", joinCauses(parts))
}

type hostCause struct{ host, why string }

// joinCauses names the hosts and their causes: "h1, h2: connection
// refused" when they share one, "h1 (connection refused), h2 (timed out
// after 5s)" otherwise.
func joinCauses(parts []hostCause) string {
	hosts := make([]string, len(parts))
	same := true
	for i, p := range parts {
		hosts[i] = p.host
		same = same && p.why == parts[0].why
	}
	if same {
		return strings.Join(hosts, ", ") + ": " + parts[0].why
	}
	for i, p := range parts {
		hosts[i] = p.host + " (" + p.why + ")"
	}
	return strings.Join(hosts, ", ")
}

// isAuthFailure reports whether err is the server refusing the
// credentials.
func isAuthFailure(err error) bool {
	var se mongo.ServerError
	if errors.As(err, &se) && se.HasErrorCode(codeAuthFailed) {
		return true
	}
	var ae *auth.Error
	return errors.As(err, &ae)
}

// cause says in a few words why one connection attempt failed; timeouts
// name the time waited. A cause it does not recognise is the driver's
// own message, cleared of the target's secrets.
func cause(err error, target string, tlsOn bool, waited time.Duration) string {
	var (
		dns       *net.DNSError
		header    tls.RecordHeaderError
		alert     tls.AlertError
		verify    *tls.CertificateVerificationError
		authority x509.UnknownAuthorityError
		hostname  x509.HostnameError
		invalid   x509.CertificateInvalidError
		netErr    net.Error
	)
	why, tlsLayer := "", false // tlsLayer: the error comes from the TLS layer itself
	switch {
	case isAuthFailure(err):
		return "authentication failed"
	case errors.As(err, &dns):
		if dns.IsNotFound {
			return "host not found"
		}
		return "DNS lookup failed"
	case errors.Is(err, syscall.ECONNREFUSED):
		return "connection refused"
	case errors.Is(err, syscall.EHOSTUNREACH):
		return "host unreachable"
	case errors.Is(err, syscall.ENETUNREACH):
		return "network unreachable"
	case errors.As(err, &header):
		why, tlsLayer = "the server does not speak TLS", true
	case errors.As(err, &alert):
		why, tlsLayer = "the server sent alert "+alert.Error(), true
	case errors.As(err, &authority):
		why, tlsLayer = "certificate signed by an unknown authority (tlsCAFile)", true
	case errors.As(err, &hostname):
		why, tlsLayer = "certificate not valid for "+hostname.Host, true
	case errors.As(err, &invalid):
		why, tlsLayer = "invalid certificate: "+invalid.Error(), true
	case errors.As(err, &verify):
		why, tlsLayer = "certificate not verified", true
	case errors.Is(err, os.ErrDeadlineExceeded), errors.Is(err, context.DeadlineExceeded),
		errors.As(err, &netErr) && netErr.Timeout():
		why = "timed out after " + waited.String()
	case errors.Is(err, io.EOF), errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.ErrUnexpectedEOF):
		if tlsOn {
			// The handshake is the first thing said on a TLS connection;
			// the driver's monitor keeps only the bare EOF.
			return "TLS handshake failed: connection closed by the server (does it speak TLS?)"
		}
		why = "connection closed by the server (does it require TLS? tls=true in the connection string)"
	default:
		why = secret.Error(err, target).Error()
	}
	if tlsOn && (strings.Contains(err.Error(), "failed to configure TLS") || tlsLayer) {
		return "TLS handshake failed: " + why
	}
	return why
}

// connectWait is how long one connection attempt may take.
func connectWait(o *options.ClientOptions) time.Duration {
	if o.ConnectTimeout != nil {
		return *o.ConnectTimeout
	}
	return connectTimeout
}

// selectionWait is how long the driver looks for a usable server.
func selectionWait(o *options.ClientOptions) time.Duration {
	if o.ServerSelectionTimeout != nil {
		return *o.ServerSelectionTimeout
	}
	return connectTimeout
}
