package cli

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"

	"golang.org/x/term"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/hist"
	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/spec"
)

// progress draws one live status line on a terminal and stays quiet
// otherwise.
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	live    bool
	total   time.Duration
	start   time.Time
	errors  int64
	late    int64
	width   int
	lastSet time.Time
	// estimate is said once, when the setup first reports progress.
	estimate string
	said     sync.Once
}

func newProgress(w io.Writer, sc *spec.Scenario) *progress {
	f, ok := w.(*os.File)
	return &progress{w: w, live: ok && term.IsTerminal(int(f.Fd())), total: time.Duration(sc.Duration), estimate: estimateLine(sc)}
}

// setup shows preload progress, at most a few times a second. Loaders
// call it concurrently.
func (p *progress) setup(stage string, done, total int64) {
	p.said.Do(func() {
		if p.estimate != "" {
			fmt.Fprint(p.w, p.estimate)
		}
	})
	if !p.live {
		return
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	if time.Since(p.lastSet) < 200*time.Millisecond && done < total {
		return
	}
	p.lastSet = time.Now()
	p.drawLocked(fmt.Sprintf("%s %d/%d (%.0f%%)", stage, done, total, 100*float64(done)/float64(max(total, 1))))
}

// interval shows the last closed interval.
func (p *progress) interval(iv *engine.Interval) {
	if !p.live {
		return
	}
	if p.start.IsZero() {
		p.start = iv.Start
	}
	merged, ok := hist.New(), int64(0)
	for _, op := range iv.Ops {
		p.errors += op.Errors.Total()
		ok += op.Count
		if h, err := hist.FromDist(op.Latency); err == nil {
			_ = hist.Merge(merged, h)
		}
	}
	p.late += iv.Late
	p.draw(report.Live(report.LiveStatus{
		Elapsed: iv.Start.Add(iv.Length).Sub(p.start), Total: p.total,
		OpsPerSec: float64(ok) / iv.Length.Seconds(), P99: hist.Percentile(merged, 99),
		Errors: p.errors, Late: p.late,
	}))
}

func (p *progress) draw(line string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.drawLocked(line)
}

func (p *progress) drawLocked(line string) {
	pad := max(p.width-len(line), 0)
	fmt.Fprintf(p.w, "\r%s%s", line, strings.Repeat(" ", pad))
	p.width = len(line)
}

// done ends the live line.
func (p *progress) done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.live && p.width > 0 {
		fmt.Fprintln(p.w)
		p.width = 0
	}
}
