// Package connect is the one place the tool opens a MongoDB client: every
// connection (the runner's, the telemetry samplers', a replica set
// member's, the local server's management) is made here, with the same
// timeouts: server selection and connecting each bounded by Timeout
// unless the connection string sets its own. The lint refuses
// mongo.Connect anywhere else (.golangci.yml, forbidigo).
package connect

import (
	"errors"
	"fmt"
	"time"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/mongo/options"

	"github.com/mongobench/mongobench/internal/secret"
)

// Timeout bounds server selection and each connection attempt, so that an
// unreachable server holds nothing up for long: a connection string's
// serverSelectionTimeoutMS and connectTimeoutMS win over it.
const Timeout = 5 * time.Second

// AppName is the application name a connection tells the server
// (serverStatus, currentOp and the server's log show it) unless its
// Settings name another.
const AppName = "mongobench"

// ErrBadURI marks a connection string the driver cannot use: bad input,
// not a failure of the server.
var ErrBadURI = errors.New("bad connection string")

// Settings are what differs between the tool's connections.
type Settings struct {
	// AppName is the name the connection tells the server ("": AppName).
	AppName string
	// Pool is the most connections the client opens (0: 1).
	Pool int
	// Member, when set, is one member of the connection string's
	// deployment (host:port as its replica set names it), connected to
	// directly with the string's credentials, TLS and server API
	// settings (which also hold for an SRV connection string).
	Member string
	// Poll makes the client poll the server's state rather than stream
	// it: SecantusDB answers streamed hellos with the wrong responseTo.
	Poll bool
}

// Options are the client options of a connection to uri with s. Its
// error wraps ErrBadURI and names uri without its password; the driver's
// complaint is shown without the parts of the string it quotes.
func Options(uri string, s Settings) (*options.ClientOptions, error) {
	secret.Remember(uri)
	o := options.Client().ApplyURI(uri)
	if err := o.Validate(); err != nil {
		return nil, fmt.Errorf("%w %s: %w", ErrBadURI, secret.URI(uri), secret.ParseError(err, uri))
	}
	if s.Member != "" {
		m := options.Client().SetHosts([]string{s.Member}).SetDirect(true)
		if o.Auth != nil {
			m.SetAuth(*o.Auth)
		}
		if o.TLSConfig != nil {
			m.SetTLSConfig(o.TLSConfig)
		}
		if o.ServerAPIOptions != nil {
			m.SetServerAPIOptions(o.ServerAPIOptions)
		}
		m.ServerSelectionTimeout, m.ConnectTimeout = o.ServerSelectionTimeout, o.ConnectTimeout
		o = m
	}
	o.SetAppName(AppName).SetMaxPoolSize(uint64(max(s.Pool, 1)))
	if s.AppName != "" {
		o.SetAppName(s.AppName)
	}
	if o.ServerSelectionTimeout == nil {
		o.SetServerSelectionTimeout(Timeout)
	}
	if o.ConnectTimeout == nil {
		o.SetConnectTimeout(Timeout)
	}
	if s.Poll {
		o.SetServerMonitoringMode(options.ServerMonitoringModePoll)
	}
	return o, nil
}

// Open opens a client to uri with s (Options). The driver connects in the
// background: the first command waits at most the selection timeout for
// a server. Its error wraps ErrBadURI, as Options's.
func Open(uri string, s Settings) (*mongo.Client, error) {
	o, err := Options(uri, s)
	if err != nil {
		return nil, err
	}
	return OpenWith(uri, o)
}

// OpenWith opens a client with o, the Options of uri (a caller that reads
// them first, for its error messages); uri only names the target in an
// error.
func OpenWith(uri string, o *options.ClientOptions) (*mongo.Client, error) {
	c, err := mongo.Connect(o)
	if err != nil {
		return nil, fmt.Errorf("%w %s: %w", ErrBadURI, secret.URI(uri), secret.ParseError(err, uri))
	}
	return c, nil
}
