package replay

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strings"
	"sync"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/recording"
	"github.com/mongobench/mongobench/internal/result"
)

// NSRule rewrites namespaces that start with From to start with To
// instead: "prod.=staging." maps every collection of database prod to
// database staging, "prod.orders=staging.orders2" one collection.
type NSRule struct{ From, To string }

// ParseNSRule reads FROM=TO.
func ParseNSRule(s string) (NSRule, error) {
	from, to, ok := strings.Cut(s, "=")
	want := "want FROM=TO, a namespace prefix and its replacement, such as prod.=staging. (a database) or prod.orders=staging.orders (a collection)"
	if !ok || from == "" || to == "" {
		return NSRule{}, fmt.Errorf("--map-ns %q: %s", s, want)
	}
	if strings.HasSuffix(from, ".") != strings.HasSuffix(to, ".") {
		return NSRule{}, fmt.Errorf("--map-ns %q: a database (ending in .) maps to a database, a collection to a collection; %s", s, want)
	}
	if strings.HasPrefix(to, ".") || strings.Contains(to, "$") || strings.HasPrefix(from, ".") {
		return NSRule{}, fmt.Errorf("--map-ns %q: %q is not a namespace prefix; %s", s, to, want)
	}
	return NSRule{From: from, To: to}, nil
}

// MapNamespace applies the first rule whose From the namespace db.coll
// (db. for a command on no collection) starts with.
func MapNamespace(rules []NSRule, db, coll string) (string, string) {
	ns := db + "." + coll
	for _, r := range rules {
		if strings.HasPrefix(ns, r.From) && (strings.HasSuffix(r.From, ".") || len(ns) == len(r.From)) {
			ns = r.To + ns[len(r.From):]
			d, c, _ := strings.Cut(ns, ".")
			return d, c
		}
	}
	return db, coll
}

// Mapped counts what a replay changed in the requests it sent.
type Mapped struct {
	// Cursors: cursor ids (getMore, killCursors) replaced by the
	// candidate's; CursorsGone those whose cursor the candidate had
	// already closed (the request is not sent).
	Cursors     int64
	CursorsGone int64
	// Sessions: recorded session ids, each given one candidate session;
	// TxnNumbers: transaction numbers renumbered in those sessions.
	Sessions   int64
	TxnNumbers int64
	// ClusterTimes: $clusterTime fields dropped; AfterClusterTimes:
	// readConcern.afterClusterTime dropped (the candidate's clock is its
	// own).
	ClusterTimes      int64
	AfterClusterTimes int64
	// Namespaces: requests whose namespace --map-ns changed.
	Namespaces int64
}

// Mapper turns recorded requests into the candidate's: it keeps the
// recorded cursor ids' candidate ids and the recorded sessions' candidate
// sessions. Safe for concurrent use.
type Mapper struct {
	mu       sync.Mutex
	cursors  map[int64]int64
	sessions map[string]*session
	newID    func() [16]byte
	counts   Mapped
}

type session struct {
	lsid []byte
	txns map[int64]int64
	next int64
}

// NewMapper makes a Mapper; newID makes a candidate session's id (a
// random UUID).
func NewMapper(newID func() [16]byte) *Mapper {
	return &Mapper{cursors: map[int64]int64{}, sessions: map[string]*session{}, newID: newID}
}

// Counts is what the mapper changed so far.
func (m *Mapper) Counts() Mapped {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.counts
}

// ErrCursorGone is a getMore or killCursors whose cursor the candidate
// no longer has: its earlier reply closed it (or never opened it).
type ErrCursorGone struct{ Recorded int64 }

func (e *ErrCursorGone) Error() string {
	return fmt.Sprintf("cursor %d of the recording is not open on the candidate (its reply there ended the cursor): not sent", e.Recorded)
}

