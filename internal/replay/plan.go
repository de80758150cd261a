// Package replay plans the replay of a traffic recording against a
// candidate: which recorded requests are sent, on which of the
// recording's connections, at which offset (divided by the speed), and
// of which query shape; what each one's recorded reply said (its
// latency, request to reply, the documents it returned, its cursor);
// and how each request is changed before it is sent (Mapper: cursor ids,
// sessions, transaction numbers, cluster times, namespaces). It also
// compares, shape by shape, the replay against the recording (Compare,
// View). The sending is internal/workload/replay's; this package is
// pure: no driver, no I/O.
package replay

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/hist"
	"github.com/mongobench/mongobench/internal/queryshape"
	"github.com/mongobench/mongobench/internal/recording"
	"github.com/mongobench/mongobench/internal/texttable"
)

// Options say how a recording is replayed.
type Options struct {
	// Speed divides every recorded offset (2: twice as fast).
	Speed float64
	// IncludeMonitoring replays hello, isMaster and ping too.
	IncludeMonitoring bool
	// AllowWrites lets the plan hold writes: the candidate takes them.
	AllowWrites bool
	// MapNS rewrites namespaces, the first rule that matches.
	MapNS []NSRule
	// ReservedDatabases are the databases no replayed request may write
	// to, whatever AllowWrites says (the results database, MongoDB's own).
	ReservedDatabases []string
	// MaxRequests bounds the requests a plan holds (0: DefaultMaxRequests).
	MaxRequests int
}

// DefaultMaxRequests bounds the requests a plan holds in memory.
const DefaultMaxRequests = 5_000_000

// Request is one recorded request the replay sends.
type Request struct {
	// Conn is the recorded connection's index (0…Plan.Conns-1), Seq the
	// request's place among that connection's requests.
	Conn int
	Seq  int
	// Offset is when the recording saw it, since the recording started.
	Offset time.Duration
	Shape  int
	Msg    recording.Message
	// DB and Coll are the namespace after MapNS.
	DB, Coll string
	Write    bool
	// Recorded is the recorded request-to-reply time (-1: no reply
	// recorded); RecordedDocs the documents its reply returned (-1: no
	// reply, or a reply with no cursor); RecordedCursor the cursor id it
	// returned (0: none); RecordedFailed whether it said ok: 0.
	Recorded       time.Duration
	RecordedDocs   int64
	RecordedCursor int64
	RecordedFailed bool
	requestID      int32
}

// Shape is a query shape of the plan: its requests and what the
// recording says of them.
type Shape struct {
	// Op is the operation type the run names it by ("S3 find shop.orders").
	Op        string
	Key       string
	Command   string
	Namespace string
	Requests  int64
	// Recorded is the recording's latency histogram (request to reply)
	// of the shape's requests that had a reply.
	Recorded *hist.H
	// RecordedDocs is the documents the recorded replies returned (-1:
	// none of its replies returns documents); RecordedFailed the replies
	// that said ok: 0.
	RecordedDocs   int64
	RecordedFailed int64
	Write          bool
}

// Plan is a recording made ready to replay.
type Plan struct {
	Layout   string
	Requests []Request // in recorded order
	Shapes   []Shape
	Conns    int
	// Span is from the recording's first request sent to its last.
	Span time.Duration
	// Skipped counts the recorded requests not replayed, by reason.
	Skipped map[string]int64
	// Replies is the replies recorded; Unanswered the requests sent
	// without one.
	Replies    int64
	Unanswered int64
}

// Reasons a recorded request is not replayed.
const (
	SkipMonitoring = "monitoring (hello, isMaster, ping): --include-monitoring replays it"
	SkipAuth       = "authentication (the replay authenticates as the candidate's URI says)"
	SkipSessions   = "endSessions (the candidate's sessions are the replay's own)"
	SkipLegacy     = "a legacy opcode (OP_QUERY, OP_INSERT, …): the replay sends OP_MSG"
	SkipMoreToCome = "a request that wants no reply (moreToCome)"
	SkipExhaust    = "an exhaust request (exhaustAllowed)"
)

var monitoring = map[string]bool{"hello": true, "isMaster": true, "ismaster": true, "ping": true}

var auth = map[string]bool{"saslStart": true, "saslContinue": true, "authenticate": true, "getnonce": true, "logout": true, "copydbsaslstart": true}

