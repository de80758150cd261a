package server

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
)

// tailLines is how many log lines a start failure quotes.
const tailLines = 15

// errPortTaken marks a start that failed because its port was in use.
var errPortTaken = errors.New("port in use")

var listeningRE = regexp.MustCompile(`listening on \S*:([0-9]+)`)

// boundPort reads the port SecantusDB reports binding, or 0 if it has not
// reported one yet.
func boundPort(dir string) int {
	b, err := os.ReadFile(filepath.Join(dir, serverLog))
	if err != nil {
		return 0
	}
	m := listeningRE.FindSubmatch(b)
	if m == nil {
		return 0
	}
	port, _ := strconv.Atoi(string(m[1]))
	return port
}

// failed wraps err with the last lines of the server's logs, and with
// errPortTaken when they say the port was in use.
func (h *Handle) failed(err error) error {
	logs := h.logTail()
	if strings.Contains(strings.ToLower(logs), "address already in use") {
		err = fmt.Errorf("%w: %w", errPortTaken, err)
	}
	if logs == "" {
		return fmt.Errorf("%s: %w (the logs are empty)", h.Kind, err)
	}
	return fmt.Errorf("%s: %w\n%s", h.Kind, err, logs)
}

// logTail returns the last lines of the server's output and its own log.
func (h *Handle) logTail() string {
	paths := []string{filepath.Join(h.Dir, serverLog)}
	if h.LogPath != paths[0] {
		paths = append(paths, h.LogPath)
	}
	var b strings.Builder
	for _, p := range paths {
		if lines := tail(p, tailLines); lines != "" {
			fmt.Fprintf(&b, "last lines of %s:\n%s", p, lines)
		}
	}
	return b.String()
}

// tail returns up to n last lines of the file at path, or "".
func tail(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer func() { _ = f.Close() }() // read only
	const window = 16 << 10
	if fi, err := f.Stat(); err == nil && fi.Size() > window {
		_, _ = f.Seek(-window, io.SeekEnd)
	}
	b, _ := io.ReadAll(f)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	out := strings.Join(lines, "\n")
	if strings.TrimSpace(out) == "" {
		return ""
	}
	return out + "\n"
}
