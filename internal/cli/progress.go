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
	"github.com/mongobench/mongobench/internal/study"
	"github.com/mongobench/mongobench/internal/texttable"
)

// terminal is where the progress of a run goes: standard error, and
// whether it is a terminal (then its file descriptor, for its width).
type terminal struct {
	live bool
	fd   int
}

// terminalOf reports whether w is a terminal; it must be asked before w
// is wrapped (the secret writer hides the file).
func terminalOf(w io.Writer) terminal {
	f, ok := w.(*os.File)
	if !ok || !term.IsTerminal(int(f.Fd())) {
		return terminal{}
	}
	return terminal{live: true, fd: int(f.Fd())}
}

// width is the terminal's width in columns, 0 when unknown.
func (t terminal) width() int {
	if !t.live {
		return 0
	}
	w, _, err := term.GetSize(t.fd)
	if err != nil {
		return 0
	}
	return w
}

// progress shows how a run goes. On a terminal: one line redrawn in
// place (setup, warm-up, then each interval's throughput and p99), never
// wider than the terminal. Otherwise, for logs: a plain status line every
// status interval (setup progress, the warm-up, then the throughput and
// p99 of the intervals since the last line), none when it is 0.
type progress struct {
	mu     sync.Mutex
	w      io.Writer
	term   terminal
	cols   func() int    // the terminal's width in columns, 0 unknown
	every  time.Duration // not a terminal: a status line this often; 0 none
	tally  report.LiveTally
	total  time.Duration // the measured phase as planned
	width  int           // columns of the line drawn last (terminal)
	drawn  bool          // a line is on the terminal, to end with a newline
	lastAt time.Time     // when setup progress was last shown
	// warming stops the warm-up's clock when the first interval closes.
	warming chan struct{}
	// estimate is said once, when the setup first reports progress.
	estimate string
	said     sync.Once
}

// newProgress shows a run of sc whose tally is run.
func newProgress(w io.Writer, t terminal, every time.Duration, sc *spec.Scenario, run *engine.Tally) *progress {
	total := time.Duration(sc.Duration)
	return &progress{w: w, term: t, cols: t.width, every: every, total: total, tally: report.LiveTally{Total: total, Run: run}, estimate: estimateLine(sc)}
}

// Setup shows preload progress: on a terminal at most a few times a
// second, in a log once a status interval and when a stage completes.
// Loaders call it concurrently.
func (p *progress) Setup(stage string, done, total int64) {
	p.said.Do(func() {
		if p.estimate != "" {
			fmt.Fprint(p.w, p.estimate)
		}
	})
	p.mu.Lock()
	defer p.mu.Unlock()
	gap := 200 * time.Millisecond
	if !p.term.live {
		gap = p.every
	}
	if gap <= 0 || time.Since(p.lastAt) < gap && done < total {
		return
	}
	p.lastAt = time.Now()
	p.showLocked(report.LiveSetup(stage, done, total))
}

// Start replaces the setup's line when the engine starts: the warm-up,
// counted down on a terminal (in a log, once a status interval), or the
// measured phase.
func (p *progress) Start(warmup time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.showLocked(report.LiveStart(warmup, p.total))
	tick := time.Second
	if !p.term.live {
		tick = p.every
	}
	if warmup <= 0 || tick <= 0 {
		return
	}
	p.warming = make(chan struct{})
	go p.countWarmup(time.Now(), warmup, tick, p.warming)
}

// countWarmup shows the warm-up's progress every tick until stop closes.
func (p *progress) countWarmup(began time.Time, warmup, tick time.Duration, stop chan struct{}) {
	t := time.NewTicker(tick)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			p.mu.Lock()
			select {
			case <-stop: // the measured phase began while waiting for the lock
			default:
				if since := time.Since(began); since < warmup {
					p.showLocked(report.LiveWarmup(since, warmup))
				}
			}
			p.mu.Unlock()
		}
	}
}

// stopWarmupLocked stops the warm-up's clock.
func (p *progress) stopWarmupLocked() {
	if p.warming != nil {
		close(p.warming)
		p.warming = nil
	}
}

// Interval shows a closed interval: on a terminal at once, in a log when
// the intervals since the last line span a status interval.
func (p *progress) Interval(iv *engine.Interval) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopWarmupLocked()
	line := p.tally.Add(iv)
	switch {
	case p.term.live:
		p.drawLocked(line)
	case p.every > 0 && p.tally.Since() >= p.every:
		if line, ok := p.tally.Line(); ok {
			fmt.Fprintln(p.w, line)
		}
	}
}

// showLocked shows a line: drawn in place on a terminal, printed on a
// line of its own in a log when status lines are wanted.
func (p *progress) showLocked(line string) {
	switch {
	case p.term.live:
		p.drawLocked(line)
	case p.every > 0:
		fmt.Fprintln(p.w, line)
	}
}

// drawLocked redraws the terminal's line: back to its start, the line
// cut to the terminal's width (one column spare, so it never wraps), and
// spaces over what is left of a longer line drawn before, counted in
// columns, not bytes ("—" takes one column and three bytes).
func (p *progress) drawLocked(line string) {
	if w := p.cols(); w > 1 {
		line = report.Fit(line, w-1)
	}
	n := texttable.Width(line)
	fmt.Fprintf(p.w, "\r%s%s", line, strings.Repeat(" ", max(p.width-n, 0)))
	p.width, p.drawn = n, true
}

// Done ends the progress of the run: the terminal's line is ended; a log
// gets the intervals not yet in a status line.
func (p *progress) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopWarmupLocked()
	switch {
	case p.term.live && p.drawn:
		fmt.Fprintln(p.w)
		p.width, p.drawn = 0, false
	case !p.term.live && p.every > 0:
		if line, ok := p.tally.Line(); ok {
			fmt.Fprintln(p.w, line)
		}
	}
}

// stepClock times a study's runs for the estimate of the time left.
type stepClock struct {
	began time.Time // when the first run began
}

// next is the header of the run info announces, at now: the study's
// time so far and, when it knows how many runs it makes, the time left:
// the mean time of the runs so far times the runs left, or before the
// first has ended, the runs' planned phases (a lower bound: setting up
// takes time too).
func (c *stepClock) next(info study.StepInfo, now time.Time) report.StudyStep {
	if c.began.IsZero() {
		c.began = now
	}
	s := report.StudyStep{N: info.N, Total: info.Total, What: info.What, Elapsed: now.Sub(c.began)}
	left := info.Total - info.N + 1
	switch {
	case info.Total == 0 || left <= 0:
	case info.N > 1:
		s.Left = s.Elapsed / time.Duration(info.N-1) * time.Duration(left)
	case info.Planned > 0:
		s.Left, s.AtLeast = info.Planned*time.Duration(left), true
	}
	return s
}
