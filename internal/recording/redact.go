package recording

import (
	"encoding/binary"
	"fmt"
	"strings"

	"go.mongodb.org/mongo-driver/v2/bson"
)

// authCommands are the commands of an authentication conversation
// (lower case): their requests and replies are recorded without
// payloads.
var authCommands = map[string]bool{
	"saslstart": true, "saslcontinue": true, "authenticate": true, "getnonce": true,
	"copydbsaslstart": true, "copydbgetnonce": true,
}

// helloCommands may carry speculativeAuthenticate.
var helloCommands = map[string]bool{"hello": true, "ismaster": true}

// userCommands carry a password in pwd.
var userCommands = map[string]bool{"createuser": true, "updateuser": true}

// What an authentication request keeps; payload is kept empty.
var keepAuthRequest = map[string]bool{
	"mechanism": true, "conversationId": true, "autoAuthorize": true, "options": true,
	"db": true, "$db": true, "lsid": true, "$clusterTime": true, "$readPreference": true,
	"apiVersion": true, "apiStrict": true, "apiDeprecationErrors": true, "payload": true,
}

// What an authentication reply keeps; payload is kept empty.
var keepAuthReply = map[string]bool{
	"conversationId": true, "done": true, "ok": true, "errmsg": true, "code": true, "codeName": true,
	"$clusterTime": true, "operationTime": true, "payload": true,
}

// What speculativeAuthenticate keeps, in a hello and in its reply.
var keepSpeculative = map[string]bool{"mechanism": true, "db": true, "conversationId": true, "done": true, "payload": true}

// maxPending bounds the authentication requests a connection remembers
// while their replies are awaited.
const maxPending = 64

// Redactor takes the credentials out of one connection's messages
// before they are recorded: the payloads of saslStart, saslContinue,
// authenticate (and the legacy getnonce and copydb conversations) and of
// their replies, a hello's speculativeAuthenticate and its reply's, and
// createUser's and updateUser's pwd. What an authentication message
// keeps is a list of harmless fields (mechanism, conversationId, done,
// ok, the database…): anything else is dropped, and a payload is kept as
// empty binary data, so the recording still shows the conversation took
// place. Use one Redactor per connection, for both directions.
type Redactor struct {
	pending map[int32]bool // request ids of authentication requests awaiting a reply
	// all: more requests awaited their replies than pending holds, so
	// every reply is decoded and checked from then on.
	all bool
}

// Redact returns the message to record for msg: msg itself when it holds
// no credential, else a copy, uncompressed, with the same header ids,
// without them (an OP_MSG loses its checksum, which no longer matches).
// A message that cannot be decoded is returned as an error: the caller
// records it, if at all, knowing nothing was checked.
func (r *Redactor) Redact(msg []byte) ([]byte, bool, error) {
	if len(msg) < headerSize {
		return nil, false, fmt.Errorf("message of %d bytes is shorter than a wire header", len(msg))
	}
	op := OpCode(int32(binary.LittleEndian.Uint32(msg[12:])))
	responseTo := int32(binary.LittleEndian.Uint32(msg[8:]))
	switch op {
	case OpMsg, OpQuery, OpReply, OpCompressed:
	default:
		return msg, false, nil // the legacy CRUD opcodes carry no credential
	}
	if responseTo != 0 && !r.all && !r.pending[responseTo] {
		// A reply carries a credential only in answer to a request that
		// did (an authentication command, a speculative hello), which
		// this Redactor saw and remembers: any other reply is recorded
		// as it came, undecoded.
		return msg, false, nil
	}
	m, err := Parse(msg)
	if err != nil {
		return nil, false, err
	}
	var out []byte
	var changed bool
	if responseTo != 0 {
		out, changed, err = r.reply(m, responseTo)
	} else {
		out, changed, err = r.request(m)
	}
	if err != nil || !changed {
		return msg, false, err
	}
	return out, true, nil
}

