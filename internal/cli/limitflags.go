package cli

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/mongobench/mongobench/internal/diagnosis"
)

// limitFlags state the ceilings the diagnosis of a run cannot know from
// the server: its disk's throughput and IOPS, and the network link.
type limitFlags struct {
	disk, link string
}

func (f *limitFlags) add(fl *pflag.FlagSet) {
	fl.StringVar(&f.disk, "disk-limit", "", "the target disk's ceiling, for the diagnosis of what limited each run: throughput, IOPS or both, e.g. 225MB/s,3000iops")
	fl.StringVar(&f.link, "link", "", "the network link to the target, for the diagnosis: e.g. 10Gbit/s")
}

// limits parses the flags; a bad value is a usage error naming the flag.
func (f limitFlags) limits() (diagnosis.Limits, error) {
	var l diagnosis.Limits
	if f.disk != "" {
		d, err := diagnosis.ParseDiskLimit(f.disk)
		if err != nil {
			return l, usage(fmt.Errorf("--disk-limit: %w", err))
		}
		l = d
	}
	if f.link != "" {
		v, err := diagnosis.ParseLink(f.link)
		if err != nil {
			return l, usage(fmt.Errorf("--link: %w", err))
		}
		l.LinkBytesPerSec = v
	}
	return l, nil
}
