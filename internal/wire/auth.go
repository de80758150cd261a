package wire

import (
	"crypto/md5" //nolint:gosec // SCRAM-SHA-1's password digest is MD5 by definition
	"encoding/hex"
	"errors"
	"fmt"
	"slices"

	"github.com/xdg-go/scram"
	"github.com/xdg-go/stringprep"
	"go.mongodb.org/mongo-driver/v2/x/bsonx/bsoncore"
)

// Mechanism names.
const (
	scramSHA256 = "SCRAM-SHA-256"
	scramSHA1   = "SCRAM-SHA-1"
)

// authenticate runs a SCRAM conversation on the current connection. The
// mechanism is the connection string's, or SCRAM-SHA-256 when the server
// lists it for the user, else SCRAM-SHA-1 (the driver's negotiation).
func (c *Conn) authenticate(mechs []string) error {
	mech := c.opts.Mechanism
	if mech == "" {
		mech = scramSHA1
		if slices.Contains(mechs, scramSHA256) {
			mech = scramSHA256
		}
	}
	client, err := scramClient(mech, c.opts.Username, c.opts.Password)
	if err != nil {
		return err
	}
	client.WithMinIterations(4096)
	if err := c.converse(mech, client.NewConversation()); err != nil {
		return fmt.Errorf("authenticate %s as %s with %s: %w", c.opts.AuthSource, c.opts.Username, mech, err)
	}
	return nil
}

func scramClient(mech, user, pass string) (*scram.Client, error) {
	switch mech {
	case scramSHA256:
		prepped, err := stringprep.SASLprep.Prepare(pass)
		if err != nil {
			return nil, fmt.Errorf("SASLprep the password: %w", err)
		}
		return scram.SHA256.NewClientUnprepped(user, prepped, "")
	case scramSHA1:
		sum := md5.Sum([]byte(user + ":mongo:" + pass)) //nolint:gosec // the protocol's digest
		return scram.SHA1.NewClientUnprepped(user, hex.EncodeToString(sum[:]), "")
	}
	return nil, fmt.Errorf("mechanism %s: %w", mech, ErrUnsupported)
}

// converse exchanges saslStart and saslContinue until both sides are done.
func (c *Conn) converse(mech string, conv *scram.ClientConversation) error {
	step, err := conv.Step("")
	if err != nil {
		return err
	}
	msg := c.startHandshake()
	idx, msg := bsoncore.AppendDocumentStart(msg)
	msg = bsoncore.AppendInt32Element(msg, "saslStart", 1)
	msg = bsoncore.AppendStringElement(msg, "mechanism", mech)
	msg = bsoncore.AppendBinaryElement(msg, "payload", 0, []byte(step))
	msg = bsoncore.AppendInt32Element(msg, "autoAuthorize", 1)
	msg = bsoncore.AppendDocumentElement(msg, "options", bsoncore.NewDocumentBuilder().AppendBoolean("skipEmptyExchange", true).Build())
	msg = bsoncore.AppendStringElement(msg, "$db", c.opts.AuthSource)
	msg, _ = bsoncore.AppendDocumentEnd(msg, idx)
	for {
		reply, err := c.exchange(msg)
		if err == nil {
			err = checkReply(reply)
		}
		if err != nil {
			return err
		}
		var convID bsoncore.Value
		var payload []byte
		done := false
		Each(reply, func(e bsoncore.Element) bool {
			switch string(e.KeyBytes()) {
			case "conversationId":
				convID = e.Value()
			case "payload":
				_, payload, _ = e.Value().BinaryOK()
			case "done":
				done = truthy(e.Value())
			}
			return true
		})
		if done && conv.Done() {
			return valid(conv)
		}
		step, err := conv.Step(string(payload))
		if err != nil {
			return err
		}
		if done && conv.Done() {
			return valid(conv)
		}
		msg = c.startHandshake()
		idx, msg = bsoncore.AppendDocumentStart(msg)
		msg = bsoncore.AppendInt32Element(msg, "saslContinue", 1)
		msg = bsoncore.AppendValueElement(msg, "conversationId", convID)
		msg = bsoncore.AppendBinaryElement(msg, "payload", 0, []byte(step))
		msg = bsoncore.AppendStringElement(msg, "$db", c.opts.AuthSource)
		msg, _ = bsoncore.AppendDocumentEnd(msg, idx)
	}
}

// valid reports a finished conversation whose server signature did not
// verify as an error.
func valid(conv *scram.ClientConversation) error {
	if !conv.Valid() {
		return errors.New("the server's SCRAM signature does not verify")
	}
	return nil
}
