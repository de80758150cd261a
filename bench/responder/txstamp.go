package main

import (
	"net"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"

	"github.com/mongobench/mongobench/internal/wire"
)

// txStamper asks the kernel for a software transmit timestamp of every
// write on a TCP connection (SO_TIMESTAMPING: SOF_TIMESTAMPING_TX_SOFTWARE,
// reported on the socket's error queue, keyed by the byte offset of the
// write's last byte, SOF_TIMESTAMPING_OPT_ID). On loopback the stamp is
// taken as the segment is handed to the loopback device, which delivers
// it to the receiving socket in the same pass: it is when the reply
// reached the client's host, not when this process's write returned.
type txStamper struct {
	rc  syscall.RawConn
	oob [512]byte
	buf [64]byte
}

// newTxStamper turns transmit timestamps on for tc; nil when the kernel
// refuses (the write's return is then the send time).
func newTxStamper(tc *net.TCPConn) *txStamper {
	rc, err := tc.SyscallConn()
	if err != nil {
		return nil
	}
	flags := unix.SOF_TIMESTAMPING_TX_SOFTWARE | unix.SOF_TIMESTAMPING_SOFTWARE |
		unix.SOF_TIMESTAMPING_OPT_ID | unix.SOF_TIMESTAMPING_OPT_TSONLY
	var serr error
	if err := rc.Control(func(fd uintptr) {
		serr = unix.SetsockoptInt(int(fd), unix.SOL_SOCKET, unix.SO_TIMESTAMPING, flags)
	}); err != nil || serr != nil {
		return nil
	}
	return &txStamper{rc: rc}
}

// drain reads every transmit timestamp queued on the socket's error
// queue, without waiting, and calls got with each one's key (the offset
// of the stamped write's last byte, from the first byte written after
// the stamps were turned on) and time (Unix nanoseconds).
func (t *txStamper) drain(got func(key uint32, ns int64)) {
	_ = t.rc.Control(func(fd uintptr) {
		for {
			var msg unix.Msghdr
			iov := unix.Iovec{Base: &t.buf[0]}
			iov.SetLen(len(t.buf))
			msg.Iov = &iov
			msg.SetIovlen(1)
			msg.Control = &t.oob[0]
			msg.SetControllen(len(t.oob))
			_, _, e := unix.RawSyscall(unix.SYS_RECVMSG, fd, uintptr(unsafe.Pointer(&msg)), unix.MSG_ERRQUEUE|unix.MSG_DONTWAIT)
			if e != 0 {
				return // EAGAIN: the queue is empty
			}
			key, ns, ok := wire.TransmitStamp(t.oob[:msg.Controllen])
			if ok {
				got(key, ns)
			}
		}
	})
}
