// Package recorded replays a traffic recording as a workload: each
// recorded connection on a connection of its own to the candidate (the
// lean wire client), each request sent at its recorded offset divided
// by the speed, in its connection's order, changed as internal/replay's
// Mapper says. The plan, the mapping and the per-shape figures are
// internal/replay's (pure); this package only sends.
package recorded

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.mongodb.org/mongo-driver/v2/bson"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/recording"
	"github.com/mongobench/mongobench/internal/replay"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/spec"
	"github.com/mongobench/mongobench/internal/wire"
	"github.com/mongobench/mongobench/internal/workload"
)

// Name is the workload's name.
const Name = "replay"

// Workload replays a recording (its parameters name the file and how).
// Plans are read once per file and options.
type Workload struct {
	mu    sync.Mutex
	plans map[string]*loaded
}

type loaded struct {
	plan *replay.Plan
	err  error
}

var _ workload.Workload = (*Workload)(nil)

// NoDataDatabase: a replay writes only what its recording does (with
// allowWrites), never a data database's marker.
func (*Workload) NoDataDatabase() {}

// NoDataDatabase: as the replay's.
func (*named) NoDataDatabase() {}

// OwnSchedule: a replay is paced by its recording, not the scenario.
func (*Workload) OwnSchedule() {}

// OwnSchedule: as the replay's.
func (*named) OwnSchedule() {}

// Name is "replay".
func (*Workload) Name() string { return Name }

// Summary is one line for listings.
func (*Workload) Summary() string {
	return "a traffic recording replayed at its own pace or faster (-p file=REC, -p speed=2; mongobench replay)"
}

// Params are the recording and how it is replayed.
func (*Workload) Params() []spec.ParamSpec {
	return []spec.ParamSpec{
		{Name: "file", Kind: spec.KindString, Help: "the recording: mongobench record's file, a server's file or an 8.x recording directory"},
		{Name: "speed", Kind: spec.KindFloat, Default: "1", Min: "0.001", Max: "1000", Help: "recorded offsets are divided by it (2: twice as fast)"},
		{Name: "allowWrites", Kind: spec.KindBool, Default: "false", Help: "send the recording's writes (the candidate takes them)"},
		{Name: "includeMonitoring", Kind: spec.KindBool, Default: "false", Help: "replay hello, isMaster and ping too"},
		{Name: "mapNs", Kind: spec.KindString, Help: "namespace rules FROM=TO, comma-separated (prod.=staging.)"},
		{Name: "explain", Kind: spec.KindInt, Default: "0", Min: "0", Max: "1000", Help: "the winning plan of this many of the heaviest shapes, captured on the candidate after the replay"},
	}
}

// Options reads the parameters.
func Options(p spec.Params) (string, replay.Options, error) {
	o := replay.Options{Speed: p.Float("speed"), AllowWrites: p.Bool("allowWrites"),
		IncludeMonitoring: p.Bool("includeMonitoring"), ReservedDatabases: spec.ReservedDatabases()}
	if o.Speed == 0 {
		o.Speed = 1
	}
	if m := p.String("mapNs"); m != "" {
		for _, part := range strings.Split(m, ",") {
			r, err := replay.ParseNSRule(strings.TrimSpace(part))
			if err != nil {
				return "", o, err
			}
			o.MapNS = append(o.MapNS, r)
		}
	}
	file := p.String("file")
	if file == "" {
		return "", o, errors.New("replay: -p file=RECORDING names the recording to replay")
	}
	return file, o, nil
}

// Plan reads (once) the plan of the recording p names.
func (w *Workload) Plan(p spec.Params) (*replay.Plan, error) {
	file, o, err := Options(p)
	if err != nil {
		return nil, err
	}
	key := fmt.Sprintf("%s|%+v", file, o)
	w.mu.Lock()
	defer w.mu.Unlock()
	if l, ok := w.plans[key]; ok {
		return l.plan, l.err
	}
	plan, err := Load(file, o)
	if w.plans == nil {
		w.plans = map[string]*loaded{}
	}
	w.plans[key] = &loaded{plan: plan, err: err}
	return plan, err
}

