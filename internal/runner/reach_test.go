package runner_test

import (
	"context"
	"io"
	"net"
	"net/url"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/runner"
	"github.com/mongobench/mongobench/internal/testsupport/testenv"
)

// listener accepts connections on a free loopback port and hands each to
// serve; it stops with the test.
func listener(t *testing.T, serve func(net.Conn)) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go serve(c)
		}
	}()
	return ln.Addr().String()
}

// closedPort is a loopback address nothing listens on.
func closedPort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

// wantReachLine connects to uri and checks that the failure is one line
// naming every host and the cause (one of the |-separated alternatives),
// without the driver's topology dump.
func wantReachLine(t *testing.T, uri string, hosts []string, want string) {
	t.Helper()
	c, err := runner.Connect(context.Background(), uri, 2)
	if err == nil {
		_ = c.Disconnect(context.Background())
		t.Fatalf("connect %s: no error", uri)
	}
	msg := err.Error()
	t.Logf("%s", msg)
	if strings.Contains(msg, "\n") || strings.Contains(msg, "topology") || strings.Contains(msg, "Servers:") {
		t.Errorf("error: got %q, want one line without the driver's topology", msg)
	}
	for _, h := range hosts {
		if !strings.Contains(msg, h) {
			t.Errorf("error: got %q, want it to name %s", msg, h)
		}
	}
	for _, w := range strings.Split(want, "|") {
		if strings.Contains(msg, w) {
			return
		}
	}
	t.Errorf("error: got %q, want the cause %q", msg, want)
}

// TestReachErrors: a target that cannot be used ends in one line naming
// host, port and cause. The short server-selection timeouts keep the
// test quick; what is tested is the message, not the time.
func TestReachErrors(t *testing.T) {
	refused := closedPort(t)
	silent := listener(t, func(c net.Conn) { _, _ = io.Copy(io.Discard, c) }) // reads, never answers
	hangup := listener(t, func(c net.Conn) { _ = c.Close() })
	const quick = "serverSelectionTimeoutMS=1500&connectTimeoutMS=1000"
	cases := []struct {
		name  string
		uri   string
		hosts []string
		want  string
	}{
		{"closed port", "mongodb://" + refused + "/?" + quick, []string{refused}, "connection refused"},
		{"two closed ports", "mongodb://" + refused + "," + closedPort(t) + "/?" + quick, []string{refused}, ": connection refused"},
		{"no answer", "mongodb://" + silent + "/?" + quick, []string{silent}, "timed out after 1s"},
		{"hung up", "mongodb://" + hangup + "/?" + quick, []string{hangup}, "connection closed by the server (does it require TLS?"},
		{"TLS to a server that closes", "mongodb://" + hangup + "/?tls=true&" + quick, []string{hangup}, "TLS handshake failed"},
		{"unknown host", "mongodb://mongobench-no-such-host.invalid:27017/?" + quick, []string{"mongobench-no-such-host.invalid:27017"}, "host not found|DNS lookup failed"}, // a machine without a resolver cannot say which
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			wantReachLine(t, c.uri, c.hosts, c.want)
		})
	}
}

// TestReachErrorsOfServer: TLS asked of the real server, which speaks
// plain MongoDB wire protocol, fails its handshake, named as such.
func TestReachErrorsOfServer(t *testing.T) {
	u, err := url.Parse(testenv.URI(t))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	for k, v := range map[string]string{"tls": "true", "tlsInsecure": "true", "serverSelectionTimeoutMS": "2000", "connectTimeoutMS": "1000"} {
		q.Set(k, v)
	}
	u.RawQuery = q.Encode()
	wantReachLine(t, u.String(), []string{u.Host}, "TLS handshake failed")
}