// writes are the commands that change data or metadata.
var writes = map[string]bool{
	"insert": true, "update": true, "delete": true, "findAndModify": true, "findandmodify": true,
	"bulkWrite": true, "create": true, "drop": true, "dropDatabase": true, "createIndexes": true,
	"dropIndexes": true, "renameCollection": true, "collMod": true, "convertToCapped": true,
	"cloneCollectionAsCapped": true, "createUser": true, "updateUser": true, "dropUser": true,
	"dropAllUsersFromDatabase": true, "createRole": true, "updateRole": true, "dropRole": true,
	"grantRolesToUser": true, "revokeRolesFromUser": true, "applyOps": true, "compact": true,
	"mapReduce": true, "mapreduce": true, "shardCollection": true, "reIndex": true,
}

// IsWrite says whether a request changes data: a write command, or an
// aggregation with $out or $merge.
func IsWrite(m recording.Message) bool {
	cmd := m.Command()
	if writes[cmd] {
		return true
	}
	if cmd == "aggregate" {
		if p, ok := m.Body.Lookup("pipeline").ArrayOK(); ok {
			vals, _ := p.Values()
			for _, v := range vals {
				if d, ok := v.DocumentOK(); ok {
					k := firstKey(d)
					if k == "$out" || k == "$merge" {
						return true
					}
				}
			}
		}
	}
	return false
}

func firstKey(d bson.Raw) string {
	e, err := d.IndexErr(0)
	if err != nil {
		return ""
	}
	return e.Key()
}

// Source is what a plan reads: the next packet, io.EOF after the last
// (a *recording.Set, a *recording.Reader).
type Source interface {
	Next() (recording.Packet, error)
}

// WriteRefusal is a plan of writes made without AllowWrites, or with a
// write into a reserved database: what they are and why they are not
// sent.
type WriteRefusal struct {
	Writes   int64
	Examples []string // the first few, "insert shop.orders (3)"
	Reserved string   // a reserved database written to, when that is the reason
}

func (e *WriteRefusal) Error() string {
	if e.Reserved != "" {
		return fmt.Sprintf("the recording writes to database %s, which a replay never writes to (%s); map it elsewhere with --map-ns %s.=OTHER.", e.Reserved, strings.Join(e.Examples, ", "), e.Reserved)
	}
	return fmt.Sprintf("the recording holds %d writes (%s): replay sends them only with --allow-writes, which lets the candidate take them", e.Writes, strings.Join(e.Examples, ", "))
}

