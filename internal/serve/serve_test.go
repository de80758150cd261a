package serve_test

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/serve"
	"github.com/mongobench/mongobench/internal/store"
)

// runs is a Reader of fixed runs.
type runs []result.Doc

func (r runs) List(context.Context, int) ([]result.Doc, error) { return r, nil }
func (r runs) ListLight(context.Context) ([]result.Doc, error) { return r, nil }
func (r runs) Get(_ context.Context, id string) (*result.Doc, error) {
	var found []string
	for i := range r {
		if r[i].RunID == id {
			return &r[i], nil
		}
		if strings.HasPrefix(r[i].RunID, id) {
			found = append(found, r[i].RunID)
		}
	}
	switch len(found) {
	case 0:
		return nil, store.ErrNotFound
	case 1:
		return r.Get(context.Background(), found[0])
	}
	return nil, store.Ambiguous(id, found)
}
func (r runs) Sweeps(context.Context, store.Query) ([]result.Doc, error) { return nil, nil }
func (r runs) ListRuns(context.Context, store.RunFilter, int) (store.RunList, error) {
	return store.RunList{Runs: r, Matched: len(r), Total: len(r)}, nil
}
func (r runs) Where() string { return "test" }

func get(t *testing.T, h http.Handler, url string) (int, string) {
	t.Helper()
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, url, nil))
	b, _ := io.ReadAll(rec.Result().Body)
	return rec.Code, string(b)
}

// An ambiguous run id prefix is the asker's mistake: 400, naming the
// runs it matches.
func TestCompareAmbiguousPrefix(t *testing.T) {
	h := (&serve.Server{Store: runs{{RunID: "20260102T030405Z-aaaaaa"}, {RunID: "20260102T030406Z-bbbbbb"}}}).Handler()
	code, body := get(t, h, "/compare?run=2&run=2026")
	if code != http.StatusBadRequest || !strings.Contains(body, `run id prefix "2" matches more than one run (20260102T030405Z-aaaaaa, 20260102T030406Z-bbbbbb)`) {
		t.Errorf("got %d %q, want 400 naming both candidates", code, body)
	}
}

// A URL's run id is a name, never a path: anything else is a 400.
func TestRunIDsInURLs(t *testing.T) {
	h := (&serve.Server{Store: runs{{RunID: "20260102T030405Z-aaaaaa"}}}).Handler()
	for _, url := range []string{"/run/..%2Fescaped", "/run/.hidden.json", "/run/a%20b/live", "/compare?run=../x&run=2026", "/sweep/..%2F..%2Fx"} {
		if code, body := get(t, h, url); code != http.StatusBadRequest || !strings.Contains(body, "want 1 to 100 letters") {
			t.Errorf("%s: got %d %q, want 400", url, code, body)
		}
	}
	if code, _ := get(t, h, "/run/20260102T030405Z-ffffff"); code != http.StatusNotFound {
		t.Errorf("an unknown run: got %d, want 404", code)
	}
}

func TestCheckAddrs(t *testing.T) {
	if err := serve.CheckAddrs(serve.DefaultListen, []string{"127.0.0.1:9464"}, 0); err != nil {
		t.Error(err)
	}
	for want, c := range map[string]struct {
		listen string
		live   []string
		limit  int
	}{
		`--listen: "8080" is not valid: want HOST:PORT`:                          {"8080", nil, 0},
		`--live: "host" is not valid: want the HOST:PORT a run's --metrics-addr`: {serve.DefaultListen, []string{"127.0.0.1:1", "host"}, 0},
		"--limit: got -1, want 0 (all) or more":                                  {serve.DefaultListen, nil, -1},
	} {
		if err := serve.CheckAddrs(c.listen, c.live, c.limit); err == nil || !strings.HasPrefix(err.Error(), want) {
			t.Errorf("%+v: %v, want %q", c, err, want)
		}
	}
}

// selecting is a store that reads only the runs a page selects: it
// records the selections, fails a read of the whole history, and holds
// each read until let go, counting the reads under way.
type selecting struct {
	runs
	mu      sync.Mutex
	asked   []store.Selection
	now     int // reads under way
	most    int // the most at once
	release chan struct{}
}

