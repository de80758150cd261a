package cli

import (
	"io"
	"os"
	"time"

	"golang.org/x/term"

	"github.com/mongobench/mongobench/internal/engine"
	"github.com/mongobench/mongobench/internal/progress"
	"github.com/mongobench/mongobench/internal/spec"
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

// newProgress shows a run of sc, whose tally is run, on w.
func newProgress(w io.Writer, t terminal, every time.Duration, sc *spec.Scenario, run *engine.Tally) *progress.Progress {
	return progress.NewProgress(w, progress.Display{Live: t.live, Cols: t.width, Every: every}, time.Duration(sc.Duration), sc.SetupNote(), run)
}