// Command appends to dst the command document the candidate receives for
// r, changed as the package documentation says. The request's document
// sequences are sent as recorded (Msg.Sequences).
func (m *Mapper) Command(dst []byte, r *Request) ([]byte, error) {
	body := r.Msg.Body
	elems, err := body.Elements()
	if err != nil {
		return nil, err
	}
	cmd := r.Msg.Command()
	m.mu.Lock()
	defer m.mu.Unlock()
	idx, dst := startDoc(dst)
	var sess *session
	for i, e := range elems {
		k, v := e.Key(), e.Value()
		switch {
		case i == 0 && cmd == "getMore":
			id, _ := v.AsInt64OK()
			cid, ok := m.cursors[id]
			if !ok || cid == 0 {
				m.counts.CursorsGone++
				return nil, &ErrCursorGone{Recorded: id}
			}
			m.counts.Cursors++
			dst = appendInt64(dst, k, cid)
		case i == 0:
			if _, isStr := v.StringValueOK(); isStr && r.Coll != "" {
				dst = appendString(dst, k, r.Coll)
			} else {
				dst = appendValue(dst, k, v)
			}
		case k == "collection" && cmd == "getMore":
			dst = appendString(dst, k, r.Coll)
		case k == "cursors" && cmd == "killCursors":
			arr, _ := v.ArrayOK()
			vals, _ := arr.Values()
			dst = append(dst, byte(bson.TypeArray))
			dst = append(append(dst, k...), 0)
			ai, out := startDoc(dst)
			n := 0
			for _, x := range vals {
				id, _ := x.AsInt64OK()
				cid, ok := m.cursors[id]
				if !ok || cid == 0 {
					m.counts.CursorsGone++
					continue
				}
				m.counts.Cursors++
				out = appendInt64(out, fmt.Sprint(n), cid)
				n++
			}
			if n == 0 {
				return nil, &ErrCursorGone{Recorded: firstInt(vals)}
			}
			dst = endDoc(out, ai)
		case k == "$db":
			dst = appendString(dst, k, r.DB)
		case k == "$clusterTime":
			m.counts.ClusterTimes++
		case k == "lsid":
			sess = m.session(v)
			dst = appendDoc(dst, k, sess.lsid)
		case k == "txnNumber":
			n, _ := v.AsInt64OK()
			if sess == nil {
				sess = m.session(body.Lookup("lsid"))
			}
			dst = appendInt64(dst, k, m.txn(sess, n))
		case k == "readConcern":
			dst = m.readConcern(dst, v)
		default:
			dst = appendValue(dst, k, v)
		}
	}
	if r.DB != r.Msg.Database() {
		m.counts.Namespaces++
	}
	return endDoc(dst, idx), nil
}

func firstInt(vals []bson.RawValue) int64 {
	if len(vals) == 0 {
		return 0
	}
	id, _ := vals[0].AsInt64OK()
	return id
}

// session is the candidate session of a recorded lsid (its id field's
// bytes are the key).
func (m *Mapper) session(v bson.RawValue) *session {
	key := string(v.Value)
	if d, ok := v.DocumentOK(); ok {
		key = string(d.Lookup("id").Value)
	}
	if s, ok := m.sessions[key]; ok {
		return s
	}
	id := m.newID()
	i, doc := startDoc(nil)
	doc = append(doc, byte(bson.TypeBinary))
	doc = append(doc, "id\x00"...)
	doc = binary.LittleEndian.AppendUint32(doc, 16)
	doc = append(doc, 4) // UUID
	doc = append(doc, id[:]...)
	doc = endDoc(doc, i)
	s := &session{lsid: doc, txns: map[int64]int64{}}
	m.sessions[key] = s
	m.counts.Sessions++
	return s
}

// txn is a recorded transaction number's number in the candidate
// session: numbered from 1 in the order they first appear, so each
// session's numbers grow as the recording's did.
func (m *Mapper) txn(s *session, n int64) int64 {
	if c, ok := s.txns[n]; ok {
		return c
	}
	s.next++
	s.txns[n] = s.next
	m.counts.TxnNumbers++
	return s.next
}

// readConcern copies a read concern without afterClusterTime.
func (m *Mapper) readConcern(dst []byte, v bson.RawValue) []byte {
	d, ok := v.DocumentOK()
	if !ok {
		return appendValue(dst, "readConcern", v)
	}
	elems, _ := d.Elements()
	dst = append(dst, byte(bson.TypeEmbeddedDocument))
	dst = append(dst, "readConcern\x00"...)
	idx, dst := startDoc(dst)
	for _, e := range elems {
		if e.Key() == "afterClusterTime" {
			m.counts.AfterClusterTimes++
			continue
		}
		ev := e.Value()
		dst = appendValue(dst, e.Key(), ev)
	}
	return endDoc(dst, idx)
}

// Replied notes the candidate's reply to r: the candidate's cursor id for
// the recorded one (0 when the candidate closed it), so later getMores
// and killCursors find it. A killCursors forgets the cursors it killed.
func (m *Mapper) Replied(r *Request, reply []byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if r.Msg.Command() == "killCursors" {
		if arr, ok := r.Msg.Body.Lookup("cursors").ArrayOK(); ok {
			vals, _ := arr.Values()
			for _, x := range vals {
				id, _ := x.AsInt64OK()
				delete(m.cursors, id)
			}
		}
		return
	}
	if r.RecordedCursor == 0 {
		return
	}
	_, id := CursorOf(bson.Raw(reply))
	m.cursors[r.RecordedCursor] = id
}

// Sequences are the request's document sequences, as recorded.
func Sequences(r *Request) []recording.Sequence { return r.Msg.Sequences }

// The BSON a request is rebuilt with, appended in place.

func startDoc(dst []byte) (int, []byte) { return len(dst), append(dst, 0, 0, 0, 0) }

func endDoc(dst []byte, at int) []byte {
	dst = append(dst, 0)
	binary.LittleEndian.PutUint32(dst[at:], uint32(len(dst)-at))
	return dst
}

func key(dst []byte, t bson.Type, k string) []byte {
	dst = append(dst, byte(t))
	return append(append(dst, k...), 0)
}

