package recording

import (
	"bytes"
	"encoding/binary"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
)

func TestRedactTakesEveryCredentialOut(t *testing.T) {
	secret := []byte("n,,n=alice,r=Sup3rSecretNonce")
	proof := []byte("c=biws,r=Sup3rSecretNonceSERVER,p=PR00FPR00FPR00F=")
	plain := []byte("\x00alice\x00Hunter2Password")
	bin := func(b []byte) bson.Binary { return bson.Binary{Data: b} }
	spec := bson.D{{Key: "saslStart", Value: 1}, {Key: "mechanism", Value: "SCRAM-SHA-256"}, {Key: "payload", Value: bin(secret)}, {Key: "db", Value: "admin"}}
	cases := []struct {
		name    string
		msgs    [][]byte // sent in order on one connection
		secrets [][]byte
		keep    []string // strings the redacted messages still hold
	}{
		{"saslStart PLAIN", [][]byte{opMsg(t, 1, 0, bson.D{{Key: "saslStart", Value: 1}, {Key: "mechanism", Value: "PLAIN"}, {Key: "payload", Value: bin(plain)}, {Key: "autoAuthorize", Value: 1}, {Key: "$db", Value: "$external"}})},
			[][]byte{[]byte("Hunter2Password")}, []string{"saslStart", "PLAIN", "payload", "$external"}},
		{"SCRAM conversation and replies", [][]byte{
			opMsg(t, 1, 0, bson.D{{Key: "saslStart", Value: 1}, {Key: "mechanism", Value: "SCRAM-SHA-256"}, {Key: "payload", Value: bin(secret)}, {Key: "$db", Value: "admin"}}),
			opMsg(t, 50, 1, bson.D{{Key: "conversationId", Value: 1}, {Key: "done", Value: false}, {Key: "payload", Value: bin([]byte("r=Sup3rSecretNonceSERVER,s=SALTSALTSALT=,i=15000"))}, {Key: "ok", Value: 1.0}}),
			opMsg(t, 2, 0, bson.D{{Key: "saslContinue", Value: 1}, {Key: "conversationId", Value: 1}, {Key: "payload", Value: bin(proof)}, {Key: "$db", Value: "admin"}}),
			opMsg(t, 51, 2, bson.D{{Key: "conversationId", Value: 1}, {Key: "done", Value: true}, {Key: "payload", Value: bin([]byte("v=SERVERSIGNATURE="))}, {Key: "ok", Value: 1.0}}),
		}, [][]byte{[]byte("Sup3rSecretNonce"), []byte("PR00F"), []byte("SALTSALT"), []byte("SERVERSIGNATURE")}, []string{"saslStart", "saslContinue", "conversationId", "SCRAM-SHA-256"}},
		{"speculative hello over OP_QUERY and its OP_REPLY", [][]byte{
			opQuery(t, 3, "admin.$cmd", bson.D{{Key: "isMaster", Value: 1}, {Key: "speculativeAuthenticate", Value: spec}, {Key: "client", Value: bson.D{{Key: "application", Value: bson.D{{Key: "name", Value: "shop"}}}}}}),
			opReply(t, 60, 3, bson.D{{Key: "ismaster", Value: true}, {Key: "speculativeAuthenticate", Value: bson.D{{Key: "conversationId", Value: 1}, {Key: "done", Value: false}, {Key: "payload", Value: bin([]byte("r=Sup3rSecretNonceSRV,s=SALTSALTSALT="))}}}, {Key: "ok", Value: 1.0}}),
		}, [][]byte{[]byte("Sup3rSecretNonce"), []byte("SALTSALT")}, []string{"isMaster", "speculativeAuthenticate", "SCRAM-SHA-256", "shop", "ismaster"}},
		{"speculative hello in $query over OP_MSG", [][]byte{
			opQuery(t, 4, "admin.$cmd", bson.D{{Key: "$query", Value: bson.D{{Key: "hello", Value: 1}, {Key: "speculativeAuthenticate", Value: spec}}}, {Key: "$readPreference", Value: bson.D{{Key: "mode", Value: "primaryPreferred"}}}}),
			opMsg(t, 5, 0, bson.D{{Key: "hello", Value: 1}, {Key: "speculativeAuthenticate", Value: spec}, {Key: "$db", Value: "admin"}}),
		}, [][]byte{[]byte("Sup3rSecretNonce")}, []string{"$query", "hello", "primaryPreferred", "speculativeAuthenticate"}},
		{"createUser pwd", [][]byte{opMsg(t, 6, 0, bson.D{{Key: "createUser", Value: "bob"}, {Key: "pwd", Value: "Hunter2Password"}, {Key: "roles", Value: bson.A{"read"}}, {Key: "$db", Value: "admin"}})},
			[][]byte{[]byte("Hunter2Password")}, []string{"createUser", "bob", "roles"}},
		{"authenticate", [][]byte{opMsg(t, 7, 0, bson.D{{Key: "authenticate", Value: 1}, {Key: "mechanism", Value: "MONGODB-CR"}, {Key: "user", Value: "bob"}, {Key: "nonce", Value: "n0nceN0NCE"}, {Key: "key", Value: "K3YK3YK3Y"}, {Key: "$db", Value: "admin"}})},
			[][]byte{[]byte("n0nceN0NCE"), []byte("K3YK3YK3Y")}, []string{"authenticate", "MONGODB-CR"}},
		{"compressed saslStart", [][]byte{compressed(t, opMsg(t, 8, 0, bson.D{{Key: "saslStart", Value: 1}, {Key: "mechanism", Value: "PLAIN"}, {Key: "payload", Value: bin(plain)}, {Key: "$db", Value: "$external"}}), CompressorZlib)},
			[][]byte{[]byte("Hunter2Password")}, []string{"saslStart"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var r Redactor
			var recorded []byte
			for i, msg := range c.msgs {
				out, changed, err := r.Redact(msg)
				if err != nil {
					t.Fatalf("message %d: %v", i, err)
				}
				if !changed {
					t.Errorf("message %d was not redacted", i)
				}
				m, err := Parse(out)
				if err != nil {
					t.Fatalf("message %d redacted does not decode: %v", i, err)
				}
				in, _ := Parse(msg)
				if m.Header.RequestID != in.Header.RequestID || m.Header.ResponseTo != in.Header.ResponseTo || m.Op != in.Op || m.Command() != in.Command() {
					t.Errorf("message %d: header or command changed: %+v vs %+v", i, m.Header, in.Header)
				}
				recorded = append(recorded, out...)
			}
			for _, s := range c.secrets {
				if bytes.Contains(recorded, s) {
					t.Errorf("the recorded bytes hold %q", s)
				}
			}
			for _, k := range c.keep {
				if !bytes.Contains(recorded, []byte(k)) {
					t.Errorf("the recorded bytes lost %q", k)
				}
			}
		})
	}
}

