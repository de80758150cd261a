// Package serve is the results browser's HTTP layer (`mongobench
// serve`): it reads the results store, and the live feeds of runs that
// are going, and hands them to internal/browse to assemble and render
// the pages. It only reads: it holds the store as a Reader, which has no
// method that writes or deletes.
package serve

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/mongobench/mongobench/internal/bounded"
	"github.com/mongobench/mongobench/internal/browse"
	"github.com/mongobench/mongobench/internal/live"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/store"
	"github.com/mongobench/mongobench/internal/study"
)

// Reader is what serve reads of a results store. No method of it
// writes: a store.Store is a Reader, and serve never holds more.
type Reader interface {
	List(ctx context.Context, limit int) ([]result.Doc, error)
	ListLight(ctx context.Context) ([]result.Doc, error)
	ListRuns(ctx context.Context, f store.RunFilter, limit int) (store.RunList, error)
	Get(ctx context.Context, runID string) (*result.Doc, error)
	Sweeps(ctx context.Context, q store.Query) ([]result.Doc, error)
	Where() string
}

// DefaultListLimit bounds the runs one list page shows.
const DefaultListLimit = 1000

// DefaultListen is where serve listens unless told otherwise: this
// machine only.
const DefaultListen = "127.0.0.1:8080"

// CheckAddrs checks serve's settings: the address to listen on, the
// --metrics-addr of each running mongobench whose runs' pages update as
// they go, and the list pages' limit; each error names its flag.
func CheckAddrs(listen string, live []string, limit int) error {
	if _, _, err := net.SplitHostPort(listen); err != nil {
		return fmt.Errorf("--listen: %q is not valid: want HOST:PORT, e.g. %s or 0.0.0.0:8080", listen, DefaultListen)
	}
	for _, l := range live {
		if _, _, err := net.SplitHostPort(l); err != nil {
			return fmt.Errorf("--live: %q is not valid: want the HOST:PORT a run's --metrics-addr serves, e.g. 127.0.0.1:9464", l)
		}
	}
	if limit < 0 {
		return fmt.Errorf("--limit: got %d, want 0 (all) or more", limit)
	}
	return nil
}

// Server is the results browser.
type Server struct {
	Store Reader
	// Live are the addresses (HOST:PORT) of running mongobench
	// processes' --metrics-addr, whose /live feeds give the intervals of
	// runs not stored yet.
	Live []string
	// ListLimit bounds the runs a list page shows (0: all).
	ListLimit int
	// Client fetches the live feeds (nil: one with a 2 s timeout).
	Client *http.Client

	slots chan struct{} // one per page that reads many runs being built (MaxHeavy)
}

// Handler serves the pages.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.list)
	mux.HandleFunc("GET /run/{id}", s.run)
	mux.HandleFunc("GET /run/{id}/live", s.liveBody)
	if s.slots == nil {
		s.slots = make(chan struct{}, MaxHeavy)
	}
	mux.HandleFunc("GET /series", s.heavy(s.series))
	mux.HandleFunc("GET /compare", s.heavy(s.compare))
	mux.HandleFunc("GET "+browse.CompareRunsPath, s.heavy(s.compareRuns))
	mux.HandleFunc("GET /sweeps", s.heavy(s.sweeps))
	mux.HandleFunc("GET /sweep/{id}", s.heavy(s.sweep))
	mux.HandleFunc("GET /sla", s.heavy(s.sla))
	mux.HandleFunc("GET /plans", s.heavy(s.plans))
	mux.HandleFunc("GET /plan/{name}", s.heavy(s.plan))
	return mux
}

// MaxHeavy is how many pages that read many runs (a series, a
// comparison, the sweeps, SLA studies and plans) are built at once: the
// memory of serve is that of MaxHeavy such pages, however many are asked
// for. Another waits for its turn, at most HeavyWait, then is answered
// 503 (Service Unavailable) with Retry-After.
const (
	MaxHeavy  = 2
	HeavyWait = 60 * time.Second
)