func (r *Redactor) request(m Message) ([]byte, bool, error) {
	body, wrapped := m.Body, false
	if m.Op == OpQuery {
		if !strings.HasSuffix(m.Collection, ".$cmd") {
			return nil, false, nil
		}
		body = m.commandDoc()
		wrapped = firstKey(m.Body) != firstKey(body)
	}
	if m.Op != OpMsg && m.Op != OpQuery {
		return nil, false, nil
	}
	name := strings.ToLower(firstKey(body))
	var nb bson.Raw
	var err error
	switch {
	case authCommands[name]:
		r.remember(m.Header.RequestID)
		nb, err = keepOnly(body, 0, keepAuthRequest)
	case helloCommands[name]:
		if _, e := body.LookupErr("speculativeAuthenticate"); e != nil {
			return unchanged(m)
		}
		r.remember(m.Header.RequestID)
		nb, err = replaceSpeculative(body)
	case userCommands[name]:
		if _, e := body.LookupErr("pwd"); e != nil {
			return unchanged(m)
		}
		nb, err = dropKey(body, "pwd")
	default:
		return unchanged(m)
	}
	if err != nil {
		return nil, false, err
	}
	if wrapped {
		// Rewrap: the command stays under $query with the read preference.
		nb, err = replaceKey(m.Body, firstKey(m.Body), bson.RawValue{Type: bson.TypeEmbeddedDocument, Value: nb})
		if err != nil {
			return nil, false, err
		}
	}
	return encode(m, nb), true, nil
}

func (r *Redactor) reply(m Message, responseTo int32) ([]byte, bool, error) {
	if m.Op != OpMsg && m.Op != OpReply {
		return unchanged(m)
	}
	if len(m.Body) == 0 {
		return unchanged(m)
	}
	var nb bson.Raw
	var err error
	if !r.pending[responseTo] && !hasAny(m.Body, "payload", "conversationId", "speculativeAuthenticate") {
		return unchanged(m) // r.all: a reply to anything else
	}
	switch {
	case isAuthReply(m.Body):
		delete(r.pending, responseTo)
		nb, err = keepOnly(m.Body, -1, keepAuthReply)
	default:
		delete(r.pending, responseTo)
		if _, e := m.Body.LookupErr("speculativeAuthenticate"); e != nil {
			return unchanged(m)
		}
		nb, err = replaceSpeculative(m.Body)
	}
	if err != nil {
		return nil, false, err
	}
	return encode(m, nb), true, nil
}

// isAuthReply: a reply to an authentication request (not to a hello,
// whose reply keeps everything but its speculativeAuthenticate).
func isAuthReply(body bson.Raw) bool {
	_, e1 := body.LookupErr("isWritablePrimary")
	_, e2 := body.LookupErr("ismaster")
	return e1 != nil && e2 != nil
}

func (r *Redactor) remember(id int32) {
	if r.pending == nil {
		r.pending = map[int32]bool{}
	}
	if len(r.pending) >= maxPending {
		r.all = true // check every reply from now on
		return
	}
	r.pending[id] = true
}

// hasAny says whether d holds one of the keys at its top level.
func hasAny(d bson.Raw, keys ...string) bool {
	for _, k := range keys {
		if _, err := d.LookupErr(k); err == nil {
			return true
		}
	}
	return false
}

// unchanged: nothing to redact; the message is recorded as it came.
func unchanged(Message) ([]byte, bool, error) { return nil, false, nil }

// keepOnly rebuilds d with the fields keep names (and the first, the
// command's name, when first is 0), a payload as empty binary data.
func keepOnly(d bson.Raw, first int, keep map[string]bool) (bson.Raw, error) {
	elems, err := d.Elements()
	if err != nil {
		return nil, err
	}
	out := bson.D{}
	for i, e := range elems {
		k := e.Key()
		switch {
		case i == first:
			out = append(out, bson.E{Key: k, Value: e.Value()})
		case k == "payload":
			out = append(out, bson.E{Key: k, Value: bson.Binary{Subtype: 0, Data: []byte{}}})
		case keep[k]:
			out = append(out, bson.E{Key: k, Value: e.Value()})
		}
	}
	return bson.Marshal(out)
}

