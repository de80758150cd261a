package bounded

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

var small = Limit{What: "test files", Max: 10, Why: "a test"}

// Every read stops at its bound with one error naming the input and the
// bound; a FIFO or a device is refused before it is opened (a FIFO as
// --atlas-credentials blocked; -P /dev/zero grew by hundreds of MB a
// second).
func TestReadFileRefusesWhatCannotBeAFile(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	fits, big := filepath.Join(dir, "fits"), filepath.Join(dir, "big")
	if err := os.WriteFile(fits, []byte("0123456789"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(big, []byte("0123456789x"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ path, want string }{
		{fits, ""},
		{big, big + ": larger than its bound: test files can be at most 10 bytes (a test)"},
		{fifo, fifo + ": a FIFO, not a regular file; give a file"},
		{"/dev/zero", "/dev/zero: a device, not a regular file; give a file"},
		{dir, dir + ": a directory, not a file; give a file"},
	} {
		done := make(chan error, 1)
		go func() { _, err := ReadFile(tc.path, small); done <- err }()
		select {
		case err := <-done:
			if tc.want == "" && err != nil || tc.want != "" && (err == nil || err.Error() != tc.want) {
				t.Errorf("ReadFile(%s): got %v, want %q", tc.path, err, tc.want)
			}
		case <-time.After(2 * time.Second):
			t.Fatalf("ReadFile(%s) blocked", tc.path)
		}
	}
}

func TestReaderStopsAtTheBound(t *testing.T) {
	f, err := os.Open("/dev/zero")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	l := Limit{What: "answers", Max: 1 << 20, Why: "a test"}
	buf := make([]byte, 4096)
	var n int
	r := Reader(f, "/dev/zero", l)
	for {
		k, err := r.Read(buf)
		n += k
		if err != nil {
			if !errors.Is(err, ErrTooLarge) || !strings.Contains(err.Error(), "at most 1MB") {
				t.Fatalf("got %v, want ErrTooLarge naming 1MB", err)
			}
			break
		}
	}
	if n != 1<<20 {
		t.Errorf("read %d bytes, want exactly the bound", n)
	}
	if _, err := ReadAll(strings.NewReader("12345678901"), "the answer", small); err == nil || !strings.HasPrefix(err.Error(), "the answer: larger") {
		t.Errorf("ReadAll: got %v", err)
	}
}

// A wait between attempts ends at once after a stop, with the stop's
// error, and runs its length otherwise.
func TestSleepEndsAtTheStop(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	start := time.Now()
	if err := Sleep(ctx, time.Hour); err == nil || time.Since(start) > time.Second {
		t.Errorf("a wait after a stop: got %v after %v, want the stop's error at once", err, time.Since(start))
	}
	if err := Sleep(context.Background(), 10*time.Millisecond); err != nil || time.Since(start) < 10*time.Millisecond {
		t.Errorf("a wait of 10ms: got %v, want nil after it", err)
	}
}

// A step after a stop runs, but ends Grace after the context does.
func TestStepEndsAfterTheStop(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	step, done := Step(ctx, time.Hour)
	defer done()
	start := time.Now()
	cancel()
	<-step.Done()
	if d := time.Since(start); d < Grace/2 || d > 2*time.Second {
		t.Errorf("the step ended %v after the stop, want about %v", d, Grace)
	}
	late, done2 := Step(ctx, time.Hour)
	defer done2()
	if dl, ok := late.Deadline(); !ok || time.Until(dl) > Grace {
		t.Errorf("a step begun after the stop has deadline %v, want within %v", dl, Grace)
	}
}