// Load reads a recording into a plan. A recording with writes is
// refused (*WriteRefusal) unless o.AllowWrites; a write to a reserved
// database always is.
func Load(src Source, o Options) (*Plan, error) {
	if !(o.Speed > 0) {
		return nil, fmt.Errorf("speed %g: want a number above 0", o.Speed)
	}
	maxReq := o.MaxRequests
	if maxReq <= 0 {
		maxReq = DefaultMaxRequests
	}
	p := &Plan{Skipped: map[string]int64{}}
	conns := map[uint64]int{}
	type pending struct{ byID map[int32]int }
	waiting := map[uint64]*pending{}
	seqs := []int{}
	shapes := map[string]int{}
	writeCounts := map[string]int64{}
	var writeOrder []string
	var writesN int64
	reserved := ""
	var reservedEx []string
	first, last := time.Duration(-1), time.Duration(0)
	for {
		pk, err := src.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if p.Layout == "" {
			if s, ok := src.(interface{ Layout() recording.Layout }); ok {
				p.Layout = s.Layout().String()
			}
		}
		if pk.Event != recording.EventMessage {
			continue
		}
		switch pk.Direction {
		case recording.DirReply:
			p.Replies++
			w := waiting[pk.Conn]
			if w == nil {
				continue
			}
			to := int32(binary.LittleEndian.Uint32(pk.Message[8:]))
			i, ok := w.byID[to]
			if !ok {
				continue
			}
			delete(w.byID, to)
			m, err := recording.Parse(pk.Message)
			if err != nil {
				return nil, fmt.Errorf("%s: byte %d: reply: %w", pk.File, pk.Pos, err)
			}
			r := &p.Requests[i]
			r.Recorded = pk.Offset - r.Offset
			r.RecordedDocs, r.RecordedCursor, r.RecordedFailed = replyFacts(m)
			continue
		case recording.DirRequest:
		default:
			continue
		}
		m, err := recording.Parse(pk.Message)
		if err != nil {
			return nil, fmt.Errorf("%s: byte %d: request: %w", pk.File, pk.Pos, err)
		}
		cmd := m.Command()
		switch {
		case m.Op != recording.OpMsg && m.Op != recording.OpQuery:
			p.Skipped[SkipLegacy]++
			continue
		case auth[cmd]:
			p.Skipped[SkipAuth]++
			continue
		case monitoring[cmd] && !o.IncludeMonitoring:
			p.Skipped[SkipMonitoring]++
			continue
		case m.Op == recording.OpQuery:
			p.Skipped[SkipLegacy]++
			continue
		case cmd == "endSessions":
			p.Skipped[SkipSessions]++
			continue
		case m.Flags&recording.FlagMoreToCome != 0:
			p.Skipped[SkipMoreToCome]++
			continue
		case m.Flags&recording.FlagExhaustAllowed != 0:
			p.Skipped[SkipExhaust]++
			continue
		}
		if len(p.Requests) >= maxReq {
			return nil, fmt.Errorf("%s: byte %d: the recording holds more than %d requests to replay, the most a replay holds", pk.File, pk.Pos, maxReq)
		}
		ci, ok := conns[pk.Conn]
		if !ok {
			ci = len(conns)
			conns[pk.Conn] = ci
			seqs = append(seqs, 0)
		}
		sh, ok := queryshape.Of(m)
		if !ok {
			sh = queryshape.Shape{Command: cmd, Database: m.Database(), Doc: bson.D{{Key: "command", Value: cmd}}}
		}
		db, coll := MapNamespace(o.MapNS, sh.Database, sh.Collection)
		r := Request{Conn: ci, Seq: seqs[ci], Offset: pk.Offset, Msg: m, DB: db, Coll: coll,
			Write: IsWrite(m), Recorded: -1, RecordedDocs: -1, requestID: m.Header.RequestID}
		seqs[ci]++
		if r.Write {
			writesN++
			ex := cmd + " " + sh.Database
			if sh.Collection != "" {
				ex += "." + sh.Collection
			}
			if writeCounts[ex] == 0 {
				writeOrder = append(writeOrder, ex)
			}
			writeCounts[ex]++
			for _, rd := range o.ReservedDatabases {
				if strings.EqualFold(rd, db) && reserved == "" {
					reserved = db
				}
				if strings.EqualFold(rd, db) && len(reservedEx) < 3 {
					reservedEx = append(reservedEx, ex)
				}
			}
		}
		key := sh.Key()
		si, ok := shapes[key]
		if !ok {
			si = len(p.Shapes)
			shapes[key] = si
			ns := sh.Database
			if sh.Collection != "" {
				ns += "." + sh.Collection
			}
			p.Shapes = append(p.Shapes, Shape{Key: key, Command: sh.Command, Namespace: ns, Recorded: hist.New(), RecordedDocs: -1})
		}
		r.Shape = si
		p.Shapes[si].Requests++
		p.Shapes[si].Write = p.Shapes[si].Write || r.Write
		if first < 0 {
			first = pk.Offset
		}
		last = pk.Offset
		w := waiting[pk.Conn]
		if w == nil {
			w = &pending{byID: map[int32]int{}}
			waiting[pk.Conn] = w
		}
		w.byID[r.requestID] = len(p.Requests)
		p.Requests = append(p.Requests, r)
	}
	if reserved != "" {
		return nil, &WriteRefusal{Writes: writesN, Examples: reservedEx, Reserved: reserved}
	}
	if writesN > 0 && !o.AllowWrites {
		ex := make([]string, 0, 3)
		for _, w := range writeOrder {
			if len(ex) == 3 {
				ex = append(ex, "…")
				break
			}
			ex = append(ex, fmt.Sprintf("%s ×%d", w, writeCounts[w]))
		}
		return nil, &WriteRefusal{Writes: writesN, Examples: ex}
	}
	if len(p.Requests) == 0 {
		return nil, errors.New("the recording holds no request to replay (" + p.skippedText() + ")")
	}
	p.Conns = len(conns)
	p.Span = last - first
	// Requests in recorded order: by offset, then as recorded (a stable
	// sort keeps each connection's requests in its order).
	sort.SliceStable(p.Requests, func(i, j int) bool { return p.Requests[i].Offset < p.Requests[j].Offset })
	for i := range p.Requests {
		r := &p.Requests[i]
		r.Offset -= first
		s := &p.Shapes[r.Shape]
		if r.Recorded >= 0 {
			hist.Record(s.Recorded, r.Recorded)
		} else {
			p.Unanswered++
		}
		if r.RecordedDocs >= 0 {
			s.RecordedDocs = max(s.RecordedDocs, 0) + r.RecordedDocs
		}
		if r.RecordedFailed {
			s.RecordedFailed++
		}
	}
	for i := range p.Shapes {
		p.Shapes[i].Op = opName(i, p.Shapes[i])
	}
	return p, nil
}