func (s *selecting) ListSelected(_ context.Context, sel store.Selection) ([]result.Doc, error) {
	s.mu.Lock()
	s.asked = append(s.asked, sel)
	s.now++
	s.most = max(s.most, s.now)
	s.mu.Unlock()
	if s.release != nil {
		<-s.release
	}
	s.mu.Lock()
	s.now--
	s.mu.Unlock()
	var out []result.Doc
	for i := range s.runs {
		if sel.Matches(&s.runs[i]) {
			out = append(out, s.runs[i])
		}
	}
	return out, nil
}

func (s *selecting) List(context.Context, int) ([]result.Doc, error) {
	return nil, errors.New("the whole history read")
}

func (s *selecting) ListLight(context.Context) ([]result.Doc, error) {
	return nil, errors.New("the whole history read")
}

// Each page reads the runs it shows, never the whole history: a plan's
// page those of its plan (a plan not stored reads none), a comparison
// of labels' runs those of its labels, a comparison of runs each run.
// (Every page read every stored run: 5,100 runs took 2.5 s to answer
// /plan/nope.)
func TestPagesReadWhatTheyShow(t *testing.T) {
	st := &selecting{runs: runs{
		{RunID: "20260102T030405Z-aaaaaa", Label: "a", Variant: map[string]any{"plan": "p1"}},
		{RunID: "20260102T030406Z-bbbbbb", Label: "b"},
	}}
	h := (&serve.Server{Store: st}).Handler()
	for url, want := range map[string]store.Selection{
		"/plan/nope":                    {Variant: "plan", Value: "nope"},
		"/plans":                        {Variant: "plan", Brief: true},
		"/compare-runs?label=a":         {Brief: true},
		"/compare-runs?label=a&label=b": {Labels: []string{"a", "b"}, Figures: true},
	} {
		st.asked = nil
		if code, body := get(t, h, url); code == http.StatusInternalServerError {
			t.Errorf("%s: %d %s", url, code, body)
		}
		if len(st.asked) != 1 || !reflect.DeepEqual(st.asked[0], want) {
			t.Errorf("%s: read %+v, want %+v", url, st.asked, want)
		}
	}
	if code, body := get(t, h, "/compare?run=20260102T030405Z-aaaaaa&run=20260102T030406Z"); code != http.StatusOK {
		t.Errorf("compare of two runs: %d %s", code, body)
	}
	url := "/compare?" + strings.Repeat("run=20260102T030405Z-aaaaaa&", serve.MaxCompared+1)
	if code, _ := get(t, h, url); code != http.StatusBadRequest {
		t.Errorf("compare of %d runs: %d, want 400", serve.MaxCompared+1, code)
	}
}

// However many pages that read many runs are asked for at once, at most
// MaxHeavy are built at a time; the others wait their turn and are
// served. (Four comparisons at once held 1.39 GB.)
func TestHeavyPagesTakeTurns(t *testing.T) {
	st := &selecting{runs: runs{{RunID: "20260102T030405Z-aaaaaa", Label: "a"}}, release: make(chan struct{})}
	h := (&serve.Server{Store: st}).Handler()
	const asked = serve.MaxHeavy + 3
	var wg sync.WaitGroup
	codes := make(chan int, asked)
	for range asked {
		wg.Add(1)
		go func() {
			defer wg.Done()
			code, _ := get(t, h, "/compare-runs?label=a&label=b")
			codes <- code
		}()
	}
	for { // wait until the slots are taken
		st.mu.Lock()
		n := st.now
		st.mu.Unlock()
		if n == serve.MaxHeavy {
			break
		}
		time.Sleep(5 * time.Millisecond)
	}
	for range asked {
		st.release <- struct{}{}
	}
	wg.Wait()
	close(codes)
	for code := range codes {
		if code == http.StatusServiceUnavailable || code == http.StatusInternalServerError {
			t.Errorf("a page answered %d, want each served in its turn", code)
		}
	}
	if st.most > serve.MaxHeavy {
		t.Errorf("%d pages built at once, want at most %d", st.most, serve.MaxHeavy)
	}
}
