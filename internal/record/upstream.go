package record

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"strings"

	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/connstring"

	"github.com/mongobench/mongobench/internal/bounded"
	"github.com/mongobench/mongobench/internal/secret"
)

// Upstream reads the server to forward to from a connection string: its
// first host (port 27017 when it names none) and, when the string says
// tls=true or forceTLS is set, the TLS configuration (tlsCAFile and
// tlsInsecure honoured; insecure skips the certificate check). A
// mongodb+srv string names no single host and is refused. Errors never
// echo the string unredacted.
func Upstream(uri string, forceTLS, insecure bool) (string, *tls.Config, error) {
	if strings.HasPrefix(uri, "mongodb+srv://") {
		return "", nil, errors.New("a mongodb+srv URI names no single host; give mongodb://HOST:PORT of the member to record")
	}
	cs, err := connstring.Parse(uri)
	if err != nil {
		return "", nil, secret.ParseError(err, uri)
	}
	if len(cs.Hosts) == 0 {
		return "", nil, errors.New("names no host")
	}
	host := cs.Hosts[0]
	if _, _, err := net.SplitHostPort(host); err != nil {
		host = net.JoinHostPort(host, "27017")
	}
	if !cs.SSL && !forceTLS {
		return host, nil, nil
	}
	c := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: insecure || cs.SSLInsecure} //nolint:gosec // the user asked for it
	if cs.SSLCaFileSet {
		pem, err := bounded.ReadFile(cs.SSLCaFile, bounded.CAFile)
		if err != nil {
			return "", nil, fmt.Errorf("read tlsCAFile: %w", err)
		}
		c.RootCAs = x509.NewCertPool()
		if !c.RootCAs.AppendCertsFromPEM(pem) {
			return "", nil, fmt.Errorf("tlsCAFile %s holds no PEM certificate", cs.SSLCaFile)
		}
	}
	return host, c, nil
}