// Load reads the recording at path (a file or an 8.x directory) into a
// plan. Errors name the file.
func Load(path string, o replay.Options) (*replay.Plan, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	set, err := recording.OpenAs(os.DirFS(filepath.Dir(abs)), filepath.Base(abs), path)
	if err != nil {
		return nil, err
	}
	defer func() { _ = set.Close() }()
	plan, err := replay.Load(set, o)
	if err != nil {
		var re *recording.Error
		if errors.As(err, &re) {
			return nil, err
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return plan, nil
}

// RecordedRate is the recording's own rate: its requests (those the
// replay sends, with p's options) per second over its span.
func (w *Workload) RecordedRate(p spec.Params) (float64, error) {
	plan, err := w.Plan(p)
	if err != nil {
		return 0, err
	}
	return plan.RecordedRate(), nil
}

// RecordedRate: as the replay's.
func (n *named) RecordedRate(p spec.Params) (float64, error) { return n.w.RecordedRate(n.with(p)) }

// Ops are the recording's shapes (one operation type each).
func (w *Workload) Ops(p spec.Params) []string {
	plan, err := w.Plan(p)
	if err != nil {
		return []string{"REPLAY"}
	}
	return plan.Ops()
}

// dialers is how many candidate connections are dialled at once.
const dialers = 16

// Prepare reads the recording and dials a candidate connection per
// recorded connection.
func (w *Workload) Prepare(ctx context.Context, env workload.Env, p spec.Params) (workload.Run, error) {
	file, o, err := Options(p)
	if err != nil {
		return workload.Run{}, err
	}
	plan, err := w.Plan(p)
	if err != nil {
		return workload.Run{}, err
	}
	if env.Rate > 0 {
		// A target rate (run --rate, a sweep's step) chooses the speed:
		// the recording's rate times the speed is the target.
		rec := plan.RecordedRate()
		if rec <= 0 {
			return workload.Run{}, fmt.Errorf("%s: a target rate needs the recording's own rate, and it has %d request(s) over %v", file, len(plan.Requests), plan.Span)
		}
		if o.Speed != 1 {
			return workload.Run{}, fmt.Errorf("replay: give a target rate (--rate, a sweep's rates) or -p speed, not both")
		}
		o.Speed = env.Rate / rec
	}
	wo, err := wire.Parse(env.URI)
	if err != nil {
		return workload.Run{}, fmt.Errorf("replay sends over the lean wire client: %w", err)
	}
	if wo.AppName == "" {
		wo.AppName = "mongobench replay"
	}
	sh := &shared{plan: plan, mapper: replay.NewMapper(newID), conns: make([]*conn, plan.Conns),
		sent: make([]atomic.Int64, len(plan.Shapes)), docs: make([]atomic.Int64, len(plan.Shapes)), hasDocs: make([]atomic.Bool, len(plan.Shapes))}
	if err := sh.dial(ctx, wo, env); err != nil {
		sh.close()
		return workload.Run{}, err
	}
	// Workers enough that a request queued behind its connection's
	// earlier ones (a burst of getMores, a candidate slower than the
	// recording) still has its slot claimed on time: its wait for its
	// turn is then the server's, inside the operation, never the
	// client's send lag.
	workers := min(8*plan.Conns+2, 10_000)
	pacer := replay.Schedule{Plan: plan, Speed: o.Speed}
	return workload.Run{
		Decided: workload.Decisions{Settings: settings{File: file, Speed: o.Speed, Connections: int64(plan.Conns), Requests: int64(len(plan.Requests)), AllowWrites: o.AllowWrites}},
		Tasks:   sh,
		Schedule: &workload.Schedule{
			Pacer: pacer, Count: int64(len(plan.Requests)), Workers: workers, Length: pacer.Length(), About: pacer.About(),
		},
		Annotate: func(ctx context.Context, d *result.Doc) {
			got := replay.Replayed{Sent: make([]int64, len(plan.Shapes)), Docs: make([]int64, len(plan.Shapes))}
			for i := range plan.Shapes {
				got.Sent[i] = sh.sent[i].Load()
				got.Docs[i] = -1
				if sh.hasDocs[i].Load() {
					got.Docs[i] = sh.docs[i].Load()
				}
			}
			d.Replay = replay.Section(file, plan, o, sh.mapper.Counts(), got)
			if rate := plan.RecordedRate(); rate > 0 && env.Rate == 0 {
				d.Schedule.TargetRate = result.F(rate * o.Speed)
			}
			d.Schedule.DropBound = 0 // a replay drops nothing, however late: no bound
			if n := int(p.Int("explain")); n > 0 {
				d.Notes = append(d.Notes, explain(ctx, wo, plan, d, n)...)
			}
		},
	}, nil
}

// settings are the replay's test_config fields.
type settings struct {
	File        string  `bson:"replayFile"`
	Speed       float64 `bson:"replaySpeed"`
	Connections int64   `bson:"replayConnections"`
	Requests    int64   `bson:"replayRequests"`
	AllowWrites bool    `bson:"replayAllowWrites"`
}

func newID() [16]byte {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return b
}

// shared is the replay's state: the plan, the mapper, a candidate
// connection per recorded one, the per-shape counts.
type shared struct {
	plan    *replay.Plan
	mapper  *replay.Mapper
	conns   []*conn
	sent    []atomic.Int64
	docs    []atomic.Int64
	hasDocs []atomic.Bool
	users   atomic.Int64
}

// conn is a recorded connection's candidate connection; next is the
// number of its next request to send (its requests go in order).
type conn struct {
	mu   sync.Mutex
	cond *sync.Cond
	next int
	w    *wire.Conn
	buf  []byte
}

func (sh *shared) dial(ctx context.Context, o wire.Options, env workload.Env) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var mu sync.Mutex
	var first error
	var done atomic.Int64
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(dialers, len(sh.conns)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				w, err := wire.Dial(ctx, o)
				if err != nil {
					mu.Lock()
					if first == nil {
						first = fmt.Errorf("connection %d of %d to the candidate: %w", i+1, len(sh.conns), err)
					}
					mu.Unlock()
					cancel()
					continue
				}
				c := &conn{w: w}
				c.cond = sync.NewCond(&c.mu)
				sh.conns[i] = c
				env.ReportProgress("connecting", done.Add(1), int64(len(sh.conns)))
			}
		}()
	}
