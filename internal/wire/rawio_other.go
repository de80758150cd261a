//go:build !linux

package wire

import (
	"net"
	"time"
)

// lean returns nc: raw reads and writes are for Linux.
func lean(nc net.Conn) net.Conn { return nc }

// arrived reports no receive timestamp: they are read on Linux.
func arrived(net.Conn, time.Time) (time.Time, bool) { return time.Time{}, false }

// markSend does nothing: transmit stamps are read on Linux.
func markSend(net.Conn) {}

// sentTime reports no transmit stamp: they are read on Linux.
func sentTime(net.Conn, time.Time) (time.Time, bool) { return time.Time{}, false }