func TestRedactLeavesOtherTrafficAlone(t *testing.T) {
	_, msgs := traffic(t)
	var r Redactor
	for i, msg := range msgs {
		out, changed, err := r.Redact(msg)
		if err != nil || changed || !bytes.Equal(out, msg) {
			t.Errorf("message %d: changed %v err %v", i, changed, err)
		}
	}
	// A hello without speculativeAuthenticate is kept as it is.
	h := opMsg(t, 9, 0, bson.D{{Key: "hello", Value: 1}, {Key: "$db", Value: "admin"}})
	if out, changed, _ := r.Redact(h); changed || !bytes.Equal(out, h) {
		t.Error("a plain hello was changed")
	}
}

func opReply(t testing.TB, id, responseTo int32, doc any) []byte {
	t.Helper()
	d, err := bson.Marshal(doc)
	if err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 16)
	binary.LittleEndian.PutUint32(b[4:], uint32(id))
	binary.LittleEndian.PutUint32(b[8:], uint32(responseTo))
	binary.LittleEndian.PutUint32(b[12:], uint32(OpReply))
	b = binary.LittleEndian.AppendUint32(b, 8) // AwaitCapable
	b = binary.LittleEndian.AppendUint64(b, 0)
	b = binary.LittleEndian.AppendUint32(b, 0)
	b = binary.LittleEndian.AppendUint32(b, 1)
	b = append(b, d...)
	binary.LittleEndian.PutUint32(b, uint32(len(b)))
	return b
}

// TestRedactWhenManyRequestsAwaitReplies: a client that sends more
// authentication requests than the Redactor remembers before reading a
// reply still has every reply redacted.
func TestRedactWhenManyRequestsAwaitReplies(t *testing.T) {
	var r Redactor
	for i := range maxPending + 10 {
		req := opMsg(t, int32(i+1), 0, bson.D{{Key: "saslStart", Value: 1}, {Key: "mechanism", Value: "PLAIN"}, {Key: "payload", Value: bson.Binary{Data: []byte("\x00u\x00Hunter2")}}, {Key: "$db", Value: "$external"}})
		if out, _, err := r.Redact(req); err != nil || bytes.Contains(out, []byte("Hunter2")) {
			t.Fatalf("request %d: %v", i, err)
		}
	}
	for i := range maxPending + 10 {
		rep := opMsg(t, int32(1000+i), int32(i+1), bson.D{{Key: "conversationId", Value: 1}, {Key: "payload", Value: bson.Binary{Data: []byte("v=SERVERSIGNATURE")}}, {Key: "ok", Value: 1.0}})
		out, _, err := r.Redact(rep)
		if err != nil || bytes.Contains(out, []byte("SERVERSIGNATURE")) {
			t.Fatalf("reply %d kept its payload (%v)", i, err)
		}
	}
	// Other replies pass as they came.
	_, msgs := traffic(t)
	if out, changed, _ := r.Redact(msgs[1]); changed || !bytes.Equal(out, msgs[1]) {
		t.Error("a find's reply was changed")
	}
}
