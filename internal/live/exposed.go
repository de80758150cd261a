package live

import (
	"fmt"
	"net"
	"strings"
)

// Exposed reports whether listening on addr (HOST:PORT) lets other
// machines connect: any host but localhost and a loopback address, so
// also an empty host (":9464", ":0") and 0.0.0.0 or ::, which listen on
// every interface.
func Exposed(addr string) bool {
	host, _, _ := net.SplitHostPort(addr)
	if strings.EqualFold(host, "localhost") {
		return false
	}
	ip := net.ParseIP(host)
	return ip == nil || !ip.IsLoopback()
}

// ExposedWarning is the warning said before listening on an exposed
// address (Exposed), for flag and what other machines can then read; ""
// for a loopback address. `serve --listen` and `--metrics-addr` say it
// alike.
func ExposedWarning(flag, addr, what string) string {
	if !Exposed(addr) {
		return ""
	}
	return fmt.Sprintf("warning: %s %s: other machines can read %s (no authentication)", flag, addr, what)
}
