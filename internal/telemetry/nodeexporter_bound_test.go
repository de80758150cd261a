package telemetry

import (
	"context"
	"errors"
	"net"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/bounded"
)

// hostileExporter serves the fixture's page until huge is set, then a
// page of 300MB (written as it is read, never held), on loopback.
func hostileExporter(t *testing.T, huge *atomic.Bool, scrapes *atomic.Int64) string {
	t.Helper()
	page, err := os.ReadFile("testdata/node_exporter.prom")
	if err != nil {
		t.Fatal(err)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{ReadHeaderTimeout: time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		scrapes.Add(1)
		if !huge.Load() {
			_, _ = w.Write(page)
			return
		}
		line := []byte(strings.Repeat("# padding of a hostile exporter\n", 32))
		for sent := 0; sent < 300<<20; sent += len(line) {
			if _, err := w.Write(line); err != nil {
				return
			}
		}
	})}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	return "http://" + l.Addr().String() + "/metrics"
}

// A node exporter answering 300MB is an error once, past
// bounded.NodeExporter, and is then not scraped again (it reached 2-3.5GB
// and was re-scraped every second): its readings are missing, and
// Dropped says why for the run's notes.
func TestNodeExporterPastItsBoundIsDropped(t *testing.T) {
	var huge atomic.Bool
	var scrapes atomic.Int64
	url := hostileExporter(t, &huge, &scrapes)
	n, err := NewNodeExporter(context.Background(), url, "sda", "", 5*time.Second)
	if err != nil {
		t.Fatal(err)
	}
	if s, err := n.Read(); err != nil || s.CPU == nil {
		t.Fatalf("a page within the bound: got %+v, %v", s, err)
	}
	huge.Store(true)
	_, err = n.Read()
	if !errors.Is(err, bounded.ErrTooLarge) || !strings.Contains(err.Error(), "at most 16MB") {
		t.Fatalf("a 300MB page: got %v, want the bound named", err)
	}
	before := scrapes.Load()
	for range 3 {
		if s, err := n.Read(); err == nil || s.CPU != nil {
			t.Errorf("after the bound: got %+v, %v; want missing", s, err)
		}
	}
	if got := scrapes.Load(); got != before {
		t.Errorf("scraped %d more times after the answer passed its bound, want none", got-before)
	}
	if d := n.Dropped(); !strings.Contains(d, "not scraped again") {
		t.Errorf("Dropped: %q", d)
	}
}

// At the start, an exporter past its bound is refused with the bound.
func TestNodeExporterPastItsBoundAtTheStart(t *testing.T) {
	var huge atomic.Bool
	var scrapes atomic.Int64
	huge.Store(true)
	url := hostileExporter(t, &huge, &scrapes)
	_, err := NewNodeExporter(context.Background(), url, "", "", 5*time.Second)
	if !errors.Is(err, bounded.ErrTooLarge) {
		t.Fatalf("got %v, want ErrTooLarge", err)
	}
}
