package main

import (
	"encoding/binary"
	"errors"
	"fmt"
	"net"
	"syscall"
	"time"
)

// stampReader reads a TCP connection with recvmsg and keeps the kernel's
// receive timestamp (SO_TIMESTAMPNS) of the latest read, so a request's
// arrival is when it reached the socket, not when this process got round
// to reading it.
type stampReader struct {
	rc   syscall.RawConn
	oob  []byte
	last time.Time // wall clock of the latest read's data; zero if none
}

func newStampReader(tc *net.TCPConn) (*stampReader, error) {
	rc, err := tc.SyscallConn()
	if err != nil {
		return nil, fmt.Errorf("raw connection: %w", err)
	}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		serr = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, syscall.SO_TIMESTAMPNS, 1)
	}); err != nil {
		return nil, fmt.Errorf("control: %w", err)
	}
	if serr != nil {
		return nil, fmt.Errorf("SO_TIMESTAMPNS: %w", serr)
	}
	return &stampReader{rc: rc, oob: make([]byte, 256)}, nil
}

var errClosed = errors.New("connection closed")

// Read reads into p with one recvmsg, waiting in the poller for data.
func (r *stampReader) Read(p []byte) (int, error) {
	var n, oobn int
	var rerr error
	err := r.rc.Read(func(fd uintptr) bool {
		n, oobn, _, _, rerr = syscall.Recvmsg(int(fd), p, r.oob, 0)
		return !errors.Is(rerr, syscall.EAGAIN)
	})
	if err != nil {
		return 0, err
	}
	if rerr != nil {
		return 0, rerr
	}
	if n == 0 {
		return 0, errClosed
	}
	if msgs, err := syscall.ParseSocketControlMessage(r.oob[:oobn]); err == nil {
		for _, m := range msgs {
			if m.Header.Level == syscall.SOL_SOCKET && m.Header.Type == syscall.SO_TIMESTAMPNS && len(m.Data) >= 16 {
				sec := int64(binary.NativeEndian.Uint64(m.Data[0:]))
				nsec := int64(binary.NativeEndian.Uint64(m.Data[8:]))
				r.last = time.Unix(sec, nsec)
			}
		}
	}
	return n, nil
}

// arrival converts the latest read's kernel timestamp to a time on the
// monotonic clock, read at now; ok is false without a timestamp.
func (r *stampReader) arrival(now time.Time) (time.Time, bool) {
	if r.last.IsZero() {
		return now, false
	}
	return now.Add(-now.Round(0).Sub(r.last)), true
}