// heavy serves h when one of the slots for pages that read many runs is
// free.
func (s *Server) heavy(h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		wait := time.NewTimer(HeavyWait)
		defer wait.Stop()
		select {
		case s.slots <- struct{}{}:
			defer func() { <-s.slots }()
			h(w, r)
		case <-r.Context().Done():
		case <-wait.C:
			w.Header().Set("Retry-After", "10")
			http.Error(w, fmt.Sprintf("busy: %d pages that read many runs are being built, and this one waited %s for its turn; try again", MaxHeavy, HeavyWait), http.StatusServiceUnavailable)
		}
	}
}

// selector is a store that reads only the runs a page selects (both
// stores are).
type selector interface {
	ListSelected(ctx context.Context, sel store.Selection) ([]result.Doc, error)
}

// selected reads the runs sel selects, without their intervals.
func (s *Server) selected(ctx context.Context, sel store.Selection) ([]result.Doc, error) {
	if st, ok := s.Store.(selector); ok {
		return st.ListSelected(ctx, sel)
	}
	docs, err := s.Store.ListLight(ctx)
	return slices.DeleteFunc(docs, func(d result.Doc) bool { return !sel.Matches(&d) }), err
}

// Serve serves h on ln until ctx ends, then shuts down.
func Serve(ctx context.Context, ln net.Listener, h http.Handler) error {
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second}
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		return err
	case <-ctx.Done():
	}
	shut, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := srv.Shutdown(shut); err != nil {
		return err
	}
	if err := <-done; !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// page renders a page into a buffer first, so a failure is a clean 500.
func (s *Server) page(w http.ResponseWriter, name, title string, data any) {
	var b bytes.Buffer
	if err := browse.Render(&b, name, browse.Page{Title: title, Where: s.Store.Where(), Data: data}); err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(b.Bytes())
}

func fail(w http.ResponseWriter, err error) {
	code := http.StatusInternalServerError
	switch {
	case errors.Is(err, store.ErrNotFound) || errors.Is(err, browse.ErrNotFound):
		code = http.StatusNotFound
	case errors.Is(err, store.ErrAmbiguous) || errors.Is(err, errBadID) || errors.Is(err, browse.ErrBadParam):
		code = http.StatusBadRequest
	}
	http.Error(w, err.Error(), code)
}

// errBadID marks a run or sweep id in a URL that is no id.
var errBadID = errors.New("bad id")

// checkIDs refuses, with 400, an id of a URL that is no run id (a name,
// never a path: result.CheckID); it reports whether all are ids.
func checkIDs(w http.ResponseWriter, what string, ids ...string) bool {
	for _, id := range ids {
		if err := result.CheckID(what, id); err != nil {
			fail(w, fmt.Errorf("%w: %w", errBadID, err))
			return false
		}
	}
	return true
}

func (s *Server) list(w http.ResponseWriter, r *http.Request) {
	f, err := browse.ParseFilter(r.URL.Query())
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	l, err := s.Store.ListRuns(r.Context(), store.RunFilter{Test: f.Test, Label: f.Label, Workload: f.Workload, Tag: f.Tag, From: f.From, To: f.To}, s.ListLimit)
	if err != nil {
		fail(w, err)
		return
	}
	p := browse.List(l.Runs, browse.Choices(l.Choices), l.Matched, l.Total, f)
	runs, errs := s.liveRuns(r.Context())
	p.LiveErrors = errs
	for _, lr := range runs {
		if !lr.Running {
			continue
		}
		v, err := browse.Live(lr)
		if err != nil {
			p.LiveErrors = append(p.LiveErrors, err.Error())
			continue
		}
		p.Live = append(p.Live, v)
	}
	s.page(w, "list", "Runs", p)
}

