package wire

import (
	"io"
	"net"
	"syscall"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// rawTCP is a TCP connection whose reads and writes are raw system calls
// inside the netpoller's readiness loop (syscall.RawConn), with the
// connection's deadlines as they are. A plain Read or Write goes through
// the runtime's system-call bookkeeping, which wakes the runtime's
// monitor thread (sysmon) whenever the process was idle, as a paced
// client is between operations: one or more context switches per
// operation, a large share of the client's CPU at a few thousand
// operations a second. read and write on a non-blocking socket never
// block, so nothing needs that bookkeeping.
//
// Reads are recvmsg calls that also return the kernel's receive
// timestamp of the data read (SO_TIMESTAMPNS), so a reply's arrival is
// known apart from when this process was woken to read it.
type rawTCP struct {
	*net.TCPConn
	rc     syscall.RawConn
	stamps bool // SO_TIMESTAMPNS is on
	msg    unix.Msghdr
	iov    unix.Iovec
	oob    [8]uint64     // control messages, aligned for the headers read in place
	last   unix.Timespec // the latest read's receive time; zero when it had none
}

// lean returns nc with raw reads and writes when it is a TCP connection,
// else nc.
func lean(nc net.Conn) net.Conn {
	tc, ok := nc.(*net.TCPConn)
	if !ok {
		return nc
	}
	rc, err := tc.SyscallConn()
	if err != nil {
		return nc
	}
	c := &rawTCP{TCPConn: tc, rc: rc}
	var serr error
	if err := rc.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1)
	}); err == nil && serr == nil {
		c.stamps = true
	}
	return c
}

func (c *rawTCP) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	c.last = unix.Timespec{}
	c.iov.Base = &p[0]
	c.iov.SetLen(len(p))
	c.msg.Iov = &c.iov
	c.msg.SetIovlen(1)
	var n int
	var errno syscall.Errno
	err := c.rc.Read(func(fd uintptr) bool {
		for {
			c.msg.Control = nil
			c.msg.SetControllen(0)
			if c.stamps {
				c.msg.Control = &c.control()[0]
				c.msg.SetControllen(len(c.oob) * 8)
			}
			r, _, e := unix.RawSyscall(unix.SYS_RECVMSG, fd, uintptr(unsafe.Pointer(&c.msg)), 0)
			switch e {
			case unix.EINTR:
				continue
			case unix.EAGAIN:
				return false // wait until readable
			}
			n, errno = int(r), e
			return true
		}
	})
	switch {
	case err != nil:
		return 0, err
	case errno != 0:
		return 0, &net.OpError{Op: "read", Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: errno}
	case n == 0:
		return 0, io.EOF
	}
	if c.stamps {
		oob := c.control()
		c.last = receiveTime(oob[:min(int(c.msg.Controllen), len(oob))])
	}
	return n, nil
}

// control is the control-message buffer as bytes.
func (c *rawTCP) control() []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(&c.oob[0])), len(c.oob)*8)
}

// receiveTime finds the SO_TIMESTAMPNS control message in oob; zero when
// there is none.
func receiveTime(oob []byte) unix.Timespec {
	hdr := unix.CmsgLen(0)
	for off := 0; off+hdr <= len(oob); {
		h := (*unix.Cmsghdr)(unsafe.Pointer(&oob[off]))
		l := int(h.Len)
		if l < hdr || off+l > len(oob) {
			break
		}
		if h.Level == unix.SOL_SOCKET && h.Type == unix.SCM_TIMESTAMPNS && l-hdr >= int(unsafe.Sizeof(unix.Timespec{})) {
			return *(*unix.Timespec)(unsafe.Pointer(&oob[off+hdr]))
		}
		off += unix.CmsgSpace(l - hdr)
	}
	return unix.Timespec{}
}

// maxReceiveGap bounds how long before being read a reply can have
// arrived for its timestamp to be believed: a larger gap (or a negative
// one) means the wall clock was stepped in between.
const maxReceiveGap = time.Minute

// arrived returns when the data of nc's latest read reached this host,
// on the monotonic clock read at now; ok is false when nc is not a raw
// connection or that read carried no timestamp.
func arrived(nc net.Conn, now time.Time) (time.Time, bool) {
	c, ok := nc.(*rawTCP)
	if !ok || (c.last.Sec == 0 && c.last.Nsec == 0) {
		return time.Time{}, false
	}
	gap := now.Round(0).Sub(time.Unix(c.last.Unix()))
	if gap < 0 || gap > maxReceiveGap {
		return time.Time{}, false
	}
	return now.Add(-gap), true
}

func (c *rawTCP) Write(p []byte) (int, error) {
	var n int
	var errno syscall.Errno
	err := c.rc.Write(func(fd uintptr) bool {
		for n < len(p) {
			r, _, e := unix.RawSyscall(unix.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[n])), uintptr(len(p)-n))
			switch e {
			case 0:
				n += int(r)
			case unix.EINTR:
			case unix.EAGAIN:
				return false // wait until writable
			default:
				errno = e
				return true
			}
		}
		return true
	})
	switch {
	case err != nil:
		return n, err
	case errno != 0:
		return n, &net.OpError{Op: "write", Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: errno}
	}
	return n, nil
}
