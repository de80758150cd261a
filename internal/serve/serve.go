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
	"strings"
	"time"

	"github.com/mongobench/mongobench/internal/bounded"
	"github.com/mongobench/mongobench/internal/browse"
	"github.com/mongobench/mongobench/internal/live"
	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/store"
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
}

// Handler serves the pages.
func (s *Server) Handler() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", s.list)
	mux.HandleFunc("GET /run/{id}", s.run)
	mux.HandleFunc("GET /run/{id}/live", s.liveBody)
	mux.HandleFunc("GET /series", s.series)
	mux.HandleFunc("GET /compare", s.compare)
	mux.HandleFunc("GET "+browse.CompareRunsPath, s.compareRuns)
	mux.HandleFunc("GET /sweeps", s.sweeps)
	mux.HandleFunc("GET /sweep/{id}", s.sweep)
	mux.HandleFunc("GET /sla", s.sla)
	mux.HandleFunc("GET /plans", s.plans)
	mux.HandleFunc("GET /plan/{name}", s.plan)
	return mux
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
	case errors.Is(err, store.ErrAmbiguous) || errors.Is(err, errBadID):
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
	docs, err := s.Store.ListLight(r.Context())
	if err != nil {
		fail(w, err)
		return
	}
	q := r.URL.Query()
	labels, workload := browse.DistinctLabels(q["label"]), q.Get("workload")
	if len(labels) < 2 || q.Has("edit") {
		note := ""
		if len(labels) == 1 {
			note = browse.ErrTooFewLabels.Error()
		}
		s.page(w, "labels", "Compare labels' runs", browse.RunLabels(docs, labels, workload, note))
		return
	}
	var b bytes.Buffer
	err = browse.CompareRuns(&b, docs, labels, workload, s.Store.Where())
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
	docs, err := s.Store.ListLight(r.Context())
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
	docs, err := s.Store.ListLight(r.Context())
	if err != nil {
		fail(w, err)
		return
	}
	s.page(w, "links", "Plans", browse.Plans(docs))
}

func (s *Server) plan(w http.ResponseWriter, r *http.Request) {
	docs, err := s.Store.ListLight(r.Context())
	if err != nil {
		fail(w, err)
		return
	}
	var b bytes.Buffer
	err = browse.Plan(&b, docs, r.PathValue("name"), s.Store.Where())
	writeHTML(w, b.Bytes(), err)
}

// pick reads the runs ids name (whole ids or unique prefixes) with one
// List of the store: a results file is read once, not once per run.
func (s *Server) pick(ctx context.Context, ids []string) ([]result.Doc, error) {
	all, err := s.Store.List(ctx, 0)
	if err != nil {
		return nil, err
	}
	docs := make([]result.Doc, 0, len(ids))
	for _, id := range ids {
		var found []int
		for i := range all {
			if all[i].RunID == id {
				found = []int{i}
				break
			}
			if strings.HasPrefix(all[i].RunID, id) {
				found = append(found, i)
			}
		}
		switch len(found) {
		case 0:
			return nil, fmt.Errorf("run %q: %w", id, store.ErrNotFound)
		case 1:
			docs = append(docs, all[found[0]])
		default:
			candidates := make([]string, len(found))
			for i, j := range found {
				candidates[i] = all[j].RunID
			}
			return nil, store.Ambiguous(id, candidates)
		}
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
