package serve_test

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/mongobench/mongobench/internal/result"
	"github.com/mongobench/mongobench/internal/serve"
	"github.com/mongobench/mongobench/internal/store"
)

// runs is a Reader of fixed runs.
type runs []result.Doc

func (r runs) List(context.Context, int) ([]result.Doc, error) { return r, nil }
func (r runs) ListLight(context.Context) ([]result.Doc, error) { return r, nil }
func (r runs) Get(_ context.Context, id string) (*result.Doc, error) {
	for i := range r {
		if r[i].RunID == id {
			return &r[i], nil
		}
	}
	return nil, store.ErrNotFound
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
