package diagnosis

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/mongobench/mongobench/internal/spec"
)

// Limits are the ceilings a user states for resources the document cannot
// know: a disk's throughput (bytes per second) and IOPS, and a network
// link's bytes per second. Zero means not stated. A target's described
// IOPS (variant.instance.atlasIOPS) is read from the document itself.
type Limits struct {
	DiskBytesPerSec float64
	DiskIOPS        float64
	LinkBytesPerSec float64
}

const (
	wantDiskLimit = "a throughput, IOPS or both, such as 225MB/s, 3000iops or 225MB/s,3000iops (1MB = 1024KB)"
	wantLink      = "a link speed such as 10Gbit/s, 100Mbit/s or 125MB/s"
)

// ParseDiskLimit reads --disk-limit: a throughput (a size per second),
// an IOPS figure ("3000iops"), or both separated by a comma.
func ParseDiskLimit(s string) (Limits, error) {
	var l Limits
	parts := strings.Split(strings.ReplaceAll(s, " ", ""), ",")
	if s == "" || len(parts) > 2 {
		return l, fmt.Errorf("%q: want %s", s, wantDiskLimit)
	}
	for _, p := range parts {
		lower := strings.ToLower(p)
		if n, ok := strings.CutSuffix(lower, "iops"); ok {
			v, err := strconv.ParseFloat(n, 64)
			if err != nil || v <= 0 || l.DiskIOPS != 0 {
				return Limits{}, fmt.Errorf("%q: want %s", s, wantDiskLimit)
			}
			l.DiskIOPS = v
			continue
		}
		v, ok := perSecond(p)
		if !ok || l.DiskBytesPerSec != 0 {
			return Limits{}, fmt.Errorf("%q: want %s", s, wantDiskLimit)
		}
		l.DiskBytesPerSec = v
	}
	return l, nil
}

// ParseLink reads --link: bits per second with a decimal prefix
// (10Gbit/s, 100Mbit/s), or a size per second (125MB/s); it returns
// bytes per second.
func ParseLink(s string) (float64, error) {
	lower := strings.ToLower(strings.ReplaceAll(s, " ", ""))
	for _, u := range []struct {
		suffix string
		bits   float64
	}{{"gbit/s", 1e9}, {"mbit/s", 1e6}, {"kbit/s", 1e3}, {"bit/s", 1}, {"gbps", 1e9}, {"mbps", 1e6}} {
		if n, ok := strings.CutSuffix(lower, u.suffix); ok {
			v, err := strconv.ParseFloat(n, 64)
			if err != nil || v <= 0 {
				return 0, fmt.Errorf("%q: want %s", s, wantLink)
			}
			return v * u.bits / 8, nil
		}
	}
	if v, ok := perSecond(s); ok {
		return v, nil
	}
	return 0, fmt.Errorf("%q: want %s", s, wantLink)
}

// perSecond reads a size per second, such as 225MB/s, in bytes.
func perSecond(s string) (float64, bool) {
	n, ok := strings.CutSuffix(strings.TrimSpace(s), "/s")
	if !ok {
		return 0, false
	}
	size, err := spec.ParseSize(n)
	if err != nil || size <= 0 {
		return 0, false
	}
	return float64(size), true
}
