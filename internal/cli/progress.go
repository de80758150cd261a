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
	"github.com/mongobench/mongobench/internal/report"
	"github.com/mongobench/mongobench/internal/spec"
)

// progress draws one live status line on a terminal and stays quiet
// otherwise.
type progress struct {
	mu      sync.Mutex
	w       io.Writer
	live    bool
	tally   report.LiveTally
	width   int
	lastSet time.Time
	// estimate is said once, when the setup first reports progress.
	estimate string
	said     sync.Once
}

func newProgress(w io.Writer, sc *spec.Scenario) *progress {
	f, ok := w.(*os.File)
	return &progress{w: w, live: ok && term.IsTerminal(int(f.Fd())), tally: report.LiveTally{Total: time.Duration(sc.Duration)}, estimate: estimateLine(sc)}
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
	p.drawLocked(report.LiveSetup(stage, done, total))
}

// interval shows the last closed interval.
func (p *progress) interval(iv *engine.Interval) {
	if !p.live {
		return
	}
	p.draw(p.tally.Add(iv))
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
