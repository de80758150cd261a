package wire

import (
	"errors"
	"fmt"
	"runtime"

	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// codeCommandNotFound is the server's answer to a command it does not know.
const codeCommandNotFound = 59

// hello is what a server said about itself.
type hello struct {
	Server
	writable  bool
	secondary bool
	primary   string   // the primary a replica-set member names
	mechs     []string // saslSupportedMechs
}

// usable reports whether commands may be sent to this server: a mongos,
// a standalone, or a writable primary (of the named set, if one is named);
// with a direct connection, any server.
func (h hello) usable(o Options) bool {
	if o.ReplicaSet != "" && h.SetName != o.ReplicaSet && !o.Direct {
		return false
	}
	return o.Direct || h.Kind == "mongos" || h.Kind == "standalone" || h.Kind == "primary"
}

// hello sends the handshake on the current connection: hello (isMaster on
// servers that do not know it) with the client's metadata and, when the
// mechanism is to be negotiated, the user's SASL mechanisms.
func (c *Conn) hello(addr string) (hello, error) {
	reply, err := c.helloCommand("hello")
	var se *Error
	if errors.As(err, &se) && se.Code == codeCommandNotFound {
		reply, err = c.helloCommand("isMaster")
	}
	if err != nil {
		return hello{}, fmt.Errorf("hello %s: %w", addr, err)
	}
	h := hello{Server: Server{Addr: addr}}
	var msg string
	Each(reply, func(e bsoncore.Element) bool {
		v := e.Value()
		switch string(e.KeyBytes()) {
		case "isWritablePrimary", "ismaster":
			h.writable = h.writable || truthy(v)
		case "secondary":
			h.secondary = truthy(v)
		case "msg":
			msg, _ = v.StringValueOK()
		case "setName":
			h.SetName, _ = v.StringValueOK()
		case "primary":
			h.primary, _ = v.StringValueOK()
		case "maxWireVersion":
			h.MaxWireVersion = int32(Int(v))
		case "logicalSessionTimeoutMinutes":
			h.Sessions = v.Type != bsoncore.TypeNull
		case "saslSupportedMechs":
			h.mechs = appendStrings(nil, v)
		}
		return true
	})
	switch {
	case msg == "isdbgrid":
		h.Kind = "mongos"
	case h.SetName != "" && h.writable:
		h.Kind = "primary"
	case h.SetName != "":
		h.Kind = "member"
	case h.writable:
		h.Kind = "standalone"
	default:
		h.Kind = "unknown"
	}
	return h, nil
}

func (c *Conn) helloCommand(name string) (bsoncore.Document, error) {
	msg := c.startHandshake()
	idx, msg := bsoncore.AppendDocumentStart(msg)
	msg = bsoncore.AppendInt32Element(msg, name, 1)
	msg = bsoncore.AppendBooleanElement(msg, "helloOk", true)
	msg = bsoncore.AppendDocumentElement(msg, "client", clientMetadata(c.opts.AppName))
	if c.opts.Username != "" && c.opts.Mechanism == "" {
		msg = bsoncore.AppendStringElement(msg, "saslSupportedMechs", c.opts.AuthSource+"."+c.opts.Username)
	}
	msg = bsoncore.AppendStringElement(msg, "$db", "admin")
	msg, _ = bsoncore.AppendDocumentEnd(msg, idx)
	reply, err := c.exchange(msg)
	if err != nil {
		return nil, err
	}
	return reply, checkReply(reply)
}

// clientMetadata is the handshake's client document.
func clientMetadata(app string) bsoncore.Document {
	b := bsoncore.NewDocumentBuilder()
	if app != "" {
		b.AppendDocument("application", bsoncore.NewDocumentBuilder().AppendString("name", app).Build())
	}
	return b.AppendDocument("driver", bsoncore.NewDocumentBuilder().
		AppendString("name", "mongobench-wire").AppendString("version", "1").Build()).
		AppendDocument("os", bsoncore.NewDocumentBuilder().
			AppendString("type", runtime.GOOS).AppendString("architecture", runtime.GOARCH).Build()).
		AppendString("platform", runtime.Version()).
		Build()
}