// opName is how a run names a shape's operation type.
func opName(i int, s Shape) string {
	return fmt.Sprintf("S%d %s %s", i+1, s.Command, s.Namespace)
}

// Ops are the plan's operation types, one a shape.
func (p *Plan) Ops() []string {
	out := make([]string, len(p.Shapes))
	for i, s := range p.Shapes {
		out[i] = s.Op
	}
	return out
}

// At is the intended offset of request n at the plan's speed; the
// schedule of the replay (engine.Pacer).
type Schedule struct {
	Plan  *Plan
	Speed float64
}

// At returns request n's offset divided by the speed; past the last
// request, a slot that never comes.
func (s Schedule) At(n int64) time.Duration {
	if n < 0 {
		return 0
	}
	if n >= int64(len(s.Plan.Requests)) {
		return time.Duration(1<<63 - 1)
	}
	return time.Duration(float64(s.Plan.Requests[n].Offset) / s.Speed)
}

// Length is how long the schedule sends: its last request's offset
// divided by the speed.
func (s Schedule) Length() time.Duration {
	if len(s.Plan.Requests) == 0 {
		return 0
	}
	return s.At(int64(len(s.Plan.Requests) - 1))
}

// About says in one phrase what paces the replay: the speed, the
// requests and connections, the recorded rate times the speed and the
// recording's span divided by it, as in "replay ×2 of 1200 requests on 3
// connections, 80.0/s for 15s".
func (s Schedule) About() string {
	text := fmt.Sprintf("replay ×%g of %s on %s", s.Speed, texttable.Plural(int64(len(s.Plan.Requests)), "request"), texttable.Plural(int64(s.Plan.Conns), "connection"))
	if r := s.Plan.RecordedRate(); r > 0 {
		text += ", " + rateText(r*s.Speed)
	}
	return text + " for " + roundTo3(s.Length()).String()
}

// rateText is a rate per second to three significant figures, without
// an exponent.
func rateText(r float64) string {
	if r >= 1000 {
		return strconv.FormatFloat(math.Round(r), 'f', 0, 64) + "/s"
	}
	return strconv.FormatFloat(r, 'f', max(0, 2-int(math.Floor(math.Log10(r)))), 64) + "/s"
}

// roundTo3 rounds d to three significant figures (a microsecond at
// least).
func roundTo3(d time.Duration) time.Duration {
	unit := time.Microsecond
	for d >= 1000*unit && unit < time.Hour {
		unit *= 10
	}
	return d.Round(unit)
}

func (s Schedule) String() string {
	return fmt.Sprintf("recording ×%g (%d requests over %v)", s.Speed, len(s.Plan.Requests), s.Plan.Span.Round(time.Millisecond))
}

// RecordedRate is the recording's requests per second over its span
// (0 when its span is empty).
func (p *Plan) RecordedRate() float64 {
	if p.Span <= 0 || len(p.Requests) < 2 {
		return 0
	}
	return float64(len(p.Requests)-1) / p.Span.Seconds()
}

func (p *Plan) skippedText() string {
	if len(p.Skipped) == 0 {
		return "no requests at all"
	}
	keys := make([]string, 0, len(p.Skipped))
	for k := range p.Skipped {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%d skipped: %s", p.Skipped[k], k)
	}
	return strings.Join(parts, "; ")
}

// replyFacts reads a reply: the documents its cursor's batch returned
// (-1: it has no cursor), the cursor's id, and whether it said ok: 0.
func replyFacts(m recording.Message) (docs, cursor int64, failed bool) {
	body := m.Body
	if m.Op == recording.OpReply {
		if len(m.Documents) == 0 {
			return -1, 0, false
		}
		body = m.Documents[0]
	}
	if ok, err := body.LookupErr("ok"); err == nil {
		if f, isNum := ok.AsFloat64OK(); isNum && f == 0 {
			failed = true
		} else if b, isBool := ok.BooleanOK(); isBool && !b {
			failed = true
		}
	}
	d, c := CursorOf(body)
	return d, c, failed
}

// CursorOf reads a command reply's cursor: the documents of its first or
// next batch (-1: no cursor) and its id.
func CursorOf(reply bson.Raw) (docs, id int64) {
	cur, ok := reply.Lookup("cursor").DocumentOK()
	if !ok {
		return -1, 0
	}
	id, _ = cur.Lookup("id").AsInt64OK()
	for _, k := range []string{"firstBatch", "nextBatch"} {
		if a, ok := cur.Lookup(k).ArrayOK(); ok {
			vals, _ := a.Values()
			return int64(len(vals)), id
		}
	}
	return -1, id
}