// replaceSpeculative keeps of speculativeAuthenticate its harmless
// fields.
func replaceSpeculative(d bson.Raw) (bson.Raw, error) {
	v := d.Lookup("speculativeAuthenticate")
	sub, ok := v.DocumentOK()
	var nv bson.Raw
	var err error
	if ok {
		nv, err = keepOnly(sub, -1, keepSpeculative)
	} else {
		nv, err = bson.Marshal(bson.D{})
	}
	if err != nil {
		return nil, err
	}
	return replaceKey(d, "speculativeAuthenticate", bson.RawValue{Type: bson.TypeEmbeddedDocument, Value: nv})
}

func replaceKey(d bson.Raw, key string, v bson.RawValue) (bson.Raw, error) {
	elems, err := d.Elements()
	if err != nil {
		return nil, err
	}
	out := make(bson.D, 0, len(elems))
	for _, e := range elems {
		if e.Key() == key {
			out = append(out, bson.E{Key: key, Value: v})
			continue
		}
		out = append(out, bson.E{Key: e.Key(), Value: e.Value()})
	}
	return bson.Marshal(out)
}

func dropKey(d bson.Raw, key string) (bson.Raw, error) {
	elems, err := d.Elements()
	if err != nil {
		return nil, err
	}
	out := make(bson.D, 0, len(elems))
	for _, e := range elems {
		if e.Key() != key {
			out = append(out, bson.E{Key: e.Key(), Value: e.Value()})
		}
	}
	return bson.Marshal(out)
}

// encode writes m, uncompressed, with body in place of its body (an
// OP_REPLY's first document).
func encode(m Message, body bson.Raw) []byte {
	b := make([]byte, headerSize, 256+len(body))
	binary.LittleEndian.PutUint32(b[4:], uint32(m.Header.RequestID))
	binary.LittleEndian.PutUint32(b[8:], uint32(m.Header.ResponseTo))
	binary.LittleEndian.PutUint32(b[12:], uint32(m.Op))
	switch m.Op {
	case OpMsg:
		b = binary.LittleEndian.AppendUint32(b, m.Flags&^FlagChecksumPresent)
		b = append(b, 0)
		b = append(b, body...)
		for _, s := range m.Sequences {
			n := 4 + len(s.Identifier) + 1
			for _, d := range s.Documents {
				n += len(d)
			}
			b = append(b, 1)
			b = binary.LittleEndian.AppendUint32(b, uint32(n))
			b = append(b, s.Identifier...)
			b = append(b, 0)
			for _, d := range s.Documents {
				b = append(b, d...)
			}
		}
	case OpQuery:
		b = binary.LittleEndian.AppendUint32(b, m.Flags)
		b = append(b, m.Collection...)
		b = append(b, 0)
		b = binary.LittleEndian.AppendUint32(b, uint32(m.NumberToSkip))
		b = binary.LittleEndian.AppendUint32(b, uint32(m.NumberToReturn))
		b = append(b, body...)
		b = append(b, m.Projection...)
	case OpReply:
		b = binary.LittleEndian.AppendUint32(b, m.Flags)
		b = binary.LittleEndian.AppendUint64(b, uint64(m.CursorID))
		b = binary.LittleEndian.AppendUint32(b, uint32(m.StartingFrom))
		b = binary.LittleEndian.AppendUint32(b, uint32(len(m.Documents)))
		b = append(b, body...)
		for _, d := range m.Documents[1:] {
			b = append(b, d...)
		}
	}
	binary.LittleEndian.PutUint32(b, uint32(len(b)))
	return b
}
