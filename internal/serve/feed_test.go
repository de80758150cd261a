package serve

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/mongobench/mongobench/internal/bounded"
)

// A /live feed is read at most bounded.LiveFeed: a hostile feed made
// serve --live use 1.9GB per page load. Past the bound the page gets one
// error naming it.
func TestLiveFeedIsBounded(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	iv := strings.Repeat(`{"interval":1},`, 1000)
	srv := &http.Server{ReadHeaderTimeout: time.Second, Handler: http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprint(w, `{"runs":[{"runId":"r","intervals":[`)
		for sent := int64(0); sent <= bounded.LiveFeed.Max; sent += int64(len(iv)) {
			if _, err := fmt.Fprint(w, iv); err != nil {
				return
			}
		}
		fmt.Fprint(w, `{}]}]}`)
	})}
	go func() { _ = srv.Serve(l) }()
	t.Cleanup(func() { _ = srv.Close() })
	s := &Server{Client: &http.Client{Timeout: 10 * time.Second}}
	_, err = s.feed(context.Background(), l.Addr().String())
	if !errors.Is(err, bounded.ErrTooLarge) || !strings.Contains(err.Error(), "at most 32MB") {
		t.Errorf("a feed past its bound: got %v, want ErrTooLarge naming 32MB", err)
	}
}