feed:
	for i := range sh.conns {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if first != nil {
		return first
	}
	return ctx.Err()
}

func (sh *shared) close() {
	for _, c := range sh.conns {
		if c != nil {
			_ = c.w.Close()
		}
	}
}

// NewTask is a worker's task; the last task closed closes the
// connections.
func (sh *shared) NewTask(_ context.Context, _ int) (engine.Task, error) {
	sh.users.Add(1)
	return &task{sh: sh}, nil
}

type task struct {
	sh      *shared
	arrival time.Time
	sent    time.Time // when the last request was written
}

var (
	_ engine.SlotTask   = (*task)(nil)
	_ engine.ReplyTimed = (*task)(nil)
	_ engine.SendTimed  = (*task)(nil)
)

// errNoSlot is Do called without a slot: a replay runs open loop only.
var errNoSlot = errors.New("replay: a request is sent at its slot of the recording's schedule (open loop)")

func (t *task) Do(context.Context) (int, error) { return 0, errNoSlot }

// BeginSend does nothing: DoSlot forgets the last request's times itself.
func (t *task) BeginSend() {}

// Sent is when the last request was written: after its connection's
// earlier replies, so its service time is the candidate's alone.
func (t *task) Sent() (time.Time, bool) { return t.sent, !t.sent.IsZero() }

// ReplyArrived is when the last request's reply reached this host.
func (t *task) ReplyArrived() (time.Time, bool) { return t.arrival, !t.arrival.IsZero() }

func (t *task) Close() error {
	if t.sh.users.Add(-1) == 0 {
		t.sh.close()
	}
	return nil
}

// DoSlot sends request n once its connection's earlier requests are
// answered.
func (t *task) DoSlot(ctx context.Context, n int64) (int, error) {
	t.arrival, t.sent = time.Time{}, time.Time{}
	sh := t.sh
	if n < 0 || n >= int64(len(sh.plan.Requests)) {
		return 0, fmt.Errorf("replay: slot %d past the recording's %d requests", n, len(sh.plan.Requests))
	}
	r := &sh.plan.Requests[n]
	c := sh.conns[r.Conn]
	if err := c.turn(ctx, r.Seq); err != nil {
		return r.Shape, err
	}
	defer c.done()
	body, err := sh.mapper.Command(c.buf[:0], r)
	if gone := (*replay.ErrCursorGone)(nil); errors.As(err, &gone) {
		// The application would not have sent it: the candidate's
		// earlier reply ended the cursor. Not a failure of the candidate.
		return r.Shape, fmt.Errorf("%w: %w", engine.ErrSkipped, err)
	}
	if err != nil {
		return r.Shape, err
	}
	c.buf = body
	msg := c.w.Start()
	msg = append(msg, body...)
	for _, s := range r.Msg.Sequences {
		var at int
		msg, at = wire.StartSequence(msg, s.Identifier)
		for _, d := range s.Documents {
			msg = append(msg, d...)
		}
		msg = wire.EndSequence(msg, at)
	}
	sh.sent[r.Shape].Add(1)
	t.sent = time.Now()
	reply, err := c.w.RoundTrip(ctx, msg, wire.NoRetry)
	if at, ok := c.w.ReplyArrived(); ok {
		t.arrival = at
	}
	if reply != nil {
		sh.mapper.Replied(r, reply)
		if docs, _ := replay.CursorOf(bson.Raw(reply)); docs >= 0 {
			sh.docs[r.Shape].Add(docs)
			sh.hasDocs[r.Shape].Store(true)
		}
	}
	return r.Shape, err
}

