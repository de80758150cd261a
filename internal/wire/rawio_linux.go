package wire

import (
	"io"
	"net"
	"sync/atomic"
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
// known apart from when this process was woken to read it. A write
// marked as an operation's first (markSend) has its kernel transmit
// timestamp read too (SO_TIMESTAMPING, SOF_TIMESTAMPING_TX_SOFTWARE:
// taken as the segment is handed to the network device, on loopback just
// before the receiving socket gets it), so the operation's send is known
// apart from the write system call's own path through the kernel.
type rawTCP struct {
	*net.TCPConn
	rc     syscall.RawConn
	stamps bool // SO_TIMESTAMPNS is on
	msg    unix.Msghdr
	iov    unix.Iovec
	// oob holds a read's control messages, aligned for the headers read
	// in place: SCM_TIMESTAMPNS, and SCM_TIMESTAMPING when transmit
	// stamps are on (the kernel then reports the receive stamp twice).
	oob  [12]uint64
	last unix.Timespec // the latest read's receive time; zero when it had none

	// tx says transmit stamps are on; written counts the bytes written
	// since (a stamp's key is the offset of its write's last byte), mark
	// that the next write is an operation's first, wantKey that write's
	// key while its stamp is awaited, and sentAt that stamp once read.
	tx      bool
	txOff   atomic.Bool // a read turned the stamps off (stopStamps)
	written uint32
	mark    bool
	want    bool
	wantKey uint32
	sentAt  unix.Timespec
	errMsg  unix.Msghdr
	errIov  unix.Iovec
	errOob  [32]uint64
	errBuf  [8]byte

	// The functions the raw connection runs, built once so that no
	// read or write allocates one, and what they return: a read and a
	// write may run at once (a dispatcher writes while the worker
	// waits for the reply), so each has its own.
	readFn, writeFn func(fd uintptr) bool
	drainCtl        func(fd uintptr)
	readN           int
	readErr         syscall.Errno
	wp              []byte // the write's bytes, while it runs
	wn              int
	wErr            syscall.Errno
	wStamp          bool
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
	c.readFn, c.writeFn = c.readOnce, c.writeOnce
	c.drainCtl = c.drainQueue
	var serr error
	if err := rc.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_TIMESTAMPNS, 1)
	}); err == nil && serr == nil {
		c.stamps = true
	}
	// Reporting only: a write asks for its own stamp (sendStamped), so
	// no other write puts anything on the error queue.
	flags := unix.SOF_TIMESTAMPING_SOFTWARE | unix.SOF_TIMESTAMPING_OPT_ID | unix.SOF_TIMESTAMPING_OPT_TSONLY
	if err := rc.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_TIMESTAMPING, flags)
	}); err == nil && serr == nil {
		c.tx = true
	}
	return c
}

// markSend says the next write is an operation's first: its kernel
// transmit stamp is then read (sentTime).
func (c *rawTCP) markSend() {
	c.mark, c.want, c.sentAt = c.tx, false, unix.Timespec{}
}

// sentTime returns the kernel's transmit stamp of the last marked write,
// on the monotonic clock of local, a clock reading taken just before
// that write; ok is false when the kernel gave none (yet).
func (c *rawTCP) sentTime(local time.Time) (time.Time, bool) {
	if c.want {
		c.drainSent()
	}
	if c.sentAt.Sec == 0 && c.sentAt.Nsec == 0 {
		return time.Time{}, false
	}
	after := time.Unix(c.sentAt.Unix()).Sub(local.Round(0))
	if after < 0 || after > maxReceiveGap {
		return time.Time{}, false // the wall clock was stepped in between
	}
	return local.Add(after), true
}

// drainSent reads the socket's error queue, without waiting, until the
// awaited transmit stamp is found; stamps of other writes are dropped.
// Reading it right after the write keeps the queue empty, so the poller
// sees no error event to wake a reader for.
func (c *rawTCP) drainSent() {
	_ = c.rc.Control(c.drainCtl)
}

// drainQueue is drainSent's loop over the error queue, on the socket fd.
func (c *rawTCP) drainQueue(fd uintptr) {
	oob := unsafe.Slice((*byte)(unsafe.Pointer(&c.errOob[0])), len(c.errOob)*8)
	for c.want {
		c.errIov.Base = &c.errBuf[0]
		c.errIov.SetLen(len(c.errBuf))
		c.errMsg = unix.Msghdr{Iov: &c.errIov, Control: &oob[0]}
		c.errMsg.SetIovlen(1)
		c.errMsg.SetControllen(len(oob))
		_, _, e := unix.RawSyscall(unix.SYS_RECVMSG, fd, uintptr(unsafe.Pointer(&c.errMsg)), unix.MSG_ERRQUEUE|unix.MSG_DONTWAIT)
		if e == unix.EINTR {
			continue
		}
		if e != 0 {
			return // EAGAIN: not there yet
		}
		if key, ns, ok := TransmitStamp(oob[:min(int(c.errMsg.Controllen), len(oob))]); ok && key == c.wantKey {
			c.sentAt, c.want = unix.NsecToTimespec(ns), false
		}
	}
}

