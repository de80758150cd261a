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
