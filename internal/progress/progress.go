package progress

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/texttable"
)

// Progress shows how a run goes. On a terminal: one line redrawn in
// place (setup, warm-up, then each interval's throughput and p99), never
// wider than the terminal. Otherwise, for logs: a plain status line every
// status interval (setup progress, the warm-up, then the throughput and
// p99 of the intervals since the last line), none when it is 0.
type Progress struct {
	mu     sync.Mutex
	w      io.Writer
	live   bool          // the writer is a terminal: one line redrawn in place
	cols   func() int    // the terminal's width in columns, 0 unknown
	every  time.Duration // not a terminal: a status line this often; 0 none
	tally  LiveTally
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

// Display is where a run's progress goes: Live when the writer is a
// terminal (Cols its width in columns, 0 unknown), else a status line
// every Every (none when 0).
type Display struct {
	Live  bool
	Cols  func() int
	Every time.Duration
}

// NewProgress shows a run whose measured phase is planned to last total
// and whose tally is run; estimate, when not empty, is said once when
// the setup first reports progress.
func NewProgress(w io.Writer, d Display, total time.Duration, estimate string, run *engine.Tally) *Progress {
	cols := d.Cols
	if cols == nil {
		cols = func() int { return 0 }
	}
	return &Progress{w: w, live: d.Live, cols: cols, every: d.Every, total: total, tally: LiveTally{Total: total, Run: run}, estimate: estimate}
}

// Setup shows preload progress: on a terminal at most a few times a
// second, in a log once a status interval and when a stage completes.
// Loaders call it concurrently.
func (p *Progress) Setup(stage string, done, total int64) {
	p.said.Do(func() {
		if p.estimate != "" {
			fmt.Fprint(p.w, p.estimate)
		}
	})
	p.mu.Lock()
	defer p.mu.Unlock()
	gap := 200 * time.Millisecond
	if !p.live {
		gap = p.every
	}
	if gap <= 0 || time.Since(p.lastAt) < gap && done < total {
		return
	}
	p.lastAt = time.Now()
	p.showLocked(LiveSetup(stage, done, total))
}

// Start replaces the setup's line when the engine starts: the warm-up,
// counted down on a terminal (in a log, once a status interval), or the
// measured phase, planned to last length (a self-scheduled run's own
// length replaces the one the display was made with).
func (p *Progress) Start(warmup, length time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.total, p.tally.Total = length, length
	p.showLocked(LiveStart(warmup, p.total))
	tick := time.Second
	if !p.live {
		tick = p.every
	}
	if warmup <= 0 || tick <= 0 {
		return
	}
	p.warming = make(chan struct{})
	go p.countWarmup(time.Now(), warmup, tick, p.warming)
}

// countWarmup shows the warm-up's progress every tick until stop closes.
func (p *Progress) countWarmup(began time.Time, warmup, tick time.Duration, stop chan struct{}) {
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
					p.showLocked(LiveWarmup(since, warmup))
				}
			}
			p.mu.Unlock()
		}
	}
}

// stopWarmupLocked stops the warm-up's clock.
func (p *Progress) stopWarmupLocked() {
	if p.warming != nil {
		close(p.warming)
		p.warming = nil
	}
}

// Interval shows a closed interval: on a terminal at once, in a log when
// the intervals since the last line span a status interval.
func (p *Progress) Interval(iv *engine.Interval) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopWarmupLocked()
	line := p.tally.Add(iv)
	switch {
	case p.live:
		p.drawLocked(line)
	case p.every > 0 && p.tally.Since() >= p.every:
		if line, ok := p.tally.Line(); ok {
			fmt.Fprintln(p.w, line)
		}
	}
}

// showLocked shows a line: drawn in place on a terminal, printed on a
// line of its own in a log when status lines are wanted.
func (p *Progress) showLocked(line string) {
	switch {
	case p.live:
		p.drawLocked(line)
	case p.every > 0:
		fmt.Fprintln(p.w, line)
	}
}

// drawLocked redraws the terminal's line: back to its start, the line
// cut to the terminal's width (one column spare, so it never wraps), and
// spaces over what is left of a longer line drawn before, counted in
// columns, not bytes ("—" takes one column and three bytes).
func (p *Progress) drawLocked(line string) {
	if w := p.cols(); w > 1 {
		line = Fit(line, w-1)
	}
	n := texttable.Width(line)
	fmt.Fprintf(p.w, "\r%s%s", line, strings.Repeat(" ", max(p.width-n, 0)))
	p.width, p.drawn = n, true
}

// Done ends the progress of the run: the terminal's line is ended; a log
// gets the intervals not yet in a status line.
func (p *Progress) Done() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.stopWarmupLocked()
	switch {
	case p.live && p.drawn:
		fmt.Fprintln(p.w)
		p.width, p.drawn = 0, false
	case !p.live && p.every > 0:
		if line, ok := p.tally.Line(); ok {
			fmt.Fprintln(p.w, line)
		}
	}
}

// StepClock times a study's runs for the estimate of the time left.
type StepClock struct {
	began time.Time // when the first run began
}

// Next is the header of a study's run n of total (0: not known), which
// varies what and is planned to last planned (0: not known), at now: the study's
// time so far and, when it knows how many runs it makes, the time left:
// the mean time of the runs so far times the runs left, or before the
// first has ended, the runs' planned phases (a lower bound: setting up
// takes time too).
func (c *StepClock) Next(n, total int, what string, planned time.Duration, now time.Time) StudyStep {
	if c.began.IsZero() {
		c.began = now
	}
	s := StudyStep{N: n, Total: total, What: what, Elapsed: now.Sub(c.began)}
	left := total - n + 1
	switch {
	case total == 0 || left <= 0:
	case n > 1:
		s.Left = s.Elapsed / time.Duration(n-1) * time.Duration(left)
	case planned > 0:
		s.Left, s.AtLeast = planned*time.Duration(left), true
	}
	return s
}

// ReadProgress shows, on a terminal only, how far the reading of large
// files has gone (FTDC files of ReadProgressFloor bytes or more), at most
// five times a second; Done clears the line.
type ReadProgress struct {
	W     io.Writer
	Live  bool
	What  string // what is read, such as "reading FTDC"
	last  time.Time
	shown bool
}

// ReadProgressFloor is the size of the files from which reading them
// shows its progress.
const ReadProgressFloor = 32 << 20

// Update shows that done bytes of total have been read.
func (p *ReadProgress) Update(done, total int64) {
	if !p.Live || total < ReadProgressFloor || time.Since(p.last) < 200*time.Millisecond {
		return
	}
	p.last, p.shown = time.Now(), true
	fmt.Fprintf(p.W, "\r%s: %3.0f%% (%d of %d MB)", p.What, 100*float64(done)/float64(total), done>>20, total>>20)
}

// Done clears the line, if one was shown.
func (p *ReadProgress) Done() {
	if p.shown {
		fmt.Fprint(p.W, "\r\033[K")
		p.shown = false
	}
}