func appendInt64(dst []byte, k string, v int64) []byte {
	return binary.LittleEndian.AppendUint64(key(dst, bson.TypeInt64, k), uint64(v))
}

func appendString(dst []byte, k, v string) []byte {
	dst = binary.LittleEndian.AppendUint32(key(dst, bson.TypeString, k), uint32(len(v)+1))
	return append(append(dst, v...), 0)
}

func appendDoc(dst []byte, k string, d []byte) []byte {
	return append(key(dst, bson.TypeEmbeddedDocument, k), d...)
}

func appendValue(dst []byte, k string, v bson.RawValue) []byte {
	return append(key(dst, v.Type, k), v.Value...)
}

// explainable are the commands explain takes.
var explainable = map[string]bool{"find": true, "aggregate": true, "count": true, "distinct": true,
	"update": true, "delete": true, "findAndModify": true, "findandmodify": true}

// ExplainCommand is the command that asks the candidate for r's winning
// plan without running it: {explain: r's command (its namespace mapped,
// its document sequences as arrays, without session, transaction and
// cluster time), verbosity: "queryPlanner", $db}. false when explain
// does not take r's command.
func ExplainCommand(r *Request) ([]byte, bool) {
	cmd := r.Msg.Command()
	if !explainable[cmd] {
		return nil, false
	}
	elems, err := r.Msg.Body.Elements()
	if err != nil {
		return nil, false
	}
	idx, dst := startDoc(nil)
	dst = append(dst, byte(bson.TypeEmbeddedDocument))
	dst = append(dst, "explain\x00"...)
	inner, dst := startDoc(dst)
	for i, e := range elems {
		k, v := e.Key(), e.Value()
		switch {
		case i == 0:
			if _, ok := v.StringValueOK(); ok && r.Coll != "" {
				dst = appendString(dst, k, r.Coll)
			} else {
				dst = appendValue(dst, k, v)
			}
		case k == "$db", k == "lsid", k == "txnNumber", k == "$clusterTime", k == "startTransaction",
			k == "autocommit", k == "readConcern", k == "writeConcern", k == "$readPreference":
		default:
			dst = appendValue(dst, k, v)
		}
	}
	for _, s := range r.Msg.Sequences {
		dst = append(dst, byte(bson.TypeArray))
		dst = append(append(dst, s.Identifier...), 0)
		ai, out := startDoc(dst)
		for j, d := range s.Documents {
			out = append(key(out, bson.TypeEmbeddedDocument, fmt.Sprint(j)), d...)
		}
		dst = endDoc(out, ai)
	}
	dst = endDoc(dst, inner)
	dst = appendString(dst, "verbosity", "queryPlanner")
	dst = appendString(dst, "$db", r.DB)
	return endDoc(dst, idx), true
}

// maxPlan bounds a stored winning plan's text.
const maxPlan = 16 << 10

// WinningPlan reads the winning plan from an explain's reply (a find's
// queryPlanner, an aggregation's first stage's $cursor, or a sharded
// cluster's winningPlan as it is) as relaxed Extended JSON, at most
// 16 KB; "" when the reply holds none.
func WinningPlan(reply bson.Raw) string {
	qp, ok := reply.Lookup("queryPlanner").DocumentOK()
	if !ok {
		if stages, isArr := reply.Lookup("stages").ArrayOK(); isArr {
			if first, err := stages.IndexErr(0); err == nil {
				if d, isDoc := first.DocumentOK(); isDoc {
					qp, ok = d.Lookup("$cursor", "queryPlanner").DocumentOK()
				}
			}
		}
	}
	if !ok {
		return ""
	}
	wp, ok := qp.Lookup("winningPlan").DocumentOK()
	if !ok {
		return ""
	}
	s := wp.String()
	if len(s) > maxPlan {
		s = s[:maxPlan] + "…"
	}
	return s
}

// Heaviest are the indexes of the n shapes of a run that took the most
// time on the candidate (requests × mean latency), heaviest first.
func Heaviest(p *Plan, ops []result.OpStats, n int) []int {
	byName := map[string]result.OpStats{}
	for _, o := range ops {
		byName[o.Name] = o
	}
	type w struct {
		i int
		t float64
	}
	var ws []w
	for i, s := range p.Shapes {
		o := byName[s.Op]
		if o.Latency.Mean == nil || o.Count == 0 {
			continue
		}
		ws = append(ws, w{i, float64(o.Count) * *o.Latency.Mean})
	}
	sort.SliceStable(ws, func(a, b int) bool { return ws[a].t > ws[b].t })
	var out []int
	for _, x := range ws {
		if len(out) == n {
			break
		}
		out = append(out, x.i)
	}
	return out
}

// First is the first request of shape i (nil: none).
func (p *Plan) First(i int) *Request {
	for j := range p.Requests {
		if p.Requests[j].Shape == i {
			return &p.Requests[j]
		}
	}
	return nil
}