// TransmitStamp finds a software transmit stamp (SCM_TIMESTAMPING's
// first timespec, in Unix nanoseconds) and its key (sock_extended_err's
// ee_data, origin SO_EE_ORIGIN_TIMESTAMPING: with
// SOF_TIMESTAMPING_OPT_ID on TCP, the offset of the stamped write's last
// byte) in an error-queue message's control data. bench/responder reads
// its replies' stamps with it.
func TransmitStamp(oob []byte) (key uint32, ns int64, ok bool) {
	var haveKey, haveTime bool
	eachControl(oob, func(level, typ int32, data []byte) bool {
		switch {
		case level == unix.SOL_SOCKET && typ == unix.SCM_TIMESTAMPING && len(data) >= int(unsafe.Sizeof(unix.Timespec{})):
			ts := *(*unix.Timespec)(unsafe.Pointer(&data[0]))
			ns, haveTime = ts.Nano(), ts.Sec != 0 || ts.Nsec != 0
		case (level == unix.SOL_IP && typ == unix.IP_RECVERR) || (level == unix.SOL_IPV6 && typ == unix.IPV6_RECVERR):
			// struct sock_extended_err: errno u32, origin u8, type u8,
			// code u8, pad u8, info u32, data u32.
			if len(data) >= 16 && data[4] == unix.SO_EE_ORIGIN_TIMESTAMPING {
				key, haveKey = *(*uint32)(unsafe.Pointer(&data[12])), true
			}
		}
		return true
	})
	return key, ns, haveKey && haveTime
}

// eachControl calls f with each control message of oob, its level, type
// and data, until f returns false or a message is truncated.
func eachControl(oob []byte, f func(level, typ int32, data []byte) bool) {
	hdr := unix.CmsgLen(0)
	for off := 0; off+hdr <= len(oob); {
		h := (*unix.Cmsghdr)(unsafe.Pointer(&oob[off]))
		l := int(h.Len)
		if l < hdr || off+l > len(oob) || !f(h.Level, h.Type, oob[off+hdr:off+l]) {
			return
		}
		off += unix.CmsgSpace(l - hdr)
	}
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
	c.readN, c.readErr = 0, 0
	err := c.rc.Read(c.readFn)
	if err != nil && c.tx && err.Error() == notPollable {
		// A transmit stamp came on its own (EPOLLERR alone: the socket
		// not writable), which the runtime's poller reports as a failed
		// read. The connection's stamps are turned off and the error
		// queue emptied; the poller forgets the error at the socket's
		// next event (the reply), so until then the read retries.
		c.stopStamps()
		for err != nil && err.Error() == notPollable {
			err = c.rc.Read(c.readFn)
		}
	}
	n, errno := c.readN, c.readErr
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

// readOnce is Read's system call on the socket fd: false when nothing is
// there yet (wait until readable).
func (c *rawTCP) readOnce(fd uintptr) bool {
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
			return false
		}
		c.readN, c.readErr = int(r), e
		return true
	}
}

// control is the control-message buffer as bytes.
func (c *rawTCP) control() []byte {
	return unsafe.Slice((*byte)(unsafe.Pointer(&c.oob[0])), len(c.oob)*8)
}

// receiveTime finds the SO_TIMESTAMPNS control message in oob; zero when
// there is none.
func receiveTime(oob []byte) unix.Timespec {
	var ts unix.Timespec
	eachControl(oob, func(level, typ int32, data []byte) bool {
		if level == unix.SOL_SOCKET && typ == unix.SCM_TIMESTAMPNS && len(data) >= int(unsafe.Sizeof(unix.Timespec{})) {
			ts = *(*unix.Timespec)(unsafe.Pointer(&data[0]))
			return false
		}
		return true
	})
	return ts
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
	c.wp, c.wn, c.wErr = p, 0, 0
	c.wStamp = c.mark && len(p) > 0 && len(p) <= maxStampedWrite && !c.txOff.Load()
	c.mark = false
	err := c.rc.Write(c.writeFn)
	n, errno := c.wn, c.wErr
	c.wp = nil
	if c.want {
		c.drainSent() // on loopback and most devices it is there already
	}
	switch {
	case err != nil:
		return n, err
	case errno != 0:
		return n, &net.OpError{Op: "write", Net: "tcp", Source: c.LocalAddr(), Addr: c.RemoteAddr(), Err: errno}
	}
	return n, nil
}