func (s *Server) run(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !checkIDs(w, "run id", strings.TrimSuffix(id, ".json")) {
		return
	}
	if strings.HasSuffix(id, ".json") {
		s.runJSON(w, r, strings.TrimSuffix(id, ".json"))
		return
	}
	d, err := s.Store.Get(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		if lr, ok := s.liveRun(r.Context(), id); ok {
			v, err := browse.Live(lr)
			if err != nil {
				fail(w, err)
				return
			}
			s.page(w, "live", "Run "+id+" (running)", v)
			return
		}
	}
	if err != nil {
		fail(w, err)
		return
	}
	var b bytes.Buffer
	if err := browse.RunReport(&b, d, s.Store.Where()); err != nil {
		fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(b.Bytes())
}

func (s *Server) runJSON(w http.ResponseWriter, r *http.Request, id string) {
	d, err := s.Store.Get(r.Context(), id)
	if err != nil {
		fail(w, err)
		return
	}
	b, err := store.JSON(d)
	if err != nil {
		fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write(b)
}

// liveBody is the part of a running run's page that updates: 205 (Reset
// Content) once the run is stored, so the page reloads as the stored run.
func (s *Server) liveBody(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !checkIDs(w, "run id", id) {
		return
	}
	if _, err := s.Store.Get(r.Context(), id); err == nil {
		w.WriteHeader(http.StatusResetContent)
		return
	}
	lr, ok := s.liveRun(r.Context(), id)
	if !ok {
		http.Error(w, "run "+id+" is neither stored nor in a live feed", http.StatusNotFound)
		return
	}
	v, err := browse.Live(lr)
	if err != nil {
		fail(w, err)
		return
	}
	var b bytes.Buffer
	if err := browse.RenderLive(&b, v); err != nil {
		fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	_, _ = w.Write(b.Bytes())
}

func (s *Server) compare(w http.ResponseWriter, r *http.Request) {
	ids := r.URL.Query()["run"]
	if len(ids) < 2 {
		http.Error(w, "compare: select at least two runs (run=ID&run=ID)", http.StatusBadRequest)
		return
	}
	if !checkIDs(w, "run id", ids...) {
		return
	}
	docs, err := s.pick(r.Context(), ids)
	if err != nil {
		fail(w, err)
		return
	}
	c, err := browse.Compare(docs)
	if err != nil {
		fail(w, err)
		return
	}
	s.page(w, "compare", fmt.Sprintf("%d runs compared", len(docs)), c)
}

// compareRuns serves the comparison of labels' single runs, or its form
// when fewer than two labels are given or the form is asked for (edit).
func (s *Server) compareRuns(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	c, err := browse.ParseCompareQuery(q)
	if err != nil {
		fail(w, err)
		return
	}
	labels := c.Labels
	form := len(labels) < 2 || q.Has("edit")
	sel := store.Selection{Labels: labels, Figures: true}
	if form {
		sel = store.Selection{Brief: true} // every label's runs counted, none read whole
	}
	docs, err := s.selected(r.Context(), sel)
	if err != nil {
		fail(w, err)
		return
	}
	if form {
		note := ""
		if len(labels) == 1 {
			note = browse.ErrTooFewLabels.Error()
		}
		s.page(w, "labels", "Compare labels' runs", browse.RunLabels(docs, c, note))
		return
	}
	var b bytes.Buffer
	err = browse.CompareRuns(&b, docs, c, s.Store.Where())
	writeHTML(w, b.Bytes(), err)
}

func (s *Server) sweeps(w http.ResponseWriter, r *http.Request) {
	steps, err := s.Store.Sweeps(r.Context(), store.Query{})
	if err != nil {
		fail(w, err)
		return
	}
	s.page(w, "links", "Sweeps", browse.Sweeps(steps))
}

func (s *Server) sweep(w http.ResponseWriter, r *http.Request) {
	steps, err := s.Store.Sweeps(r.Context(), store.Query{})
	if err != nil {
		fail(w, err)
		return
	}
	id := r.PathValue("id")
	if !checkIDs(w, "sweep id", id) {
		return
	}
	var b bytes.Buffer
	err = browse.Sweep(&b, steps, id, s.Store.Where())
	writeHTML(w, b.Bytes(), err)
}

func (s *Server) sla(w http.ResponseWriter, r *http.Request) {
	docs, err := s.selected(r.Context(), store.Selection{Test: study.TestName})
	if err != nil {
		fail(w, err)
		return
	}
	var b bytes.Buffer
	q := r.URL.Query()
	if q.Has("stage") || q.Has("sla") {
		err = browse.SLAStage(&b, docs, q.Get("stage"), q.Get("sla"), s.Store.Where())
	} else {
		err = browse.SLA(&b, docs, s.Store.Where())
	}
	writeHTML(w, b.Bytes(), err)
}

// writeHTML answers with a page rendered whole into a buffer, or with
// err's status when it failed.
func writeHTML(w http.ResponseWriter, page []byte, err error) {
	if err != nil {
		fail(w, err)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write(page)
}

func (s *Server) plans(w http.ResponseWriter, r *http.Request) {
	docs, err := s.selected(r.Context(), store.Selection{Variant: "plan", Brief: true})
	if err != nil {
		fail(w, err)
		return
	}
	s.page(w, "links", "Plans", browse.Plans(docs))
}

func (s *Server) plan(w http.ResponseWriter, r *http.Request) {
	docs, err := s.selected(r.Context(), store.Selection{Variant: "plan", Value: r.PathValue("name")})
	if err != nil {
		fail(w, err)
		return
	}
	var b bytes.Buffer
	err = browse.Plan(&b, docs, r.PathValue("name"), s.Store.Where())
	writeHTML(w, b.Bytes(), err)
}

// MaxCompared bounds the runs one comparison page reads.
const MaxCompared = 32

// pick reads the runs ids name (whole ids or unique prefixes), each by
// itself: a page reads the runs it shows, never the whole history.
func (s *Server) pick(ctx context.Context, ids []string) ([]result.Doc, error) {
	if len(ids) > MaxCompared {
		return nil, fmt.Errorf("%w: %d runs to compare: want at most %d", errBadID, len(ids), MaxCompared)
	}
	docs := make([]result.Doc, 0, len(ids))
	for _, id := range ids {
		d, err := s.Store.Get(ctx, id)
		if err != nil {
			return nil, err
		}
		docs = append(docs, *d)
	}
	return docs, nil
}

// liveRuns reads every live feed; a feed that cannot be read is said,
// not fatal.
func (s *Server) liveRuns(ctx context.Context) ([]browse.LiveRun, []string) {
	var runs []browse.LiveRun
	var errs []string
	for _, addr := range s.Live {
		f, err := s.feed(ctx, addr)
		if err != nil {
			errs = append(errs, fmt.Sprintf("live feed %s: %v", addr, err))
			continue
		}
		for _, r := range f.Runs {
			runs = append(runs, liveRunOf(r))
		}
	}
	return runs, errs
}

// liveRun finds a run in the live feeds.
func (s *Server) liveRun(ctx context.Context, id string) (browse.LiveRun, bool) {
	runs, _ := s.liveRuns(ctx)
	for _, r := range runs {
		if r.RunID == id {
			return r, true
		}
	}
	return browse.LiveRun{}, false
}

func (s *Server) feed(ctx context.Context, addr string) (live.Feed, error) {
	c := s.Client
	if c == nil {
		c = &http.Client{Timeout: 2 * time.Second}
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/live", nil)
	if err != nil {
		return live.Feed{}, err
	}
	resp, err := c.Do(req)
	if err != nil {
		return live.Feed{}, err
	}
	defer func() { _ = resp.Body.Close() }()
	if resp.StatusCode != http.StatusOK {
		return live.Feed{}, fmt.Errorf("GET /live: %s", resp.Status)
	}
	var f live.Feed
	if err := json.NewDecoder(bounded.Reader(resp.Body, "GET http://"+addr+"/live", bounded.LiveFeed)).Decode(&f); err != nil {
		return live.Feed{}, fmt.Errorf("GET /live: %w", err)
	}
	return f, nil
}

func liveRunOf(r live.RunFeed) browse.LiveRun {
	lr := browse.LiveRun{RunID: r.RunID, Test: r.Test, Label: r.Label, Step: r.Step, Started: r.Started, Running: r.Running}
	for _, iv := range r.Intervals {
		lr.Intervals = append(lr.Intervals, browse.LiveInterval{Interval: iv.Interval, LagP99: iv.SendLagP99, Target: iv.TargetRate, InFlight: iv.InFlight})
	}
	return lr
}
