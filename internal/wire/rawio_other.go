//go:build !linux

package wire

import "net"

// lean returns nc: raw reads and writes are for Linux.
func lean(nc net.Conn) net.Conn { return nc }
