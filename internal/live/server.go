package live

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// lingerBound bounds how long Close waits for the scraper to read the
// final figures.
const lingerBound = 15 * time.Second

// Handler serves /metrics, /live and a short index at /.
func (p *Publisher) Handler() http.Handler {
	mux := http.NewServeMux()
	metrics := promhttp.HandlerFor(p.reg, promhttp.HandlerOpts{EnableOpenMetrics: true})
	mux.HandleFunc("GET /metrics", func(w http.ResponseWriter, r *http.Request) {
		p.mu.Lock()
		seq := p.seq
		p.mu.Unlock()
		metrics.ServeHTTP(w, r)
		p.mu.Lock()
		now := time.Now()
		if !p.scrapedAt.IsZero() {
			p.scrapeGap = now.Sub(p.scrapedAt)
		}
		p.scraped, p.scrapedAt = max(p.scraped, seq), now
		p.mu.Unlock()
	})
	mux.HandleFunc("GET /live", p.serveFeed)
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		fmt.Fprintln(w, "mongobench live figures: /metrics (Prometheus), /live (the runs' intervals as JSON)")
	})
	return mux
}

// Server serves a publisher on one address.
type Server struct {
	pub *Publisher
	srv *http.Server
	ln  net.Listener
}

// Listen starts serving p on addr (HOST:PORT; port 0 picks a free one).
func Listen(addr string, p *Publisher) (*Server, error) {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, err
	}
	s := &Server{pub: p, ln: ln, srv: &http.Server{Handler: p.Handler(), ReadHeaderTimeout: 10 * time.Second}}
	go func() { _ = s.srv.Serve(ln) }()
	return s, nil
}

// Addr is the address served, with the port chosen.
func (s *Server) Addr() string { return s.ln.Addr().String() }

// Close stops serving. When something has scraped /metrics, it first
// waits until a scrape has read the final figures, at most two of the
// scrapes' spacing and never more than 15 s, so the last interval of the
// run reaches Prometheus.
func (s *Server) Close(ctx context.Context) error {
	p := s.pub
	p.mu.Lock()
	var wait time.Duration
	if !p.scrapedAt.IsZero() && p.scraped < p.seq {
		wait = min(2*max(p.scrapeGap, time.Second), lingerBound)
	}
	p.mu.Unlock()
	deadline := time.Now().Add(wait)
	for time.Now().Before(deadline) {
		p.mu.Lock()
		done := p.scraped >= p.seq
		p.mu.Unlock()
		if done {
			break
		}
		select {
		case <-ctx.Done():
			deadline = time.Now()
		case <-time.After(50 * time.Millisecond):
		}
	}
	shut, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	if err := s.srv.Shutdown(shut); err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