// turn waits until request seq is its connection's next.
func (c *conn) turn(ctx context.Context, seq int) error {
	stop := context.AfterFunc(ctx, func() {
		c.mu.Lock()
		c.cond.Broadcast()
		c.mu.Unlock()
	})
	defer stop()
	c.mu.Lock()
	defer c.mu.Unlock()
	for c.next != seq {
		if err := ctx.Err(); err != nil {
			return err
		}
		c.cond.Wait()
	}
	return nil
}

// done passes the connection's turn to its next request.
func (c *conn) done() {
	c.mu.Lock()
	c.next++
	c.cond.Broadcast()
	c.mu.Unlock()
}

// explain captures on the candidate the winning plan of the n shapes
// that took it the most time, into the result's replay shapes; what it
// could not capture is said in the notes it returns.
func explain(ctx context.Context, o wire.Options, plan *replay.Plan, d *result.Doc, n int) []string {
	var notes []string
	c, err := wire.Dial(ctx, o)
	if err != nil {
		return []string{"explain: no connection to the candidate: " + err.Error()}
	}
	defer func() { _ = c.Close() }()
	for _, i := range replay.Heaviest(plan, d.Ops, n) {
		r := plan.First(i)
		cmd, ok := replay.ExplainCommand(r)
		if !ok {
			continue
		}
		msg := append(c.Start(), cmd...)
		reply, err := c.RoundTrip(ctx, msg, wire.NoRetry)
		if err != nil {
			notes = append(notes, fmt.Sprintf("explain of %s: %v", plan.Shapes[i].Op, err))
			continue
		}
		if wp := replay.WinningPlan(bson.Raw(reply)); wp != "" && d.Replay != nil {
			d.Replay.Shapes[i].Plan = wp
		}
	}
	return notes
}

// Named opens the recording at path as a workload named by its path
// (run, sweep and plan's --workload rec.bin): the replay workload with
// its file fixed. ok is false when path names no file or directory, so
// the name is someone else's; a file that is not a readable recording
// is an error naming it.
func Named(path string) (workload.Workload, bool, error) {
	st, err := os.Stat(path)
	if err != nil || !st.Mode().IsRegular() && !st.IsDir() {
		return nil, false, nil
	}
	n := &named{w: &Workload{}, path: path}
	if _, err := n.w.Plan(n.with(spec.Params{"speed": 1.0, "allowWrites": true})); err != nil {
		var wr *replay.WriteRefusal
		if !errors.As(err, &wr) {
			return nil, true, err
		}
	}
	return n, true, nil
}

// named is a recording named by its path.
type named struct {
	w    *Workload
	path string
}

var _ workload.Workload = (*named)(nil)

func (n *named) Name() string { return n.path }

func (n *named) Summary() string {
	return "the traffic recording " + n.path + " replayed (docs/replay.md)"
}

// Params are the replay's, its file fixed.
func (n *named) Params() []spec.ParamSpec {
	var out []spec.ParamSpec
	for _, p := range n.w.Params() {
		if p.Name != "file" {
			out = append(out, p)
		}
	}
	return out
}

func (n *named) with(p spec.Params) spec.Params {
	q := make(spec.Params, len(p)+1)
	for k, v := range p {
		q[k] = v
	}
	q["file"] = n.path
	return q
}

func (n *named) Ops(p spec.Params) []string { return n.w.Ops(n.with(p)) }

func (n *named) Prepare(ctx context.Context, env workload.Env, p spec.Params) (workload.Run, error) {
	return n.w.Prepare(ctx, env, n.with(p))
}
