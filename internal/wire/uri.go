package wire

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/connstring"

	"github.com/mongobench/mongobench/internal/bounded"
)

// ErrUnsupported marks a connection string the wire client cannot honour;
// the error names the option.
var ErrUnsupported = errors.New("not supported by the wire client")

// Options are what a connection needs from a connection string.
type Options struct {
	Hosts      []string // host:port seeds
	Direct     bool     // connect to the single seed whatever its role
	ReplicaSet string
	AppName    string
	TLS        *tls.Config // nil: plain TCP
	// Credentials; Mechanism is "" (negotiated), SCRAM-SHA-256 or SCRAM-SHA-1.
	Username, Password, AuthSource, Mechanism string
	// RetryWrites sends transaction numbers with writes and retries a
	// write once after a network error (the driver's default).
	RetryWrites bool
	// RetryReads retries a read once after a network error.
	RetryReads bool
	// WriteConcern and ReadConcern are the documents the connection string
	// asks for, sent with writes and reads; nil when it sets none.
	WriteConcern, ReadConcern bsoncore.Document
	ConnectTimeout            time.Duration
	// OpTimeout bounds one operation, its retry and any reconnect
	// included: the connection string's timeoutMS, else its
	// socketTimeoutMS, else DefaultOpTimeout; 0 (timeoutMS=0 or
	// socketTimeoutMS=0) means no bound but the context's.
	OpTimeout time.Duration
	// Backoff is the wait between failed redials; zero: DefaultBackoff.
	Backoff Backoff
}

// DefaultOpTimeout is the operation timeout of a connection string that
// sets neither timeoutMS nor socketTimeoutMS: long enough for any
// operation the benchmark sends to a server that answers, short enough
// that a network black hole ends in timeouts within a run.
const DefaultOpTimeout = 30 * time.Second

// Parse reads a connection string. Options the wire client cannot honour
// give an error wrapping ErrUnsupported.
func Parse(uri string) (Options, error) {
	if strings.HasPrefix(uri, connstring.SchemeMongoDBSRV+"://") {
		return Options{}, fmt.Errorf("mongodb+srv connection strings: %w", ErrUnsupported)
	}
	cs, err := connstring.ParseAndValidate(uri)
	if err != nil {
		return Options{}, fmt.Errorf("parse connection string: %w", err)
	}
	if err := supported(cs); err != nil {
		return Options{}, err
	}
	o := Options{
		Hosts: cs.Hosts, Direct: cs.DirectConnection, ReplicaSet: cs.ReplicaSet, AppName: cs.AppName,
		Username: cs.Username, Password: cs.Password, AuthSource: cs.AuthSource, Mechanism: cs.AuthMechanism,
		RetryWrites: !cs.RetryWritesSet || cs.RetryWrites, RetryReads: !cs.RetryReadsSet || cs.RetryReads,
		ConnectTimeout: 10 * time.Second, OpTimeout: DefaultOpTimeout,
	}
	if cs.ConnectTimeoutSet {
		o.ConnectTimeout = cs.ConnectTimeout
	}
	switch {
	case cs.TimeoutSet:
		o.OpTimeout = cs.Timeout
	case cs.SocketTimeoutSet:
		o.OpTimeout = cs.SocketTimeout
	}
	if o.AuthSource == "" {
		o.AuthSource = "admin"
	}
	if cs.SSL {
		if o.TLS, err = tlsConfig(cs); err != nil {
			return Options{}, err
		}
	}
	o.WriteConcern = writeConcern(cs)
	if cs.ReadConcernLevel != "" {
		o.ReadConcern = bsoncore.NewDocumentBuilder().AppendString("level", cs.ReadConcernLevel).Build()
	}
	return o, nil
}

// supported returns an error wrapping ErrUnsupported naming the first
// option of cs the wire client cannot honour.
func supported(cs *connstring.ConnString) error {
	var what string
	switch {
	case cs.LoadBalanced:
		what = "loadBalanced=true"
	case cs.HasAuthParameters() && cs.AuthMechanism != "" &&
		cs.AuthMechanism != "SCRAM-SHA-256" && cs.AuthMechanism != "SCRAM-SHA-1":
		what = "authMechanism=" + cs.AuthMechanism
	case cs.SSLClientCertificateKeyFileSet || cs.SSLCertificateFileSet || cs.SSLPrivateKeyFileSet:
		what = "TLS client certificates"
	case len(cs.Compressors) > 0:
		what = "compressors=" + strings.Join(cs.Compressors, ",")
	case cs.ReadPreference != "" && !strings.EqualFold(cs.ReadPreference, "primary"):
		what = "readPreference=" + cs.ReadPreference
	case cs.WNumberSet && cs.WNumber == 0:
		what = "w=0 (unacknowledged writes)"
	}
	if what != "" {
		return fmt.Errorf("%s: %w", what, ErrUnsupported)
	}
	return nil
}

func tlsConfig(cs *connstring.ConnString) (*tls.Config, error) {
	c := &tls.Config{MinVersion: tls.VersionTLS12, InsecureSkipVerify: cs.SSLInsecure} //nolint:gosec // the user asked for it
	if cs.SSLCaFileSet {
		pem, err := bounded.ReadFile(cs.SSLCaFile, bounded.CAFile)
		if err != nil {
			return nil, fmt.Errorf("read tlsCAFile: %w", err)
		}
		c.RootCAs = x509.NewCertPool()
		if !c.RootCAs.AppendCertsFromPEM(pem) {
			return nil, fmt.Errorf("tlsCAFile %s holds no PEM certificate", cs.SSLCaFile)
		}
	}
	return c, nil
}

func writeConcern(cs *connstring.ConnString) bsoncore.Document {
	if cs.WString == "" && !cs.WNumberSet && !cs.JSet {
		return nil
	}
	b := bsoncore.NewDocumentBuilder()
	switch {
	case cs.WString != "":
		b.AppendString("w", cs.WString)
	case cs.WNumberSet:
		b.AppendInt32("w", int32(cs.WNumber))
	}
	if cs.JSet {
		b.AppendBoolean("j", cs.J)
	}
	return b.Build()
}
