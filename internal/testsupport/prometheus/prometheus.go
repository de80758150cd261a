// Package prometheus starts a real Prometheus (Debian's prometheus, which
// 'make setup' installs through scripts/install-prometheus.sh) on a
// loopback port for a test, scraping the given targets every second, and
// stops it when the test ends. A test that needs one fails, never skips,
// when it cannot be started, unless it runs with -short.
package prometheus

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Bin is Prometheus's program: $MONGOBENCH_PROMETHEUS_BIN, else
// prometheus on PATH.
func Bin() (string, error) {
	if b := os.Getenv("MONGOBENCH_PROMETHEUS_BIN"); b != "" {
		return b, nil
	}
	if p, err := exec.LookPath("prometheus"); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("no prometheus: install Debian's prometheus ('make setup' does, through scripts/install-prometheus.sh) or set MONGOBENCH_PROMETHEUS_BIN")
}

// FreeAddr returns a loopback HOST:PORT nothing listens on now.
func FreeAddr(t testing.TB) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	_ = l.Close()
	return addr
}

// Server is a running Prometheus.
type Server struct {
	URL string
	cmd *exec.Cmd
}

// Start starts Prometheus scraping targets' /metrics every second (job
// "mongobench"), waits until it scrapes them (a target not listening
// yet counts: Prometheus retries it every second), and stops it when
// the test ends.
func Start(t testing.TB, targets ...string) *Server {
	t.Helper()
	if testing.Short() {
		t.Skip("needs Prometheus; -short skips it")
	}
	bin, err := Bin()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cfg := filepath.Join(dir, "prometheus.yml")
	conf := fmt.Sprintf(`global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: mongobench
    static_configs:
      - targets: ['%s']
`, strings.Join(targets, "', '"))
	if err := os.WriteFile(cfg, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	addr := FreeAddr(t)
	cmd := exec.Command(bin, "--config.file="+cfg, "--storage.tsdb.path="+filepath.Join(dir, "data"),
		"--web.listen-address="+addr, "--log.level=warn")
	cmd.Stderr = &logWriter{t: t}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	s := &Server{URL: "http://" + addr, cmd: cmd}
	t.Cleanup(s.Stop)
	deadline := time.Now().Add(30 * time.Second)
	for {
		// Ready is not enough: the scrape manager applies its targets a
		// few seconds after start; wait until every target is active.
		n, err := s.activeTargets()
		if err == nil && n == len(targets) {
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("prometheus at %s had %d of %d targets active after 30s: %v", addr, n, len(targets), err)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// activeTargets counts the targets Prometheus scrapes.
func (s *Server) activeTargets() (int, error) {
	resp, err := http.Get(s.URL + "/api/v1/targets?state=active")
	if err != nil {
		return 0, err
	}
	defer func() { _ = resp.Body.Close() }()
	var body struct {
		Data struct {
			ActiveTargets []json.RawMessage `json:"activeTargets"`
		} `json:"data"`
	}
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("GET /api/v1/targets: %s", resp.Status)
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		return 0, err
	}
	return len(body.Data.ActiveTargets), nil
}

// Sample is one series of a query's answer: its labels, and its value
// (an instant vector) or its raw samples (a range vector).
type Sample struct {
	Metric map[string]string `json:"metric"`
	Value  []any             `json:"value"`
	Values [][]any           `json:"values"`
}

// Float is the sample's value.
func (s Sample) Float(t testing.TB) float64 { return number(t, s.Value) }

// Floats are the raw samples' values, oldest first.
func (s Sample) Floats(t testing.TB) []float64 {
	out := make([]float64, len(s.Values))
	for i, v := range s.Values {
		out[i] = number(t, v)
	}
	return out
}

func number(t testing.TB, pair []any) float64 {
	t.Helper()
	if len(pair) != 2 {
		t.Fatalf("sample %v: want [time, value]", pair)
	}
	text, _ := pair[1].(string)
	var f float64
	if _, err := fmt.Sscan(text, &f); err != nil {
		t.Fatalf("sample value %v: %v", pair[1], err)
	}
	return f
}

// Query runs a PromQL query now, through the HTTP API (/api/v1/query),
// and returns the series of its vector or matrix answer.
func (s *Server) Query(t testing.TB, q string) []Sample {
	t.Helper()
	return s.QueryAt(t, q, time.Now())
}

// QueryAt runs a PromQL query at the given time.
func (s *Server) QueryAt(t testing.TB, q string, at time.Time) []Sample {
	t.Helper()
	ts := fmt.Sprintf("%.3f", float64(at.UnixMilli())/1000)
	resp, err := http.Get(s.URL + "/api/v1/query?query=" + url.QueryEscape(q) + "&time=" + ts)
	if err != nil {
		t.Fatalf("query %s: %v", q, err)
	}
	defer func() { _ = resp.Body.Close() }()
	var body struct {
		Status, Error string
		Data          struct {
			ResultType string   `json:"resultType"`
			Result     []Sample `json:"result"`
		}
	}
	if err := json.NewDecoder(resp.Body).Decode(&body); err != nil {
		t.Fatalf("query %s: %v", q, err)
	}
	if body.Status != "success" {
		t.Fatalf("query %s: %s %s", q, body.Status, body.Error)
	}
	return body.Data.Result
}

// Stop stops Prometheus.
func (s *Server) Stop() {
	if s.cmd.Process == nil || s.cmd.ProcessState != nil {
		return
	}
	_ = s.cmd.Process.Kill() // a test's Prometheus has nothing to keep
	_ = s.cmd.Wait()
}

// logWriter passes Prometheus's warnings to the test log.
type logWriter struct{ t testing.TB }

func (w *logWriter) Write(p []byte) (int, error) {
	w.t.Logf("prometheus: %s", strings.TrimSpace(string(p)))
	return len(p), nil
}