// writeOnce is Write's system calls on the socket fd: false when the
// socket cannot take more yet (wait until writable).
func (c *rawTCP) writeOnce(fd uintptr) bool {
	p := c.wp
	for c.wn < len(p) {
		var r uintptr
		var e syscall.Errno
		if c.wStamp {
			// The first system call of a marked write asks for its
			// transmit stamp (a control message: this write only).
			r, e = c.sendStamped(fd, p)
		} else {
			r, _, e = unix.RawSyscall(unix.SYS_WRITE, fd, uintptr(unsafe.Pointer(&p[c.wn])), uintptr(len(p)-c.wn))
		}
		switch e {
		case 0:
			c.wn += int(r)
			if c.tx {
				c.written += uint32(r)
			}
			if c.wStamp {
				c.wStamp, c.want, c.wantKey = false, true, c.written-1
			}
		case unix.EINTR:
		case unix.EAGAIN:
			return false
		default:
			c.wErr = e
			return true
		}
	}
	return true
}

// maxStampedWrite bounds the writes whose transmit stamp is asked for: a
// request that fits the socket's buffer at once, whose stamp follows its
// one system call. A larger one is sent over many, the stamp of its
// first part coming when the network takes it.
const maxStampedWrite = 64 << 10

// sendStamped writes p with a control message asking the kernel for the
// write's software transmit stamp (SO_TIMESTAMPING,
// SOF_TIMESTAMPING_TX_SOFTWARE), reported on the error queue.
func (c *rawTCP) sendStamped(fd uintptr, p []byte) (uintptr, syscall.Errno) {
	var words [3]uint64 // CmsgSpace(4) bytes, aligned for the header
	ctl := unsafe.Slice((*byte)(unsafe.Pointer(&words[0])), len(words)*8)
	h := (*unix.Cmsghdr)(unsafe.Pointer(&ctl[0]))
	h.Level, h.Type = unix.SOL_SOCKET, unix.SO_TIMESTAMPING
	h.SetLen(unix.CmsgLen(4))
	*(*uint32)(unsafe.Pointer(&ctl[unix.CmsgLen(0)])) = unix.SOF_TIMESTAMPING_TX_SOFTWARE
	iov := unix.Iovec{Base: &p[0]}
	iov.SetLen(len(p))
	msg := unix.Msghdr{Iov: &iov, Control: &ctl[0]}
	msg.SetIovlen(1)
	msg.SetControllen(unix.CmsgSpace(4))
	r, _, e := unix.RawSyscall(unix.SYS_SENDMSG, fd, uintptr(unsafe.Pointer(&msg)), 0)
	return r, e
}

// notPollable is the text of the error (internal/poll.ErrNotPollable)
// a read waiting on the runtime's poller gets when the socket's only
// event was an error: a transmit stamp on the error queue.
const notPollable = "not pollable"

// stopStamps turns the connection's transmit stamps off and empties its
// error queue. It runs in a read, which a dispatcher's write may run
// beside: it touches nothing the write does but txOff, and reads the
// queue into buffers of its own.
func (c *rawTCP) stopStamps() {
	c.txOff.Store(true)
	_ = c.rc.Control(func(fd uintptr) {
		_ = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_TIMESTAMPING, 0)
		var buf [8]byte
		var oob [32]uint64
		for {
			iov := unix.Iovec{Base: &buf[0]}
			iov.SetLen(len(buf))
			msg := unix.Msghdr{Iov: &iov, Control: (*byte)(unsafe.Pointer(&oob[0]))}
			msg.SetIovlen(1)
			msg.SetControllen(len(oob) * 8)
			_, _, e := unix.RawSyscall(unix.SYS_RECVMSG, fd, uintptr(unsafe.Pointer(&msg)), unix.MSG_ERRQUEUE|unix.MSG_DONTWAIT)
			if e != 0 && e != unix.EINTR {
				return // EAGAIN: empty
			}
		}
	})
}

// markSend marks nc's next write as an operation's first, when nc reads
// transmit stamps.
func markSend(nc net.Conn) {
	if c, ok := nc.(*rawTCP); ok {
		c.markSend()
	}
}

// sentTime is the kernel's transmit stamp of nc's last marked write
// (rawTCP.sentTime); ok is false when it has none.
func sentTime(nc net.Conn, local time.Time) (time.Time, bool) {
	if c, ok := nc.(*rawTCP); ok {
		return c.sentTime(local)
	}
	return time.Time{}, false
}
